/**
 * Incoming webhooks the bot made (discord-api-docs "Webhook" resource, type 1 INCOMING): one record per webhook,
 * by id, with the secret token that executes it. Bounded as the service bounds them: at most 15 per channel and
 * 1,000 per guild (the routes refuse more), so nothing here grows with events.
 *
 * Kept beside the store rather than in it (one table per store, made on first use) so the store's own shape does
 * not change for a feature only the webhook routes use.
 */
import { randomBytes } from 'node:crypto';
import { registerSecret } from '../../util/redact.js';
import type { SandboxStore } from './store.js';
import { userObject } from './serialize.js';

export const MAX_WEBHOOKS_PER_CHANNEL = 15;
export const MAX_WEBHOOKS_PER_GUILD = 1000;

export interface WebhookRecord {
  id: string;
  token: string;
  guildId: string;
  channelId: string;
  name: string;
  /** Avatar hash (made from the image data), or null. */
  avatar: string | null;
  /** Who made it: the bot's user id (only the bot makes webhooks in the sandbox). */
  creatorId: string;
}

export class WebhookStore {
  private readonly byId = new Map<string, WebhookRecord>();

  constructor(private readonly store: SandboxStore) {}

  create(input: Omit<WebhookRecord, 'id' | 'token'>): WebhookRecord {
    // 68 characters of base64url, the length of the service's webhook tokens.
    const token = randomBytes(51).toString('base64url');
    registerSecret(token, { transient: true });
    const record: WebhookRecord = { ...input, id: this.store.ids.next(), token };
    this.byId.set(record.id, record);
    return record;
  }

  /** A webhook by id; one whose channel is gone went with it (deleting a channel deletes its webhooks). */
  get(id: string): WebhookRecord | undefined {
    const w = this.byId.get(id);
    if (w === undefined) return undefined;
    if (this.store.guildChannel(w.channelId) === undefined) {
      this.byId.delete(id);
      return undefined;
    }
    return w;
  }

  delete(id: string): void {
    this.byId.delete(id);
  }

  /** Webhooks of a channel or of a guild, oldest first. */
  list(filter: { channelId?: string; guildId?: string }): WebhookRecord[] {
    const out: WebhookRecord[] = [];
    for (const id of [...this.byId.keys()]) {
      const w = this.get(id);
      if (w === undefined) continue;
      if (filter.channelId !== undefined && w.channelId !== filter.channelId) continue;
      if (filter.guildId !== undefined && w.guildId !== filter.guildId) continue;
      out.push(w);
    }
    return out;
  }
}

const tables = new WeakMap<SandboxStore, WebhookStore>();

/** The webhook table of a sandbox's store. */
export function webhooksOf(store: SandboxStore): WebhookStore {
  let t = tables.get(store);
  if (t === undefined) tables.set(store, (t = new WebhookStore(store)));
  return t;
}

/**
 * A webhook object as the service sends it. `withUser`: the creator, sent to bot-token requests only (the
 * token variants answer without `user`). `url` points at this sandbox's REST base, where the webhook executes.
 */
export function webhookObject(store: SandboxStore, w: WebhookRecord, restBase: string, withUser: boolean): Record<string, unknown> {
  const o: Record<string, unknown> = {
    application_id: store.applicationId,
    avatar: w.avatar,
    channel_id: w.channelId,
    guild_id: w.guildId,
    id: w.id,
    name: w.name,
    type: 1,
  };
  if (withUser) {
    const user = store.user(w.creatorId);
    if (user !== undefined) o.user = userObject(user);
  }
  o.token = w.token;
  o.url = `${restBase}/webhooks/${w.id}/${w.token}`;
  return o;
}

/** The author of a message a webhook posts: a bot-flagged user named as the message (or the webhook) says. */
export function webhookAuthor(w: WebhookRecord, username: string | undefined, avatar: string | null): Record<string, unknown> {
  return {
    id: w.id,
    username: username ?? w.name,
    avatar,
    discriminator: '0000',
    public_flags: 0,
    flags: 0,
    bot: true,
    global_name: null,
    avatar_decoration_data: null,
    collectibles: null,
    primary_guild: null,
  };
}
