/**
 * The kit's promise, checked against a model over random sequences: once an action settles, the bot has handled
 * it. After each step the bot's cache and its answers agree with what the test did (members joined, renamed or
 * gone; entitlements granted or ended), whatever came before. Bounded by step count; seeded, so a failure
 * reproduces with its seed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { definePlugin } from '../../src/index.js';
import { startBot, type TestBot, type TestMember } from '../../src/testing/index.js';

/** mulberry32: a small seeded PRNG. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const whoami = definePlugin({
  name: 'whoami',
  commands: [
    {
      name: 'whoami',
      description: 'What the bot knows of you',
      async run(ctx) {
        const member = ctx.guildId !== undefined ? await ctx.cache.getMember(ctx.guildId, ctx.user.id) : undefined;
        const entitlements = await ctx.cache.entitlementsOf({ userId: ctx.user.id });
        await ctx.reply(`${ctx.user.username} nick=${member?.nick ?? '-'} entitlements=${entitlements.filter((e) => e.endsAt === null || e.endsAt > Date.now()).length}`);
      },
    },
  ],
});

describe('settled actions against a model', () => {
  let bot: TestBot;
  beforeAll(async () => {
    bot = await startBot({ plugins: [whoami] });
  });
  afterAll(async () => {
    await bot?.close();
  });

  for (const seed of [1, 2, 3]) {
    it(`seed ${seed}: 30 random steps, the bot agrees after each`, async () => {
      const random = prng(seed);
      const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
      // The model: members the test made, their nick, their live entitlements.
      const members = new Map<string, { member: TestMember; nick: string | null; entitlements: Set<string> }>();
      let step = 0;
      for (; step < 30; step++) {
        const present = [...members.values()];
        const withEntitlement = present.filter((m) => m.entitlements.size > 0);
        const actions = ['join', ...(present.length > 0 ? ['leave', 'nick', 'grant', 'whoami'] : []), ...(withEntitlement.length > 0 ? ['end'] : [])];
        const action = pick(actions);
        const context = `seed ${seed}, step ${step} (${action})`;
        if (action === 'join') {
          const member = await bot.join({ username: `m${seed}s${step}` });
          members.set(member.id, { member, nick: null, entitlements: new Set() });
          expect((await bot.runtime.cache.getMember(bot.guild.id, member.id))?.userId, context).toBe(member.id);
        } else if (action === 'leave') {
          const m = pick(present);
          await bot.leave(m.member);
          members.delete(m.member.id);
          expect(await bot.runtime.cache.getMember(bot.guild.id, m.member.id), context).toBeUndefined();
        } else if (action === 'nick') {
          const m = pick(present);
          m.nick = random() < 0.3 ? null : `n${step}`;
          await bot.updateMember(m.member, { nick: m.nick });
          expect((await bot.runtime.cache.getMember(bot.guild.id, m.member.id))?.nick ?? null, context).toBe(m.nick);
        } else if (action === 'grant') {
          const m = pick(present);
          const e = await bot.grantEntitlement({ user: m.member, sku: bot.skuIds[1]!, subscription: true });
          m.entitlements.add(e.id);
          expect(await bot.runtime.cache.hasEntitlement({ userId: m.member.id, skuId: bot.skuIds[1]! }), context).toBe(true);
        } else if (action === 'end') {
          const m = pick(withEntitlement);
          const id = pick([...m.entitlements]);
          await bot.endEntitlement(id, { endsAt: new Date(Date.now() - 1_000) });
          m.entitlements.delete(id);
          expect(await bot.runtime.cache.hasEntitlement({ userId: m.member.id, skuId: bot.skuIds[1]! }), context).toBe(m.entitlements.size > 0);
        } else {
          const m = pick(present);
          const reply = await bot.invoke('whoami', { user: m.member });
          expect(reply.content, context).toBe(`${m.member.username} nick=${m.nick ?? '-'} entitlements=${m.entitlements.size}`);
        }
      }
      expect(step).toBe(30);
    });
  }
});
