/**
 * `gatehouse sandbox webhooks` and `gatehouse sandbox app` against a running sandbox's admin API, with
 * gatehouse's own signed endpoint receiving the events.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli.js';
import { run } from '../../src/cli/sandbox.js';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { silentLogger } from '../../src/runtime/logger.js';
import { ed25519PublicKey, SignedEndpoint, webhookEventsRoute, type WebhookEvent } from '../../src/transports/http/index.js';

function collector(): CliIo & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return { lines, errors, out: (l) => lines.push(l), err: (l) => errors.push(l) };
}

describe('sandbox webhooks CLI', () => {
  let sandbox: Sandbox;
  let endpoint: SignedEndpoint;
  let eventsUrl: string;
  const events: WebhookEvent[] = [];

  beforeAll(async () => {
    sandbox = await createSandbox({ seed: { guilds: 1, membersPerGuild: 3 } });
    endpoint = new SignedEndpoint({
      host: '127.0.0.1',
      port: 0,
      publicKey: ed25519PublicKey(sandbox.webhooks.publicKey),
      maxBodyBytes: 65_536,
      timestampWindowSeconds: 30,
      routes: new Map([['/events', webhookEventsRoute({ accepting: () => true, deliver: (e) => void events.push(e) })]]),
      log: silentLogger(),
    });
    const { port } = await endpoint.listen();
    eventsUrl = `http://127.0.0.1:${port}/events`;
  });
  afterAll(async () => {
    await endpoint.close();
    await sandbox.close();
  });

  const cli = async (...args: string[]): Promise<{ code: number; io: ReturnType<typeof collector> }> => {
    const io = collector();
    const code = await run([...args, '--url', sandbox.adminUrl], io);
    return { code, io };
  };

  it('sets the events URL (verified by a signed PING) and shows the public key', async () => {
    const { code, io } = await cli('webhooks', '--events', eventsUrl);
    expect(code).toBe(0);
    expect(io.lines.join('\n')).toContain(sandbox.webhooks.publicKey);
    expect(io.lines.join('\n')).toContain(`webhook events URL:         ${eventsUrl}`);
    expect(sandbox.webhooks.eventsUrl).toBe(eventsUrl);
  });

  it('installs the app to a user and a guild, deauthorizes, grants an entitlement', async () => {
    const guildId = sandbox.state.guildIds[0]!;
    const userId = sandbox.state.memberIds(guildId).find((id) => id !== sandbox.applicationId)!;
    const installed = await cli('app', 'install', '--user', userId);
    expect(installed.code).toBe(0);
    expect(installed.io.lines[0]).toMatch(/^delivery \d+: event APPLICATION_AUTHORIZED to .*: delivered \[204\]$/);
    expect((await cli('app', 'install', '--guild', guildId)).code).toBe(0);
    expect((await cli('app', 'deauthorize', '--user', userId)).code).toBe(0);
    const again = await cli('app', 'deauthorize', '--user', userId);
    expect(again.code).toBe(1);
    expect(again.io.errors[0]).toMatch(/has not installed the app/);
    const entitled = await cli('app', 'entitle', '--sku', sandbox.state.skuIds[0]!, '--user', userId);
    expect(entitled.code).toBe(0);
    const deadline = Date.now() + 5_000;
    while (events.length < 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(events.map((e) => e.type)).toEqual(['APPLICATION_AUTHORIZED', 'APPLICATION_AUTHORIZED', 'APPLICATION_DEAUTHORIZED', 'ENTITLEMENT_CREATE']);
  });

  it('arms a fault; the endpoint refuses the forged attempt and takes the retry', async () => {
    expect((await cli('webhooks', 'fault', 'bad-signature')).code).toBe(0);
    const r = await cli('app', 'install', '--user', sandbox.state.memberIds(sandbox.state.guildIds[0]!)[2]!);
    // The first attempt is refused; the 1-second retry is after the CLI's wait only when the machine is slow.
    expect(r.io.lines[0]).toMatch(/\[401 \(bad-signature\)(, 204)?\]/);
    const deliveries = await cli('webhooks', 'deliveries');
    expect(deliveries.io.lines.length).toBe(sandbox.webhooks.deliveries().length);
  });

  it('explains usage errors', async () => {
    const r = await cli('app', 'entitle', '--sku', '1');
    expect(r.code).toBe(2);
    expect(r.io.errors[0]).toMatch(/entitle needs --sku ID and one of --user ID or --guild ID/);
  });
});
