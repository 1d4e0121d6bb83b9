/**
 * One object per test file that starts bots and sandboxes and closes them all after each test (or after the
 * file), through the test framework's own hook: vitest, jest, mocha and node:test all have an `afterEach` that
 * takes a function returning a promise.
 */
import { startBot, type StartBotOptions, type TestBot } from './test-bot.js';
import { startSandbox, type StartSandboxOptions, type TestSandbox } from './test-sandbox.js';

/** A test framework's `afterEach` (or `afterAll`). */
export type CleanupHook = (fn: () => Promise<void>) => unknown;

export interface TestKit {
  /** startBot, closed by the hook. */
  startBot(options: StartBotOptions): Promise<TestBot>;
  /** startSandbox, closed by the hook. */
  startSandbox(options?: StartSandboxOptions): Promise<TestSandbox>;
  /** Close everything started since the last cleanup (the hook calls this). */
  closeAll(): Promise<void>;
}

/**
 * ```ts
 * import { afterEach } from 'vitest';
 * const kit = testKit(afterEach);
 * it('greets', async () => {
 *   const bot = await kit.startBot({ plugins: [hello] });
 *   expect((await bot.invoke('hello')).content).toBe('Hello!');
 * });
 * ```
 * Without a hook, call `closeAll()` yourself.
 */
export function testKit(cleanup?: CleanupHook): TestKit {
  const open = new Set<{ close(): Promise<void> }>();
  const track = async <T extends { close(): Promise<void> }>(started: Promise<T>): Promise<T> => {
    const value = await started;
    open.add(value);
    return value;
  };
  const kit: TestKit = {
    startBot: (options) => track(startBot(options)),
    startSandbox: (options) => track(startSandbox(options)),
    async closeAll() {
      const all = [...open];
      open.clear();
      const results = await Promise.allSettled(all.map((o) => o.close()));
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed !== undefined) throw failed.reason;
    },
  };
  cleanup?.(() => kit.closeAll());
  return kit;
}
