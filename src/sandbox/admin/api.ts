/**
 * The admin HTTP API under /_sandbox (loopback only, no auth): the programmatic API over JSON, for the CLI
 * (`gatehouse sandbox invoke`) and for tools in other languages. Errors: `{ "error": CODE, "message": ... }`.
 *
 *   GET    /_sandbox                                   info (URLs, application id, bot token)
 *   GET    /_sandbox/counters                          counters
 *   GET    /_sandbox/guilds                            [{ id, name, member_count }]
 *   GET    /_sandbox/guilds/:guild/members             user ids
 *   POST   /_sandbox/guilds/:guild/members             { id?, username?, roles?, nick? } -> { id }   (GUILD_MEMBER_ADD)
 *   PATCH  /_sandbox/guilds/:guild/members/:user       { nick?, roles? }                             (GUILD_MEMBER_UPDATE)
 *   DELETE /_sandbox/guilds/:guild/members/:user                                                     (GUILD_MEMBER_REMOVE)
 *   GET    /_sandbox/skus                              SKU objects
 *   POST   /_sandbox/entitlements                      { skuId, userId? | guildId?, subscription? } -> { id }
 *   POST   /_sandbox/entitlements/:id/end              { endsAt? }                                   (ENTITLEMENT_UPDATE)
 *   GET    /_sandbox/commands[?guild_id=]              registered commands of a scope
 *   GET    /_sandbox/messages[?channel_id=&guild_id=]  messages the bot sent (deleted ones too), oldest first
 *   POST   /_sandbox/invoke                            InvokeOptions + { wait?, settle? } -> interaction record
 *   POST   /_sandbox/autocomplete                      AutocompleteOptions + { wait?, settle? }
 *   POST   /_sandbox/component                         { messageId?, customId, values?, userId?, wait?, settle? }
 *                                                      (no messageId: the newest message with that component)
 *   POST   /_sandbox/modal                             { interactionId?, customId?, values: { custom_id: value }, wait?, settle? }
 *                                                      (no interactionId: the newest interaction answered with a modal)
 *   GET    /_sandbox/requests[?after=SEQ]              { last, requests }: REST requests answered (tokens left out)
 *   GET    /_sandbox/interactions/:id                  interaction record
 *   POST   /_sandbox/faults/:shard                     { fault: stop-heartbeat-acks | reconnect | invalidate-session | close | corrupt-frame, resumable?, code? }
 *                                                      { fault: dispatch, t, d }  (a raw dispatch, malformed ones included)
 *   POST   /_sandbox/rest/faults                       { bucket, retryAfterMs, scope?: user | shared | global, count? }: forced 429s
 *   PUT    /_sandbox/gateway/recommended-shards        { count | null } -> { shards }: what GET /gateway/bot recommends
 *   POST   /_sandbox/oauth2/tokens                     { scopes, userId? } -> { access_token }
 *   POST   /_sandbox/oauth2/codes                      { scopes, userId?, redirectUri? } -> { code }
 *   ...    /_sandbox/webhooks/*, /_sandbox/app/*       outgoing webhooks (see ../delivery/admin.ts)
 *   ...    /_sandbox/channels/*, guild channels, roles  channels, threads, overwrites, roles (see ./channels.ts)
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AutocompleteOptions, InvokeOptions, SandboxFaults } from '../contract.js';
import type { SandboxCore } from '../core.js';
import { SandboxError, type SandboxErrorCode } from '../errors.js';
import { findComponentMessage, findModalInteraction } from '../interactions/followon.js';
import { sendComponent, sendInteraction, sendModalSubmit, settle } from '../interactions/send.js';
import type { SandboxInteraction } from '../interactions/store.js';
import { readRaw, refuseRestOfBody } from '../rest/body.js';
import type { AdminHandler } from '../server.js';
import { messageSnapshot } from '../state/messages.js';
import { skuObject } from '../state/serialize.js';
import { registerSecret } from '../../util/redact.js';
import { webhookAdmin } from '../delivery/admin.js';
import { ChannelVerbs } from '../state/channel-verbs.js';
import { channelAdmin } from './channels.js';
import { bad, obj, optNumber, optString, optStrings, type Json } from './fields.js';


const STATUS: Record<SandboxErrorCode, number> = {
  INVALID: 400,
  INVALID_OPTION: 400,
  CONFLICT: 409,
  FORBIDDEN: 403,
  NO_SHARD: 409,
  UNKNOWN_GUILD: 404,
  UNKNOWN_MEMBER: 404,
  UNKNOWN_USER: 404,
  UNKNOWN_ROLE: 404,
  UNKNOWN_CHANNEL: 404,
  UNKNOWN_SKU: 404,
  UNKNOWN_ENTITLEMENT: 404,
  UNKNOWN_COMMAND: 404,
  UNKNOWN_INTERACTION: 404,
  PAYLOAD_TOO_LARGE: 413,
};

/** Control requests are small JSON documents; an invocation with every option set is a few KiB. */
export const MAX_ADMIN_BODY_BYTES = 1024 * 1024;

