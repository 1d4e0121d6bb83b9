/**
 * Preconditions end to end through the test kit (the real runtime on a sandbox): several users, the cooldown's
 * time moved forward without waiting, where and who may run a handler, the plugin's own checks, translations, the
 * `preconditionDenied` event and the denial metric. A denied handler never runs; the answer is ephemeral.
 */
import { describe, expect, it } from 'vitest';
import { defineButton, defineCommand, defineModal, definePlugin, defineSubcommand, type PreconditionDenial } from '../../../src/index.js';
import { createMetrics } from '../../../src/runtime/metrics.js';
import { useTestBot } from '../../helpers/test-bot.js';

describe('preconditions', () => {
  const ran: string[] = [];
  const denials: PreconditionDenial[] = [];
  const plugin = definePlugin({
    name: 'gated',
    preconditions: { guildOnly: true },
    preconditionTexts: { fr: { cooldown: 'Trop vite ! Réessayez {retry}.' }, de: { guildOnly: 'Nur auf Servern.' } },
    on: { preconditionDenied: (d) => void denials.push(d) },
    commands: [
      defineCommand({
        name: 'daily',
        description: 'once per 10 s per user',
        preconditions: { cooldown: { windowMs: 10_000 } },
        async run(ctx) {
          ran.push(`daily ${ctx.user.username}`);
          await ctx.reply({ content: 'reward!', components: [{ type: 1, components: [{ type: 2, style: 1, label: 'again', custom_id: 'again' }] }] });
        },
      }),
      defineCommand({
        name: 'anywhere',
        description: 'lifts the plugin default',
        preconditions: { guildOnly: false },
        async run(ctx) {
          ran.push('anywhere');
          await ctx.reply('here');
        },
      }),
      defineCommand({
        name: 'dm',
        description: 'DMs only',
        preconditions: { guildOnly: false, dmOnly: true },
        async run(ctx) {
          ran.push('dm');
          await ctx.reply('in DM');
        },
      }),
      defineCommand({
        name: 'admin',
        description: 'owners and custom',
        options: [
          defineSubcommand({ type: 1, name: 'reload', description: 'owners only', preconditions: { owners: true }, async run(ctx) { ran.push('reload'); await ctx.reply('reloaded'); } }),
          defineSubcommand({
            type: 1,
            name: 'vote',
            description: 'custom rule',
            preconditions: { custom: (s) => (s.locale === 'es-ES' ? 'No votes in Spanish today.' : true) },
            async run(ctx) {
              ran.push('vote');
              await ctx.reply('voted');
            },
          }),
          defineSubcommand({ type: 1, name: 'lewd', description: 'nsfw', preconditions: { nsfw: true }, async run(ctx) { ran.push('lewd'); await ctx.reply('ok'); } }),
        ],
      }),
    ],
    components: [
      defineButton({
        customId: 'again',
        preconditions: { cooldown: { windowMs: 60_000, per: 'channel' } },
        async run(ctx) {
          ran.push(`again ${ctx.user.username}`);
          await ctx.reply({ content: 'clicked', ephemeral: true });
        },
      }),
    ],
    modals: [defineModal({ customId: 'm', preconditions: { owners: true }, async run(ctx) { await ctx.reply('submitted'); } })],
  });
  const bot = useTestBot({ plugins: [plugin] });

  it('a cooldown per user: one use per window each, the answer says when, time moves forward without waiting', async () => {
    const ada = await bot().join({ username: 'ada' });
    const ben = await bot().join({ username: 'ben' });
    ran.length = 0;
    expect((await bot().invoke('daily', { user: ada })).content).toBe('reward!');
    const before = bot().clock.now();
    const denied = await bot().invoke('daily', { user: ada });
    expect(denied.ephemeral).toBe(true);
    const retry = Number(/<t:(\d+):R>/.exec(denied.content ?? '')?.[1]);
    expect(denied.content).toMatch(/^You are doing that too often\. Try again <t:\d+:R>\.$/);
    expect(retry * 1000).toBeGreaterThanOrEqual(before + 9_000);
    expect(retry * 1000).toBeLessThanOrEqual(bot().clock.now() + 11_000);
    // Another user has a window of their own; French is answered in French.
    expect((await bot().invoke('daily', { user: ben })).content).toBe('reward!');
    expect((await bot().invoke('daily', { user: ben, locale: 'fr' })).content).toMatch(/^Trop vite ! Réessayez <t:\d+:R>\.$/);
    expect(ran).toEqual(['daily ada', 'daily ben']);
    bot().clock.advance(10_001);
    expect((await bot().invoke('daily', { user: ada })).content).toBe('reward!');
    expect(ran).toEqual(['daily ada', 'daily ben', 'daily ada']);
    const event = denials.find((d) => d.precondition === 'cooldown' && d.userId === ada.id);
    expect(event).toMatchObject({ target: '/daily', guildId: bot().guild.id, channelId: bot().guild.channelId });
    expect(Math.ceil(event!.retryAt! / 1000)).toBe(retry);
  });

  it('guildOnly as the plugin default, lifted or turned into dmOnly per command', async () => {
    ran.length = 0;
    const dm = await bot().invoke('daily', { guild: null });
    expect(dm.content).toBe('This works only in a server.');
    expect(dm.ephemeral).toBe(true);
    expect((await bot().invoke('daily', { guild: null, locale: 'de' })).content).toBe('Nur auf Servern.');
    expect((await bot().invoke('anywhere', { guild: null })).content).toBe('here');
    expect((await bot().invoke('anywhere')).content).toBe('here');
    expect((await bot().invoke('dm')).content).toBe('This works only in direct messages.');
    expect((await bot().invoke('dm', { guild: null })).content).toBe('in DM');
    expect(ran).toEqual(['anywhere', 'anywhere', 'dm']);
  });

  it('owners, nsfw and custom rules on subcommands', async () => {
    ran.length = 0;
    const cleo = await bot().join({ username: 'cleo' });
    const notOwner = await bot().invoke('admin reload', { user: cleo });
    expect(notOwner.content).toBe('Only the owners of this app can do that.');
    expect(notOwner.ephemeral).toBe(true);
    // The sandbox's application is owned by its first user, the first guild's owner.
    expect((await bot().invoke('admin reload')).content).toBe('reloaded');
    expect((await bot().invoke('admin lewd')).content).toBe('This works only in age-restricted channels.');
    expect((await bot().invoke('admin vote', { locale: 'es-ES' })).content).toBe('No votes in Spanish today.');
    expect((await bot().invoke('admin vote')).content).toBe('voted');
    expect(ran).toEqual(['reload', 'vote']);
    expect(denials.map((d) => `${d.precondition} ${d.target}`)).toEqual(expect.arrayContaining(['owners /admin reload', 'nsfw /admin lewd', 'custom /admin vote']));
  });

  it('a component has its own preconditions (a cooldown per channel shared by every user there)', async () => {
    ran.length = 0;
    const dora = await bot().join({ username: 'dora' });
    const reply = await bot().invoke('anywhere');
    const daily = await bot().invoke('daily', { user: dora });
    const first = await daily.click('again', { user: dora });
    expect(first.content).toBe('clicked');
    const second = await daily.click('again');
    expect(second.content).toMatch(/Try again <t:\d+:R>/);
    expect(second.ephemeral).toBe(true);
    expect(ran).toEqual(['anywhere', 'daily dora', 'again dora']);
    expect(reply.content).toBe('here');
  });

  it('denials are counted per precondition and command', async () => {
    const text = await createMetrics(bot().runtime, { processMetrics: false }).registry.getSingleMetricAsString('gatehouse_precondition_denials_total');
    expect(text).toContain('gatehouse_precondition_denials_total{precondition="cooldown",command="/daily"} 2');
    expect(text).toContain('gatehouse_precondition_denials_total{precondition="guildOnly",command="/daily"} 2');
    expect(text).toContain('gatehouse_precondition_denials_total{precondition="cooldown",command="component again"} 1');
  });
});
