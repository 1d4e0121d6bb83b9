/**
 * Typed plugin events for every gateway dispatch: the enum of discord-api-types walked name by name, payload
 * types checked against the package's, intents a listener needs checked at load (one line naming the intent,
 * privileged ones said so), misspelt names answered with "did you mean", and delivery through the Runtime after
 * the cache applied the event.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  GatewayDispatchEvents,
  type GatewayChannelCreateDispatchData,
  type GatewayMessageCreateDispatchData,
  type GatewayMessageReactionAddDispatchData,
  type GatewayPresenceUpdateDispatchData,
  type GatewayThreadListSyncDispatchData,
  type GatewayVoiceStateUpdateDispatchData,
  type GatewayGuildAuditLogEntryCreateDispatchData,
  type GatewaySubscriptionCreateDispatchData,
  type GatewayGuildSoundboardSoundsUpdateDispatchData,
} from 'discord-api-types/v10';
import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import { INTENT_BITS } from '../../src/api/intents.js';
import { DISPATCH_EVENT_NAMES, DISPATCH_OF_EVENT, EVENT_OF_DISPATCH, INTENTS_OF_EVENT } from '../../src/plugins/events.js';
import { PluginHost, type SharedServices } from '../../src/plugins/host.js';
import { PluginLoadError } from '../../src/plugins/loader.js';
import { checkPluginShape, PLUGIN_EVENTS } from '../../src/plugins/shape.js';
import type { PluginDefinition, PluginEventMap } from '../../src/plugins/types.js';
import { createLogger } from '../../src/runtime/logger.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import { got } from '../fixtures/plugins/world-events/listener.js';
import { newSandbox, ROOT, startBot } from './helpers.js';

describe('every GatewayDispatchEvents name is a typed plugin event', () => {
  const names = Object.values(GatewayDispatchEvents) as string[];

  it('walks the enum: each dispatch has its event, listed among the plugin events, with its intents known', () => {
    const missing = names.filter((t) => !EVENT_OF_DISPATCH.has(t));
    expect(missing).toEqual([]);
    for (const t of names) {
      const event = EVENT_OF_DISPATCH.get(t)!;
      expect(DISPATCH_OF_EVENT[event]).toBe(t);
      expect(PLUGIN_EVENTS).toContain(event);
      expect(Object.hasOwn(INTENTS_OF_EVENT, event)).toBe(true);
    }
    // No event of a dispatch the package does not know.
    expect(DISPATCH_EVENT_NAMES.length).toBe(names.length);
  });

  it("docs/plugins.md's plugin events table lists every one, with the intents it needs", () => {
    const readme = readFileSync(join(ROOT, 'docs', 'plugins.md'), 'utf8');
    const at = readme.indexOf('\n## Plugin events');
    expect(at).toBeGreaterThan(0);
    const end = readme.indexOf('\n## ', at + 1);
    const section = readme.slice(at, end === -1 ? undefined : end);
    for (const event of DISPATCH_EVENT_NAMES) expect(section, event).toContain(`\`${event}\``);
  });

  it('payloads are the package types of their dispatch', () => {
    expectTypeOf<PluginEventMap['channelCreate']>().toEqualTypeOf<GatewayChannelCreateDispatchData>();
    expectTypeOf<PluginEventMap['messageCreate']>().toEqualTypeOf<GatewayMessageCreateDispatchData>();
    expectTypeOf<PluginEventMap['messageReactionAdd']>().toEqualTypeOf<GatewayMessageReactionAddDispatchData>();
    expectTypeOf<PluginEventMap['threadListSync']>().toEqualTypeOf<GatewayThreadListSyncDispatchData>();
    expectTypeOf<PluginEventMap['voiceStateUpdate']>().toEqualTypeOf<GatewayVoiceStateUpdateDispatchData>();
    expectTypeOf<PluginEventMap['presenceUpdate']>().toEqualTypeOf<GatewayPresenceUpdateDispatchData>();
    expectTypeOf<PluginEventMap['guildAuditLogEntryCreate']>().toEqualTypeOf<GatewayGuildAuditLogEntryCreateDispatchData>();
    expectTypeOf<PluginEventMap['subscriptionCreate']>().toEqualTypeOf<GatewaySubscriptionCreateDispatchData>();
    expectTypeOf<PluginEventMap['guildSoundboardSoundsUpdate']>().toEqualTypeOf<GatewayGuildSoundboardSoundsUpdateDispatchData>();
    expectTypeOf<PluginEventMap['ready']['shardId']>().toEqualTypeOf<number>();
    expectTypeOf<PluginEventMap['resumed']>().toEqualTypeOf<{ shardId: number }>();
  });
});

const services = { applicationId: '1', cache: {}, rest: {}, requestMembers: async () => ({}) } as unknown as SharedServices;

function loadError(plugin: PluginDefinition, intents: number): string | null {
  const host = new PluginHost({ log: createLogger({ level: 'silent', pretty: false }), services, intents });
  try {
    host.add(plugin, { file: `/plugins/${plugin.name}.ts`, label: `plugins/${plugin.name}.ts` });
    return null;
  } catch (err) {
    expect(err).toBeInstanceOf(PluginLoadError);
    return (err as Error).message;
  }
}

describe('a listener whose intent is not configured keeps its plugin from loading', () => {
  const { GUILDS, GUILD_MEMBERS, GUILD_MESSAGES, DIRECT_MESSAGES, GUILD_PRESENCES } = INTENT_BITS;

  it('one line naming the intent', () => {
    expect(loadError({ name: 'bans', on: { guildBanAdd: () => {} } }, GUILDS)).toBe(
      'plugins/bans.ts: on.guildBanAdd: needs the GUILD_MODERATION intent, which is not configured (add it to `intents` in the configuration, or GATEHOUSE_INTENTS)',
    );
  });

  it('a privileged intent is named as such', () => {
    expect(loadError({ name: 'presence', on: { presenceUpdate: () => {} } }, GUILDS | GUILD_MEMBERS)).toBe(
      'plugins/presence.ts: on.presenceUpdate: needs the privileged GUILD_PRESENCES intent, which is not configured (add it to `intents` in the configuration, or GATEHOUSE_INTENTS, and enable it for the application in the Developer Portal)',
    );
    expect(loadError({ name: 'members', on: { guildMemberAdd: () => {} } }, GUILDS)).toMatch(/on\.guildMemberAdd: needs the privileged GUILD_MEMBERS intent/);
  });

  it('either of two intents will do (guild or direct messages)', () => {
    expect(loadError({ name: 'messages', on: { messageCreate: () => {} } }, GUILDS)).toMatch(/needs the GUILD_MESSAGES or DIRECT_MESSAGES intent \(either\)/);
    expect(loadError({ name: 'dms', on: { messageCreate: () => {} } }, DIRECT_MESSAGES)).toBeNull();
    expect(loadError({ name: 'guild', on: { messageCreate: () => {} } }, GUILD_MESSAGES)).toBeNull();
  });

  it('events every session gets need none; configured intents load', () => {
    expect(loadError({ name: 'always', on: { ready: () => {}, interactionCreate: () => {}, entitlementCreate: () => {}, commandPermissionsUpdate: () => {}, raw: () => {} } }, 0)).toBeNull();
    expect(loadError({ name: 'ok', on: { presenceUpdate: () => {} } }, GUILD_PRESENCES)).toBeNull();
  });
});

describe('a misspelt event name gets "did you mean"', () => {
  const problem = (on: Record<string, unknown>): string | undefined => checkPluginShape({ name: 'p', on }).find((p) => p.path.startsWith('on.'))?.message;

  it('a slip of the camelCase name', () => {
    expect(problem({ guildMemberAd: () => {} })).toBe('unknown event; did you mean "guildMemberAdd"?');
    expect(problem({ messageReactonAdd: () => {} })).toBe('unknown event; did you mean "messageReactionAdd"?');
    expect(problem({ threadlistsync: () => {} })).toBe('unknown event; did you mean "threadListSync"?');
  });

  it('the dispatch name as the gateway spells it', () => {
    expect(problem({ MESSAGE_CREATE: () => {} })).toBe('unknown event; did you mean "messageCreate"?');
    expect(problem({ APPLICATION_COMMAND_PERMISSIONS_UPDATE: () => {} })).toBe('unknown event; did you mean "commandPermissionsUpdate"?');
  });

  it('nothing close: where the names are', () => {
    expect(problem({ somethingElse: () => {} })).toMatch(/^unknown event \(plugin events are the gateway dispatches in camelCase/);
  });
});

describe('through the Runtime: typed events after the cache applied them', () => {
  const cleanup: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c().catch(() => {});
  });

  async function until(check: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; got ${JSON.stringify(got)}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  async function bot(intents: string[]): Promise<{ sandbox: Sandbox; runtime: Runtime }> {
    const sandbox = await newSandbox();
    cleanup.push(() => sandbox.close());
    const { runtime } = await startBot(sandbox, ['test/fixtures/plugins/world-events'], { overrides: { intents } });
    cleanup.push(() => runtime.stop({ graceMs: 200 }));
    got.length = 0;
    return { sandbox, runtime };
  }

  it('channel, thread, message, typing, reaction, poll and ban events reach their typed listeners', async () => {
    const all = ['GUILDS', 'GUILD_MEMBERS', 'GUILD_MESSAGES', 'GUILD_MESSAGE_TYPING', 'GUILD_MESSAGE_REACTIONS', 'GUILD_MESSAGE_POLLS', 'GUILD_MODERATION'];
    const { sandbox, runtime } = await bot(all);
    expect(runtime.plugins.loadFailures).toEqual([]);
    const guildId = sandbox.state.guildIds[0]!;
    const userId = sandbox.state.memberIds(guildId)[0]!;
    const channelId = '990000000000000001';
    const threadId = '990000000000000002';
    sandbox.faults.dispatch(0, 'CHANNEL_CREATE', { id: channelId, type: 0, guild_id: guildId, name: 'fresh', position: 9, permission_overwrites: [] });
    sandbox.faults.dispatch(0, 'THREAD_CREATE', {
      id: threadId,
      type: 11,
      guild_id: guildId,
      parent_id: channelId,
      name: 't',
      owner_id: userId,
      thread_metadata: { archived: false, locked: false, auto_archive_duration: 60, archive_timestamp: '2024-01-01T00:00:00Z' },
    });
    sandbox.faults.dispatch(0, 'THREAD_LIST_SYNC', { guild_id: guildId, channel_ids: [channelId], threads: [], members: [] });
    sandbox.faults.dispatch(0, 'MESSAGE_CREATE', { id: '990000000000000010', channel_id: channelId, guild_id: guildId, content: 'hello', author: { id: userId, username: 'u' } });
    sandbox.faults.dispatch(0, 'TYPING_START', { channel_id: channelId, guild_id: guildId, user_id: userId, timestamp: 1 });
    sandbox.faults.dispatch(0, 'MESSAGE_REACTION_ADD', { user_id: userId, channel_id: channelId, message_id: '990000000000000010', guild_id: guildId, emoji: { id: null, name: '👍' }, type: 0 });
    sandbox.faults.dispatch(0, 'MESSAGE_POLL_VOTE_ADD', { user_id: userId, channel_id: channelId, message_id: '990000000000000010', guild_id: guildId, answer_id: 2 });
    sandbox.faults.dispatch(0, 'GUILD_BAN_ADD', { guild_id: guildId, user: { id: userId, username: 'u' } });
    sandbox.faults.dispatch(0, 'CHANNEL_DELETE', { id: channelId, type: 0, guild_id: guildId, name: 'fresh', position: 9, permission_overwrites: [] });
    await until(() => got.some((g) => g.startsWith('channelDelete')), 'the channel delete');
    // Handlers that await finish in their own order; what each saw is fixed when it is called: the memory cache
    // answers a read from the state at the call.
    expect([...got].sort()).toEqual([
      // The cache had it when the handler ran (delivered after the cache applied the event).
      `channelCreate ${channelId} cached=fresh`,
      `threadCreate ${threadId} parent=${channelId} archived=false`,
      `threadListSync ${guildId} 0`,
      'messageCreate 990000000000000010 hello',
      `typingStart ${userId}`,
      'messageReactionAdd 👍',
      'messagePollVoteAdd 2',
      `guildBanAdd ${userId}`,
      `channelDelete ${channelId} cached=gone`,
    ].sort());
  });

  it('a plugin listening to an event the configured intents do not bring does not load; the message names the intent', async () => {
    const { runtime } = await bot(['GUILDS', 'GUILD_MEMBERS']);
    const failures = runtime.plugins.loadFailures.map((f) => f.error.message);
    expect(failures).toHaveLength(1);
    expect(failures[0]).toContain('on.messageCreate: needs the GUILD_MESSAGES or DIRECT_MESSAGES intent (either), which is not configured');
    // One line per missing intent, no more.
    expect(failures[0]!.split('\n').filter((l) => l.includes('needs the')).length).toBe(5);
  });
});
