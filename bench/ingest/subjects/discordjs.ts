/**
 * discord.js 14 as its guide sets a bot up: a Client with the GUILDS and GUILD_MEMBERS intents and its default
 * caches (members, users, roles, entitlements), logged in through its own REST and WebSocket stack against the
 * benchmark's service, listeners counting the same events as gatehouse's plugin, and the slash command
 * answered with interaction.reply(). zlib-stream is what discord.js asks for when zlib-sync is installed;
 * for plain JSON its sharding strategy is built with compression off.
 */
import { createRequire } from 'node:module';
import { Client, Events, GatewayIntentBits, type WebSocketOptions } from 'discord.js';
import { ingestCounters } from '../counters.js';
import type { ChildConfig, EventCounts, StateMessage, VerifyRequest } from '../protocol.js';
import { whenCounted, type IngestSubject } from './types.js';

interface ShardingStrategyModule {
  SimpleShardingStrategy: new (manager: unknown) => unknown;
}

export class DiscordJsSubject implements IngestSubject {
  private readonly client: Client;
  private readonly counters = ingestCounters();

  constructor(private readonly cfg: ChildConfig) {
    const ws: Partial<WebSocketOptions> = {};
    if (cfg.transport === 'json') {
      // discord.js's own @discordjs/ws (not the top-level one), as its WebSocketManager loads it.
      const requireFromDjs = createRequire(createRequire(import.meta.url).resolve('discord.js'));
      const { SimpleShardingStrategy } = requireFromDjs('@discordjs/ws') as ShardingStrategyModule;
      ws.buildStrategy = ((manager: { options: { compression: unknown } }) => {
        manager.options.compression = null;
        return new SimpleShardingStrategy(manager);
      }) as unknown as WebSocketOptions['buildStrategy'];
    } else if (cfg.transport !== 'zlib-stream') {
      throw new Error(`discord.js 14 does not speak ${cfg.transport}`);
    }
    this.client = new Client({
      intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMembers],
      rest: { api: cfg.apiBase },
      ws,
    });
    const c = this.counters;
    const client = this.client;
    client.on(Events.GuildMemberAdd, () => {
      c.memberAdds++;
      c.onCount();
    });
    client.on(Events.GuildMemberUpdate, () => {
      c.memberUpdates++;
      c.onCount();
    });
    client.on(Events.GuildMemberRemove, () => {
      c.memberRemoves++;
      c.onCount();
    });
    client.on(Events.EntitlementCreate, () => {
      c.entitlementCreates++;
      c.onCount();
    });
    client.on(Events.EntitlementUpdate, () => {
      c.entitlementUpdates++;
      c.onCount();
    });
    client.on(Events.InteractionCreate, async (interaction) => {
      if (!interaction.isChatInputCommand()) return;
      c.interactions++;
      try {
        await interaction.reply('pong');
        c.answered++;
      } catch (err) {
        c.answerErrors++;
        c.answerError ??= err instanceof Error ? `${err.name}: ${err.message}` : String(err);
      }
      c.onCount();
    });
  }

  async start(): Promise<void> {
    const ready = new Promise<void>((resolve) => this.client.once(Events.ClientReady, () => resolve()));
    await this.client.login(this.cfg.token);
    await ready;
    if (this.client.guilds.cache.size !== this.cfg.guilds) {
      throw new Error(`discord.js is ready with ${this.client.guilds.cache.size} guilds, expected ${this.cfg.guilds}`);
    }
  }

  async eventsDone(): Promise<EventCounts> {
    const c = this.counters;
    const t = this.cfg.targets;
    await whenCounted(
      (hook) => (c.onCount = hook),
      () =>
        c.memberAdds + c.memberUpdates + c.memberRemoves >= t.memberEvents &&
        c.entitlementCreates + c.entitlementUpdates >= t.entitlementEvents &&
        c.answered + c.answerErrors >= t.interactions,
    );
    return {
      memberAdds: c.memberAdds,
      memberUpdates: c.memberUpdates,
      memberRemoves: c.memberRemoves,
      entitlementCreates: c.entitlementCreates,
      entitlementUpdates: c.entitlementUpdates,
      interactions: c.interactions,
      answered: c.answered,
      ...(c.answerError !== null ? { answerError: c.answerError } : {}),
    };
  }

  async settle(): Promise<void> {}

  async members(): Promise<number> {
    let n = 0;
    for (const guild of this.client.guilds.cache.values()) n += guild.members.cache.size;
    return n;
  }

  async verify(request: VerifyRequest): Promise<Omit<StateMessage, 'type'>> {
    const guilds = this.client.guilds.cache;
    const membersPerGuild = request.guildIds.map((id) => guilds.get(id)?.members.cache.size ?? -1);
    const sample = request.sample.map(({ guildId, userId }) => {
      const guild = guilds.get(guildId);
      const m = guild?.members.cache.get(userId);
      if (guild === undefined || m === undefined) return null;
      const roles = m.roles.cache.filter((r) => r.id !== guildId).map((r) => r.id).sort();
      return { guildId, userId, nick: m.nickname, roles };
    });
    let removedPresent = 0;
    for (const { guildId, userId } of request.removed) if (guilds.get(guildId)?.members.cache.has(userId)) removedPresent++;
    const cache = this.client.application?.entitlements.cache;
    const entitlements = request.entitlementIds.map((id) => {
      const e = cache?.get(id);
      return e === undefined ? null : { id: e.id, userId: e.userId ?? '', skuId: e.skuId, endsAt: e.endsTimestamp };
    });
    return { membersPerGuild, sample, removedPresent, entitlements, extra: {} };
  }

  async stop(): Promise<void> {
    await this.client.destroy();
  }
}
