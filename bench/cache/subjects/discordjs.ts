/**
 * discord.js v14 fed through its own gateway packet path, without logging in: the body of
 * WebSocketManager#attachEvents' Dispatch listener (raw event, manager event, handlePacket, and the
 * shard's guild bookkeeping while it waits for guilds), with the intents that make it cache members.
 */
import { Client, GatewayIntentBits, Partials, Status, WebSocketShard } from 'discord.js';
import type { DispatchPacket } from '../workload.js';
import type { CacheSubject, SubjectCounts } from './types.js';

interface ShardInternals {
  status: number;
  onReadyPacket(packet: unknown): void;
  gotGuild(id: string): void;
}

interface ManagerInternals {
  status: number;
  shards: Map<number, unknown>;
  emit(event: string, ...args: unknown[]): boolean;
  handlePacket(packet: unknown, shard: unknown): boolean;
}

export class DiscordJsSubject implements CacheSubject {
  readonly name = 'discord.js 14';
  readonly inProcess = true;
  private client!: Client;
  private shard!: ShardInternals;
  private manager!: ManagerInternals;

  async setup(): Promise<void> {
    this.client = new Client({
      intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMembers],
      partials: [Partials.GuildMember, Partials.User],
    });
    this.manager = this.client.ws as unknown as ManagerInternals;
    const ShardCtor = WebSocketShard as unknown as new (manager: unknown, id: number) => ShardInternals;
    this.shard = new ShardCtor(this.manager, 0);
    this.manager.shards.set(0, this.shard);
    // The manager queues every packet until the client is ready; a logged-in client is ready by the
    // time members flow, so start there.
    this.manager.status = Status.Ready;
  }

  feed(packets: DispatchPacket[]): void {
    const client = this.client;
    const manager = this.manager;
    const shard = this.shard;
    for (let i = 0; i < packets.length; i++) {
      const data = packets[i]!;
      if (data.t === 'READY') shard.onReadyPacket(data.d);
      client.emit('raw', data, 0);
      manager.emit(data.t, data.d, 0);
      manager.handlePacket(data, shard);
      if (shard.status === Status.WaitingForGuilds && (data.t === 'GUILD_CREATE' || data.t === 'GUILD_DELETE')) {
        shard.gotGuild(data.d.id as string);
      }
    }
  }

  async counts(): Promise<SubjectCounts> {
    let members = 0;
    let roles = 0;
    for (const guild of this.client.guilds.cache.values()) {
      members += guild.members.cache.size;
      roles += guild.roles.cache.size;
    }
    return { guilds: this.client.guilds.cache.size, members, users: this.client.users.cache.size, roles };
  }

  async teardown(): Promise<void> {
    await this.client.destroy();
  }
}
