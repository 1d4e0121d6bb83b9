/**
 * The test kit's fault helpers against a real bot: a forced 429 on a route's bucket (the bot waits it out and its
 * answer still arrives) and a gateway reconnect, by op 7 or by a resumable close (the bot resumes, is ready again,
 * and what happened meanwhile reaches it once).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { definePlugin } from '../../src/index.js';
import { startBot, type TestBot } from '../../src/testing/index.js';

const SHOP = 'test/testing/fixtures/shop.ts';

describe('fault helpers', () => {
  const joined: string[] = [];
  const recorder = definePlugin({ name: 'recorder', on: { guildMemberAdd: (m) => void joined.push(m.user.id) } });
  let bot: TestBot;

  beforeAll(async () => {
    bot = await startBot({ plugins: [SHOP, recorder] });
  });
  afterAll(async () => {
    await bot?.close();
  });

  it('a forced 429 on the interaction callback: the bot waits retry_after and answers', async () => {
    const answers: Array<{ path: string; status: number }> = [];
    const onResponse = (r: { path: string; status: number; bucket: string | null }): void => {
      if (r.bucket === 'interaction.callback') answers.push({ path: r.path, status: r.status });
    };
    bot.sandbox.restEvents.on('response', onResponse);
    try {
      const limit = bot.rateLimit({ bucket: 'interaction.callback', retryAfterMs: 150 });
      expect(limit.served).toBe(0);
      const reply = await bot.invoke('cart items add', { options: { item: 'apple' } });
      expect(reply.content).toBe('owner added 1 x apple');
      expect(limit.served).toBe(1);
      await limit.waitServed();
      expect(answers.map((a) => a.status)).toEqual([429, 204]);
      expect(answers[0]!.path).toBe(answers[1]!.path);
    } finally {
      bot.sandbox.restEvents.off('response', onResponse);
    }
  });

  it('forced 429s on channel posts: the post still lands', async () => {
    const limit = bot.rateLimit({ bucket: 'messages.create', retryAfterMs: 100, count: 2 });
    const channel = bot.guild.channelIds[1]!;
    await bot.invoke('announce', { options: { channel } });
    await limit.waitServed();
    expect(limit.served).toBe(2);
    await bot.waitForMessage((m) => m.message.content === 'Sale today!', { channel });
    const never = bot.rateLimit({ bucket: 'skus', retryAfterMs: 100 });
    const error = await never.waitServed({ timeoutMs: 200 }).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/waiting for 1 forced 429\(s\) on bucket skus to be served\n {2}served so far: 0/);
  });

  it('op 7: the bot resumes, is ready, and gets what happened meanwhile exactly once', async () => {
    const resumesBefore = bot.sandbox.counters.resumes;
    const identifiesBefore = bot.sandbox.counters.identifies;
    const reconnecting = bot.reconnect({ via: 'op7' });
    // A member joins while the bot reconnects: the dispatch is buffered and replayed on RESUME.
    const [back, eve] = await Promise.all([reconnecting, bot.join({ username: 'eve' })]);
    expect(back).toEqual({ resumed: true });
    expect(bot.sandbox.counters.resumes).toBe(resumesBefore + 1);
    expect(bot.sandbox.counters.identifies).toBe(identifiesBefore);
    expect(bot.runtime.readiness().ready).toBe(true);
    expect(joined.filter((id) => id === eve.id)).toEqual([eve.id]);
    expect((await bot.invoke('cart items add', { user: eve, options: { item: 'cherry' } })).content).toBe('eve added 1 x cherry');
  });

  it('a resumable close (4000): the bot resumes and answers', async () => {
    const back = await bot.reconnect({ via: 'close', code: 4000 });
    expect(back.resumed).toBe(true);
    expect(bot.runtime.readiness().ready).toBe(true);
    expect((await bot.invoke('cart items add', { options: { item: 'banana' } })).content).toBe('owner added 1 x banana');
  });

  it('a close the bot may not resume after (4009, session timed out): it identifies afresh', async () => {
    const back = await bot.reconnect({ via: 'close', code: 4009 });
    expect(back.resumed).toBe(false);
    expect(bot.runtime.readiness().ready).toBe(true);
    expect((await bot.invoke('cart items add', { options: { item: 'apricot' } })).content).toBe('owner added 1 x apricot');
  });
});
