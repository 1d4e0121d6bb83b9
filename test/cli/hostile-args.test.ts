/**
 * Command-line words are outside input too: a verb named like a prototype key is an unknown verb, and an
 * option typed as `__proto__:value` is sent as the option of that name.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { main, type CliIo } from '../../src/cli.js';
import { run } from '../../src/cli/sandbox.js';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { api, identified, type RawGatewayClient } from '../sandbox/helpers.js';

function collector(): CliIo & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return { lines, errors, out: (l) => lines.push(l), err: (l) => errors.push(l) };
}

const open: Array<Sandbox | RawGatewayClient> = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) {
    if ('terminate' in o) o.terminate();
    else await o.close();
  }
});

describe('verbs', () => {
  it('a verb or subcommand named like a prototype key is unknown (exit 2), not a crash', async () => {
    for (const word of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      const io = collector();
      expect(await main([word], io), word).toBe(2);
      expect(io.errors.join('\n')).toContain(`unknown verb '${word}'`);
      const sub = collector();
      expect(await main(['commands', word], sub), word).toBe(2);
      expect(sub.errors.join('\n')).toContain(`unknown subcommand '${word}'`);
    }
  });
});

describe('sandbox invoke', () => {
  it('sends an option typed as __proto__:value under that name', async () => {
    const sb = await createSandbox({ seed: { guilds: 1, membersPerGuild: 3 } });
    open.push(sb);
    const reg = await api(sb.restUrl, 'POST', `/applications/${sb.applicationId}/commands`, {
      token: sb.botToken,
      body: { name: 'keys', description: 'Keys', options: [{ type: 3, name: '__proto__', description: 'p' }, { type: 3, name: 'constructor', description: 'c' }] },
    });
    expect(reg.status).toBe(201);
    const { client } = await identified(sb.gatewayUrl, sb.botToken, { intents: 1 });
    open.push(client);
    const io = collector();
    await run(['invoke', 'keys', '__proto__:hello', 'constructor:world', '--url', sb.adminUrl, '--wait', '1'], io);
    const d = (await client.nextDispatch('INTERACTION_CREATE')).d as { data: { options: unknown } };
    expect(d.data.options).toEqual([
      { name: '__proto__', type: 3, value: 'hello' },
      { name: 'constructor', type: 3, value: 'world' },
    ]);
  });
});
