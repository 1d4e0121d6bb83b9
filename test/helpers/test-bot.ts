/** A bot of the test kit shared by the tests of a describe block. */
import { afterAll, beforeAll } from 'vitest';
import { startBot, type StartBotOptions, type TestBot } from '../../src/testing/index.js';

/**
 * Starts a bot of the test kit (on a sandbox of its own) in beforeAll, then `setUp` (the scene the tests share)
 * with it; closes it in afterAll. Returns the bot, for the tests to call.
 */
export function useTestBot(options: StartBotOptions, setUp?: (bot: TestBot) => Promise<void> | void): () => TestBot {
  let bot: TestBot | undefined;
  beforeAll(async () => {
    bot = await startBot(options);
    await setUp?.(bot);
  });
  afterAll(async () => {
    await bot?.close();
  });
  return () => {
    if (bot === undefined) throw new Error('the test bot has not started (it starts in beforeAll)');
    return bot;
  };
}