class HttpResult {
  constructor(
    readonly status: number,
    readonly body?: unknown,
  ) {}
}

export function recordView(r: SandboxInteraction): Json {
  return { id: r.id, type: r.type, payload: r.payload, callbacks: r.callbacks, original: r.original, followups: r.followups };
}

function invokeOptions(o: Json): InvokeOptions {
  const name = optString(o, 'name');
  if (!name) throw bad('name is required');
  const out: InvokeOptions = { name };
  const type = optNumber(o, 'type');
  if (type !== undefined) {
    if (type !== 1 && type !== 2 && type !== 3 && type !== 4) throw bad('type must be 1, 2, 3 or 4');
    out.type = type;
  }
  for (const key of ['guildId', 'userId', 'targetId', 'locale', 'channelId'] as const) {
    const v = optString(o, key);
    if (v !== undefined) out[key] = v;
  }
  const sub = optStrings(o, 'subcommand');
  if (sub) out.subcommand = sub;
  if (o.options !== undefined) {
    const opts = obj(o.options);
    for (const [k, v] of Object.entries(opts)) {
      if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') throw bad(`options.${k} must be a string, number or boolean`);
    }
    out.options = opts as Record<string, string | number | boolean>;
  }
  const integration = optString(o, 'integration');
  if (integration !== undefined) {
    if (integration !== 'guild' && integration !== 'user') throw bad("integration must be 'guild' or 'user'");
    out.integration = integration;
  }
  const size = optNumber(o, 'attachmentSize');
  if (size !== undefined) out.attachmentSize = size;
  return out;
}

/** One admin request, parsed once for the groups of verbs. */
interface AdminRequest {
  readonly method: string;
  readonly url: URL;
  readonly body: unknown;
  /** Path segments after the admin prefix. */
  readonly parts: readonly string[];
  /** This method, with this many segments. */
  readonly is: (method: string, segments: number) => boolean;
}

export class AdminApi implements AdminHandler {
  private readonly channelVerbs: ChannelVerbs;

  constructor(private readonly core: SandboxCore) {
    this.channelVerbs = new ChannelVerbs(core.store);
  }

