/**
 * Guild invites the bot made (discord-api-docs "Invite" resource), by code. An invite past its `max_age` is gone
 * (looked up lazily: it answers nothing, lists skip it). Bounded as the service bounds them: at most
 * MAX_INVITES_PER_GUILD live per guild (the routes refuse more), so nothing here grows with events.
 *
 * Kept beside the store (one table per store, made on first use), as state/webhooks.ts is.
 */
import { randomBytes } from 'node:crypto';
import type { GuildRecord } from './model.js';
import type { SandboxStore } from './store.js';
import { guildObject, isoTime, userObject } from './serialize.js';

export const MAX_INVITES_PER_GUILD = 1000;

export interface InviteRecord {
  code: string;
  guildId: string;
  channelId: string;
  inviterId: string;
  /** Seconds; 0 never expires. */
  maxAge: number;
  /** 0 unlimited. */
  maxUses: number;
  temporary: boolean;
  uses: number;
  /** Epoch ms. */
  createdAt: number;
}

const CODE_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export class InviteStore {
  private readonly byCode = new Map<string, InviteRecord>();

  constructor(private readonly store: SandboxStore) {}

  create(input: Omit<InviteRecord, 'code' | 'uses' | 'createdAt'>): InviteRecord {
    let code = '';
    // Ten characters from 62: a clash is astronomically rare, and is drawn again.
    do code = [...randomBytes(10)].map((b) => CODE_CHARS[b % CODE_CHARS.length]).join('');
    while (this.byCode.has(code));
    const record: InviteRecord = { ...input, code, uses: 0, createdAt: Date.now() };
    this.byCode.set(code, record);
    return record;
  }

  /** A live invite by code: one whose channel is gone, or that expired, is dropped. */
  get(code: string): InviteRecord | undefined {
    const inv = this.byCode.get(code);
    if (inv === undefined) return undefined;
    if (this.store.guildChannel(inv.channelId) === undefined || expired(inv)) {
      this.byCode.delete(code);
      return undefined;
    }
    return inv;
  }

  delete(code: string): void {
    this.byCode.delete(code);
  }

  list(filter: { channelId?: string; guildId?: string }): InviteRecord[] {
    const out: InviteRecord[] = [];
    for (const code of [...this.byCode.keys()]) {
      const inv = this.get(code);
      if (inv === undefined) continue;
      if (filter.channelId !== undefined && inv.channelId !== filter.channelId) continue;
      if (filter.guildId !== undefined && inv.guildId !== filter.guildId) continue;
      out.push(inv);
    }
    return out;
  }
}

function expired(inv: InviteRecord): boolean {
  return inv.maxAge > 0 && Date.now() >= inv.createdAt + inv.maxAge * 1000;
}

const tables = new WeakMap<SandboxStore, InviteStore>();

export function invitesOf(store: SandboxStore): InviteStore {
  let t = tables.get(store);
  if (t === undefined) tables.set(store, (t = new InviteStore(store)));
  return t;
}

/** The guild as an invite shows it (the description's invite guild: no roles, channels or members). */
function inviteGuild(g: GuildRecord): Record<string, unknown> {
  const full = guildObject(g);
  const out: Record<string, unknown> = {};
  for (const key of ['id', 'name', 'splash', 'banner', 'description', 'icon', 'features', 'verification_level', 'vanity_url_code', 'nsfw_level', 'nsfw', 'premium_subscription_count']) out[key] = full[key];
  return out;
}

export interface InviteView {
  /** uses, max_uses, max_age, temporary, created_at: for the bot's own lists and the created invite. */
  metadata: boolean;
  /** approximate_member_count / approximate_presence_count (GET /invites/{code}?with_counts=true). */
  counts: boolean;
}

/** An invite object as the service sends it. */
export function inviteObject(store: SandboxStore, inv: InviteRecord, view: InviteView): Record<string, unknown> {
  const { guild, channel } = store.guildChannel(inv.channelId)!;
  const inviter = store.user(inv.inviterId);
  const o: Record<string, unknown> = {
    type: 0,
    code: inv.code,
    ...(inviter !== undefined ? { inviter: userObject(inviter) } : {}),
    expires_at: inv.maxAge === 0 ? null : isoTime(inv.createdAt + inv.maxAge * 1000),
    flags: 0,
    guild: inviteGuild(guild),
    guild_id: guild.id,
    channel: { id: channel.id, type: channel.type, name: channel.name },
  };
  if (view.metadata) Object.assign(o, { uses: inv.uses, max_uses: inv.maxUses, max_age: inv.maxAge, temporary: inv.temporary, created_at: isoTime(inv.createdAt) });
  if (view.counts) Object.assign(o, { approximate_member_count: store.memberCount(guild), approximate_presence_count: 0 });
  return o;
}

/** `d` of INVITE_CREATE. */
export function inviteCreateEvent(store: SandboxStore, inv: InviteRecord): Record<string, unknown> {
  const inviter = store.user(inv.inviterId);
  return {
    channel_id: inv.channelId,
    code: inv.code,
    created_at: isoTime(inv.createdAt),
    guild_id: inv.guildId,
    ...(inviter !== undefined ? { inviter: userObject(inviter) } : {}),
    max_age: inv.maxAge,
    max_uses: inv.maxUses,
    temporary: inv.temporary,
    uses: inv.uses,
    expires_at: inv.maxAge === 0 ? null : isoTime(inv.createdAt + inv.maxAge * 1000),
  };
}
