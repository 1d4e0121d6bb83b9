/**
 * Reading what the bot answered, for what interactions.test.ts leaves out: the initial callback as the bot sent
 * it (`initial`, `callbacks`), embeds on the response as the sandbox stores it, and waiting on the reply for a
 * later change (`waitFor`), here an edit the handler makes after answering.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { definePlugin } from '../../src/index.js';
import { KitTimeoutError, startBot, type TestBot } from '../../src/testing/index.js';

let release = (): void => undefined;
const held = new Promise<void>((resolve) => (release = resolve));

const report = definePlugin({
  name: 'report',
  commands: [
    {
      name: 'report',
      description: 'Answers with an embed, then edits it when the test says so',
      async run(ctx) {
        await ctx.reply({ content: 'Report', embeds: [{ title: 'Status', description: 'all good', color: 0x2ecc71 }] });
        await held;
        await ctx.editReply({ content: 'Report (updated)' });
      },
    },
  ],
});

describe('reading an answer', () => {
  let bot: TestBot;

  beforeAll(async () => {
    bot = await startBot({ plugins: [report] });
  });
  afterAll(async () => {
    release();
    await bot?.close();
  });

  it('gives the initial callback as sent, its embeds, and waits on the reply for a later edit', async () => {
    const reply = await bot.invoke('report');
    expect(reply.callbacks).toHaveLength(1);
    expect(reply.initial).toMatchObject({ type: 4, data: { content: 'Report', embeds: [{ title: 'Status', description: 'all good' }] } });
    expect(reply.embeds).toHaveLength(1);
    expect(reply.embeds[0]).toMatchObject({ title: 'Status', description: 'all good', color: 0x2ecc71 });
    expect(reply.edits).toEqual([]);

    // Nothing changes while the handler waits: the wait fails, naming what it waited for.
    const early = await reply.waitFor((r) => r.edits.length > 0, 'the edit', { timeoutMs: 200 }).catch((e: unknown) => e);
    expect(early).toBeInstanceOf(KitTimeoutError);
    expect((early as Error).message).toMatch(/the edit \(.*interaction \d+\)/);

    release();
    const edited = await reply.waitFor((r) => r.content === 'Report (updated)', 'the edit');
    expect(edited).toBe(reply);
    expect(reply.edits.map((m) => m.content)).toEqual(['Report (updated)']);
    // The initial callback stays what was sent first.
    expect(reply.initial?.data?.content).toBe('Report');
  });
});
