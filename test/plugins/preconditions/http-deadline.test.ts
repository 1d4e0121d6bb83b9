/**
 * Issue 31 acceptance: a denial over the HTTP interactions transport is answered within the 3-second deadline
 * like any other answer: inline, as the response to the signed POST (the sandbox's delivery times out at 3 s).
 * A precondition slower than the deadline guard is deferred in time, and its denial then replaces the public
 * "thinking" message with an ephemeral one.
 */
import { describe, expect, it } from 'vitest';
import { defineCommand, definePlugin } from '../../../src/index.js';
import { useTestBot } from '../../helpers/test-bot.js';

describe('a denial over the HTTP transport', () => {
  const ran: string[] = [];
  const plugin = definePlugin({
    name: 'http-gated',
    commands: [
      defineCommand({
        name: 'daily',
        description: 'once per minute',
        preconditions: { cooldown: { windowMs: 60_000 } },
        async run(ctx) {
          ran.push('daily');
          await ctx.reply('reward');
        },
      }),
      defineCommand({
        name: 'slowcheck',
        description: 'a custom rule that takes a while, then denies',
        preconditions: {
          custom: async () => {
            await new Promise((resolve) => setTimeout(resolve, 1_500));
            return 'Not today.';
          },
        },
        async run(ctx) {
          ran.push('slowcheck');
          await ctx.reply('ran');
        },
      }),
    ],
  });
  // The guard defers after 500 ms: three times shorter than the slow rule, six times shorter than the deadline.
  const bot = useTestBot({ plugins: [plugin], config: { transport: 'http', endpoint: { port: 0 } }, deferAfterMs: 500 });

  it('is the inline answer to the signed request', async () => {
    expect((await bot().invoke('daily')).content).toBe('reward');
    const denied = await bot().invoke('daily');
    expect(denied.type).toBe(4);
    expect(denied.ephemeral).toBe(true);
    expect(denied.content).toMatch(/Try again <t:\d+:R>/);
    const delivery = bot().sandbox.webhooks.deliveryOf(denied.record.id)!;
    expect(delivery.answer).toEqual({ kind: 'inline', status: 200 });
    expect(delivery.state).toBe('delivered');
    expect(delivery.attempts).toHaveLength(1);
    expect(ran).toEqual(['daily']);
  });

  it('a slow precondition is deferred in time, then answered ephemerally', async () => {
    const reply = await bot().invoke('slowcheck');
    const delivery = bot().sandbox.webhooks.deliveryOf(reply.record.id)!;
    expect(delivery.answer).toEqual({ kind: 'inline', status: 200 });
    expect(reply.initial?.type).toBe(5);
    await reply.waitFor(() => reply.followups.some((f) => f.content === 'Not today.'), 'the ephemeral denial');
    const denial = reply.followups.find((f) => f.content === 'Not today.')!;
    expect((denial.flags ?? 0) & 64).toBe(64);
    expect(ran).toEqual(['daily']);
  });
});
