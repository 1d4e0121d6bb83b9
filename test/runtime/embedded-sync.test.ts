/**
 * The embedded sandbox (no token) registers the commands of the plugins that load and validate, and says
 * loudly which were skipped and why; one broken plugin no longer leaves it with no command at all.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/index.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import { newSandbox, settled, startBot, type LogSink } from '../plugins/helpers.js';

let sandbox: Sandbox;
let runtime: Runtime;
let logs: LogSink;

beforeAll(async () => {
  sandbox = await newSandbox();
  ({ runtime, logs } = await startBot(sandbox, ['test/fixtures/plugins/mixed']));
});
afterAll(async () => {
  await runtime?.stop({ graceMs: 1_000 });
  await sandbox?.close();
});

describe('embedded sandbox sync', () => {
  it('registers what loads and validates, and skips the rest with the file and the field', async () => {
    const result = runtime.commandSync;
    expect(result?.status).toBe('synced');
    if (result?.status !== 'synced') return;
    expect(sandbox.state.commands().map((c) => c.name).filter((n) => n !== 'Launch')).toEqual(['hello']);
    expect(result.skipped).toEqual([
      { plugin: null, file: 'test/fixtures/plugins/mixed/b-broken.js', reasons: [expect.stringMatching(/comands: unknown key; did you mean "commands"\?/)] },
      { plugin: 'invalid', file: 'test/fixtures/plugins/mixed/c-invalid.ts', reasons: [expect.stringMatching(/^commands\[0\]\.name: /)] },
    ]);
    const loud = logs.messages(50).filter((m) => m.startsWith('SKIPPED'));
    expect(loud).toEqual([
      expect.stringMatching(/^SKIPPED test\/fixtures\/plugins\/mixed\/b-broken\.js: its commands are not registered: /),
      expect.stringMatching(/^SKIPPED plugin "invalid" \(test\/fixtures\/plugins\/mixed\/c-invalid\.ts\): its commands are not registered: commands\[0\]\.name: /),
    ]);
    const hello = await sandbox.invoke({ name: 'hello', guildId: sandbox.state.guildIds[0]! });
    await settled(hello);
    expect(hello.callbacks[0]?.data?.content).toBe('hello');
  });
});