  async handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    let result: HttpResult;
    try {
      const raw = await readRaw(
        req,
        MAX_ADMIN_BODY_BYTES,
        () => new SandboxError('PAYLOAD_TOO_LARGE', `the request body is larger than ${MAX_ADMIN_BODY_BYTES} bytes (1 MiB), the limit of the admin API`),
      );
      let body: unknown = undefined;
      if (raw.length > 0) {
        try {
          body = JSON.parse(raw.toString('utf8')) as unknown;
        } catch {
          throw bad('the body is not valid JSON');
        }
      }
      result = await this.route((req.method ?? 'GET').toUpperCase(), url, body);
    } catch (err) {
      if (err instanceof SandboxError) result = new HttpResult(STATUS[err.code], { error: err.code, message: err.message });
      else {
        this.core.logger.error({ err }, 'sandbox admin request failed');
        result = new HttpResult(500, { error: 'INTERNAL', message: err instanceof Error ? err.message : String(err) });
      }
    }
    const headers: Record<string, string> = {};
    refuseRestOfBody(req, headers);
    if (result.body === undefined) {
      res.writeHead(result.status, headers);
      res.end();
      return;
    }
    const json = JSON.stringify(result.body);
    res.writeHead(result.status, { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(json)) });
    res.end(json);
  }

  private directoryVerbs(req: AdminRequest): HttpResult | null {
    const { body, parts, is } = req;
    const [a, b, c, d] = parts;
    const core = this.core;
    const store = core.store;
    if (is('GET', 0)) {
      return new HttpResult(200, {
        restUrl: core.urls.rest,
        gatewayUrl: core.urls.gateway,
        adminUrl: core.urls.admin,
        applicationId: store.applicationId,
        clientId: store.applicationId,
        botToken: core.botToken,
        guilds: store.guilds.length,
      });
    }
    if (a === 'counters' && is('GET', 1)) return new HttpResult(200, core.counters);
    if (a === 'guilds') {
      if (is('GET', 1)) return new HttpResult(200, store.guilds.map((g) => ({ id: g.id, name: g.name, member_count: store.memberCount(g) })));
      const guild = store.guild(b ?? '');
      if (!guild) throw new SandboxError('UNKNOWN_GUILD', `unknown guild ${b ?? ''}`);
      if (c === 'members') {
        if (is('GET', 3)) return new HttpResult(200, [...store.members(guild).keys()]);
        if (is('POST', 3)) {
          const o = body === undefined ? {} : obj(body);
          const input: { id?: string; username?: string; roles?: string[]; nick?: string } = {};
          const id = optString(o, 'id');
          const username = optString(o, 'username');
          const nick = optString(o, 'nick');
          const roles = optStrings(o, 'roles');
          if (id !== undefined) input.id = id;
          if (username !== undefined) input.username = username;
          if (nick !== undefined) input.nick = nick;
          if (roles !== undefined) input.roles = roles;
          return new HttpResult(201, { id: store.addMember(guild.id, input) });
        }
        if (is('PATCH', 4)) {
          const o = obj(body);
          const patch: { nick?: string | null; roles?: string[] } = {};
          if (o.nick === null) patch.nick = null;
          else {
            const nick = optString(o, 'nick');
            if (nick !== undefined) patch.nick = nick;
          }
          const roles = optStrings(o, 'roles');
          if (roles !== undefined) patch.roles = roles;
          store.updateMember(guild.id, d!, patch);
          return new HttpResult(204);
        }
        if (is('DELETE', 4)) {
          store.removeMember(guild.id, d!);
          return new HttpResult(204);
        }
      }
    }
    return null;
  }

  private stateVerbs(req: AdminRequest): HttpResult | null {
    const { url, body, parts, is } = req;
    const [a, b, c] = parts;
    const core = this.core;
    const store = core.store;
    if (a === 'skus' && is('GET', 1)) return new HttpResult(200, store.skus.map((s) => skuObject(s, store.applicationId)));
    if (a === 'entitlements') {
      if (is('POST', 1)) {
        const o = obj(body);
        const skuId = optString(o, 'skuId');
        if (!skuId) throw bad('skuId is required');
        const input: { skuId: string; userId?: string; guildId?: string; subscription?: boolean } = { skuId };
        const userId = optString(o, 'userId');
        const guildId = optString(o, 'guildId');
        if (userId !== undefined) input.userId = userId;
        if (guildId !== undefined) input.guildId = guildId;
        if (typeof o.subscription === 'boolean') input.subscription = o.subscription;
        return new HttpResult(201, { id: store.grantEntitlement(input).id });
      }
      if (c === 'end' && is('POST', 3)) {
        const o = body === undefined ? {} : obj(body);
        const endsAt = optString(o, 'endsAt');
        const date = endsAt === undefined ? undefined : new Date(endsAt);
        if (date !== undefined && Number.isNaN(date.getTime())) throw bad('endsAt must be an ISO 8601 date');
        store.endEntitlement(b!, date);
        return new HttpResult(204);
      }
    }
    if (a === 'commands' && is('GET', 1)) {
      const guildId = url.searchParams.get('guild_id');
      if (guildId !== null && !store.guild(guildId)) throw new SandboxError('UNKNOWN_GUILD', `unknown guild ${guildId}`);
      return new HttpResult(200, core.commands.list(guildId));
    }
    if (a === 'messages' && is('GET', 1)) {
      const filter: { channelId?: string; guildId?: string } = {};
      const channelId = url.searchParams.get('channel_id');
      const guildId = url.searchParams.get('guild_id');
      if (channelId !== null) filter.channelId = channelId;
      if (guildId !== null) filter.guildId = guildId;
      return new HttpResult(200, store.messages.all(filter).map(messageSnapshot));
    }
    return null;
  }

  private async interactionVerbs(req: AdminRequest): Promise<HttpResult | null> {
    const { url, body, parts, is } = req;
    const [a, b] = parts;
    const core = this.core;
    if ((a === 'invoke' || a === 'autocomplete') && is('POST', 1)) {
      const o = obj(body);
      const options = invokeOptions(o);
      let record: SandboxInteraction;
      if (a === 'autocomplete') {
        const focused = optString(o, 'focused');
        if (!focused) throw bad('focused (the option being typed) is required');
        record = sendInteraction(core, { ...options, focused } satisfies AutocompleteOptions, true);
      } else {
        record = sendInteraction(core, options, false);
      }
      const wait = optNumber(o, 'wait') ?? 0;
      if (wait > 0) await settle(record, Math.min(wait, 60_000), Math.min(optNumber(o, 'settle') ?? 500, 30_000));
      return new HttpResult(201, recordView(record));
    }
    if ((a === 'component' || a === 'modal') && is('POST', 1)) {
      const o = obj(body);
      let record: SandboxInteraction;
      if (a === 'component') {
        const customId = optString(o, 'customId');
        if (!customId) throw bad('customId is required');
        const messageId = optString(o, 'messageId') ?? findComponentMessage(core, customId);
        if (!messageId) throw new SandboxError('UNKNOWN_INTERACTION', `no message the app sent has a component with custom_id '${customId}'`);
        const values = optStrings(o, 'values');
        const userId = optString(o, 'userId');
        const locale = optString(o, 'locale');
        record = sendComponent(core, { messageId, customId, ...(values ? { values } : {}), ...(userId ? { userId } : {}), ...(locale ? { locale } : {}) });
      } else {
        const modalId = optString(o, 'customId');
        const interactionId = optString(o, 'interactionId') ?? findModalInteraction(core, modalId);
        if (!interactionId) throw new SandboxError('UNKNOWN_INTERACTION', `no interaction was answered with a modal${modalId !== undefined ? ` '${modalId}'` : ''}`);
        const values = obj(o.values ?? {});
        for (const [k, v] of Object.entries(values)) {
          if (typeof v !== 'string' && !(Array.isArray(v) && v.every((x) => typeof x === 'string'))) throw bad(`values.${k} must be a string or an array of strings`);
        }
        record = sendModalSubmit(core, { interactionId, values: values as Record<string, string | string[]> });
      }
      const wait = optNumber(o, 'wait') ?? 0;
      if (wait > 0) await settle(record, Math.min(wait, 60_000), Math.min(optNumber(o, 'settle') ?? 500, 30_000));
      return new HttpResult(201, recordView(record));
    }
    if (a === 'requests' && is('GET', 1)) {
      const after = Number(url.searchParams.get('after') ?? '0');
      if (!Number.isInteger(after) || after < 0) throw bad('after must be a non-negative integer');
      return new HttpResult(200, { last: core.journal.last, requests: core.journal.after(after) });
    }
    if (a === 'interactions' && is('GET', 2)) {
      const record = core.interactions.get(b!);
      if (!record) throw new SandboxError('UNKNOWN_INTERACTION', `unknown interaction ${b!}`);
      return new HttpResult(200, recordView(record));
    }
    return null;
  }

  private faultVerbs(req: AdminRequest): HttpResult | null {
    const { body, parts, is } = req;
    const [a, b] = parts;
    const core = this.core;
    const store = core.store;
    if (a === 'rest' && b === 'faults' && is('POST', 2)) {
      const o = obj(body);
      const bucket = optString(o, 'bucket');
      const retryAfterMs = optNumber(o, 'retryAfterMs');
      if (!bucket || retryAfterMs === undefined) throw bad('bucket and retryAfterMs are required');
      const scope = o.scope === undefined ? 'user' : o.scope;
      if (scope !== 'user' && scope !== 'shared' && scope !== 'global') throw bad('scope must be user, shared or global');
      core.restFaults.rateLimit({ bucket, retryAfterMs, scope, count: optNumber(o, 'count') ?? 1 });
      return new HttpResult(204);
    }
    if (a === 'gateway' && b === 'recommended-shards' && is('PUT', 2)) {
      const o = obj(body);
      const count = o.count === null ? null : optNumber(o, 'count');
      if (count === undefined) throw bad('count is required (a shard count, or null for the configured one)');
      core.gateway.setRecommendedShards(count);
      return new HttpResult(200, { shards: core.gateway.recommendedShards() });
    }
    if (a === 'faults' && is('POST', 2)) {
      const shard = Number(b);
      if (!Number.isInteger(shard) || shard < 0) throw bad('the shard id must be a non-negative integer');
      const o = obj(body);
      const faults: SandboxFaults = core.gateway.faults;
      switch (o.fault) {
        case 'stop-heartbeat-acks':
          faults.stopHeartbeatAcks(shard);
          break;
        case 'reconnect':
          faults.reconnect(shard);
          break;
        case 'invalidate-session':
          faults.invalidateSession(shard, o.resumable === true);
          break;
        case 'close': {
          const code = optNumber(o, 'code') ?? 4000;
          if (!Number.isInteger(code) || code < 1000 || code > 4999) throw bad('code must be a WebSocket close code (1000-4999)');
          faults.close(shard, code);
          break;
        }
        case 'corrupt-frame':
          faults.corruptFrame(shard);
          break;
        case 'dispatch': {
          const t = optString(o, 't');
          if (!t) throw bad('t (the event name) is required');
          faults.dispatch(shard, t, Object.hasOwn(o, 'd') ? o.d : null);
          break;
        }
        default:
          throw bad('fault must be one of stop-heartbeat-acks, reconnect, invalidate-session, close, corrupt-frame, dispatch');
      }
      return new HttpResult(204);
    }
    if (a === 'oauth2' && is('POST', 2) && (b === 'tokens' || b === 'codes')) {
      const o = obj(body);
      const scopes = optStrings(o, 'scopes');
      if (!scopes || scopes.length === 0) throw bad('scopes must be a non-empty array of strings');
      const userId = optString(o, 'userId') ?? store.fixture.userId(0);
      if (!store.user(userId)) throw new SandboxError('UNKNOWN_USER', `unknown user ${userId}`);
      if (b === 'tokens') {
        const token = core.oauth.issue(scopes, userId);
        registerSecret(token.accessToken, { transient: true });
        return new HttpResult(201, { access_token: token.accessToken, refresh_token: token.refreshToken, scope: scopes.join(' ') });
      }
      return new HttpResult(201, { code: core.oauth.issueCode(scopes, userId, optString(o, 'redirectUri') ?? null) });
    }
    return null;
  }

  private async route(method: string, url: URL, body: unknown): Promise<HttpResult> {
    const core = this.core;
    const parts = url.pathname.split('/').filter((s) => s.length > 0).slice(1);
    const a = parts[0];
    if (a === 'webhooks' || a === 'app') {
      const reply = await webhookAdmin(core, method, parts, body);
      if (reply !== null) return new HttpResult(reply.status, reply.body);
    }
    const channelReply = channelAdmin(this.channelVerbs, method, parts, body);
    if (channelReply !== null) return new HttpResult(channelReply.status, channelReply.body);

    const req: AdminRequest = { method, url, body, parts, is: (m, n) => method === m && parts.length === n };
    // One group of verbs after another: each answers what it knows and passes on the rest (null).
    const reply = this.directoryVerbs(req) ?? this.stateVerbs(req) ?? (await this.interactionVerbs(req)) ?? this.faultVerbs(req);
    if (reply !== null) return reply;
    return new HttpResult(404, { error: 'NOT_FOUND', message: `no admin endpoint ${method} ${url.pathname}` });
  }
}
