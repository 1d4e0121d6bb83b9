/**
 * Issue 33 acceptance: no interaction answer is lost to a kept-alive connection the server closes. The sandbox's
 * HTTP server keeps idle connections 5 s (Node's default keepAliveTimeout, checked below through its Keep-Alive
 * header); bursts of interactions come after idle gaps of 4 to 6 s, each after a fresh IDENTIFY, and every one must
 * be answered. Before the fix, answers written to a socket the server was closing were lost (ECONNRESET, not
 * retried); test/rest/stale-sockets.test.ts makes that race happen every time, this test runs the product path.
 * 5 bursts of 40 after the first: 240 answers. The bench (`npm run bench -- soak`) runs 100,000.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../src/runtime/runtime.js';
import type { InteractionRecord, Sandbox } from '../../src/sandbox/index.js';
import { newSandbox, startBot } from '../plugins/helpers.js';

let sandbox: Sandbox;
let runtime: Runtime;

beforeAll(async () => {
  sandbox = await newSandbox({ roomyBuckets: true });
  ({ runtime } = await startBot(sandbox, ['plugins']));
});
afterAll(async () => {
  await runtime?.stop({ graceMs: 500 });
  await sandbox?.close();
});

function keepAliveHeader(url: string): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const agent = new http.Agent({ keepAlive: true });
    http.get(url, { agent }, (res) => {
      res.resume();
      res.on('end', () => {
        agent.destroy();
        const header = res.headers['keep-alive'];
        resolve(typeof header === 'string' ? header : undefined);
      });
    }).on('error', reject);
  });
}

/** A fresh IDENTIFY (the session is discarded), resolved when its READY is out. */
async function freshIdentify(): Promise<void> {
  const ready = new Promise<void>((resolve) => {
    const onDispatch = (d: { t: string }): void => {
      if (d.t !== 'READY') return;
      sandbox.gatewayEvents.off('dispatch', onDispatch);
      resolve();
    };
    sandbox.gatewayEvents.on('dispatch', onDispatch);
  });
  sandbox.faults.invalidateSession(0, false);
  await Promise.race([ready, new Promise((_, reject) => setTimeout(() => reject(new Error('no READY within 20 s')), 20_000))]);
}

describe('answers after idle gaps against a server that keeps idle connections 5 s', () => {
  it('loses none of 240 interaction answers over gaps of 4 to 6 s with fresh IDENTIFYs between', { timeout: 120_000 }, async () => {
    expect(await keepAliveHeader(`${sandbox.restUrl}/gateway`)).toBe('timeout=5');
    const guildId = sandbox.state.guildIds[0]!;
    const records: InteractionRecord[] = [];
    const burst = async (n: number): Promise<void> => {
      const sent = await Promise.all(Array.from({ length: n }, () => sandbox.invoke({ name: 'dice', subcommand: ['flip'], guildId })));
      records.push(...sent);
      await Promise.allSettled(sent.map((r) => r.firstResponse(20_000)));
    };
    await burst(40);
    for (const gapMs of [4_000, 4_500, 5_000, 5_500, 6_000]) {
      await new Promise((r) => setTimeout(r, gapMs));
      await freshIdentify();
      await burst(40);
    }
    const unanswered = records.filter((r) => r.callbacks.length === 0).length;
    expect({ sent: records.length, unanswered }).toEqual({ sent: 240, unanswered: 0 });
  });
});
