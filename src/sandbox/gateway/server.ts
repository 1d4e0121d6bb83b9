/**
 * The sandbox gateway: accepts WebSocket upgrades on the main URL and on `resume_gateway_url`, runs
 * IDENTIFY / RESUME with the service's checks and close codes (protocol §7, §8), keeps sessions, routes
 * dispatches to the shards that own them, and exposes fault injection.
 */
import { GatewayCloseCodes, GatewayOpcodes } from 'discord-api-types/v10';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import { WebSocketServer } from 'ws';
import { INTENT_BITS, PRIVILEGED_INTENTS } from '../../api/intents.js';
import type { SandboxCounters, SandboxFaults, SandboxGatewayEvents } from '../contract.js';
import { SandboxError } from '../errors.js';
import type { ResolvedGatewayOptions } from '../options.js';
import { userObject } from '../state/serialize.js';
import type { DispatchSink, MemberListKind, SandboxStore } from '../state/store.js';
import { zstdStreamAvailable } from './compress.js';
import { Connection, type ConnectionKind } from './connection.js';
import { receives } from './intents.js';
import { isAllMembersRequest, memberChunks, parseMemberRequest } from './members.js';
import { Session } from './session.js';

type GatewaySession = Session<Connection>;

/** Close codes after which the session cannot be resumed. */
const SESSION_ENDING_CODES = new Set([4003, 4004, 4007, 4009, 4010, 4011, 4012, 4013, 4014]);
const DAY_MS = 86_400_000;
const INVALID_SESSION_FALSE = 'false';

export interface GatewayDeps {
  store: SandboxStore;
  options: ResolvedGatewayOptions;
  botToken: string;
  /** Application flags for READY's `application`. */
  applicationFlags: () => number;
  gatewayUrl: () => string;
  resumeUrl: () => string;
  events: EventEmitter<SandboxGatewayEvents>;
  counters: SandboxCounters;
  logger: Logger;
}

export class GatewayServer implements DispatchSink {
  readonly options: ResolvedGatewayOptions;
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: 1 << 20, perMessageDeflate: false });
  private readonly connections = new Set<Connection>();
  private readonly sessions = new Map<string, GatewaySession>();
  private nextConnectionId = 1;
  /** Last accepted IDENTIFY per rate_limit_key (shard_id % max_concurrency). */
  private readonly identifyBuckets = new Map<number, number>();
  /** Last all-members op 8 per guild (application-wide). */
  private readonly memberRequests = new Map<string, number>();
  private readonly guildTime = new Map<string, bigint>();
  private readonly sessionStart: { remaining: number; resetAt: number };
  private recommendedOverride: number | null = null;
  private readonly log: Logger;

  constructor(private readonly deps: GatewayDeps) {
    this.options = deps.options;
    this.log = deps.logger.child({ component: 'sandbox.gateway' });
    this.sessionStart = { remaining: deps.options.sessionStartLimit, resetAt: Date.now() + DAY_MS };
  }

  /** session_start_limit for GET /gateway/bot. */
  sessionStartLimit(): { total: number; remaining: number; reset_after: number; max_concurrency: number } {
    this.rollSessionWindow();
    return {
      total: this.options.sessionStartLimit,
      remaining: this.sessionStart.remaining,
      reset_after: Math.max(0, this.sessionStart.resetAt - Date.now()),
      max_concurrency: this.options.maxConcurrency,
    };
  }

  private rollSessionWindow(): void {
    if (Date.now() >= this.sessionStart.resetAt) {
      this.sessionStart.remaining = this.options.sessionStartLimit;
      this.sessionStart.resetAt = Date.now() + DAY_MS;
    }
  }

  /** Recommended shard count: as set at run time, else as configured, else one per 1,000 guilds. */
  recommendedShards(): number {
    return this.recommendedOverride ?? this.options.recommendedShards ?? Math.max(1, Math.ceil(this.deps.store.guilds.length / 1000));
  }

  /** Change what GET /gateway/bot recommends (null: back to the configured figure). */
  setRecommendedShards(count: number | null): void {
    if (count !== null && (!Number.isInteger(count) || count < 1 || count > 65_536)) {
      throw new SandboxError('INVALID', `the recommended shard count must be an integer from 1 to 65536, got ${String(count)}`);
    }
    this.recommendedOverride = count;
  }

  // ---- connections ------------------------------------------------------------------------------------

  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, kind: ConnectionKind, query: URLSearchParams): void {
    const encoding = query.get('encoding') ?? 'json';
    const compress = query.get('compress');
    const zstd = zstdStreamAvailable();
    if (encoding !== 'json' || (compress !== null && compress !== 'zlib-stream' && !(compress === 'zstd-stream' && zstd))) {
      // ETF is not spoken here, nor zstd-stream without its compressor; refuse the handshake rather than send
      // frames the client cannot read.
      const offered = zstd ? 'compress=zlib-stream or zstd-stream' : 'compress=zlib-stream (zstd-stream needs the optional zstd-napi package)';
      socket.end(`HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain\r\n\r\nthe sandbox supports encoding=json and ${offered} only\n`);
      return;
    }
    const compression = compress === 'zlib-stream' || compress === 'zstd-stream' ? compress : null;
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      const conn = new Connection(this.nextConnectionId++, ws, kind, compression, this);
      this.connections.add(conn);
      this.deps.events.emit('connection', {
        connectionId: conn.id,
        at: Date.now(),
        path: kind,
        compress: conn.compressed,
        ...(compression !== null ? { compression } : {}),
      });
      const v = query.get('v');
      if (v !== '10' && v !== '9') conn.closeNow(GatewayCloseCodes.InvalidAPIVersion, 'Invalid API version');
    });
  }

  connectionClosed(conn: Connection, code: number, by: 'client' | 'server'): void {
    this.connections.delete(conn);
    const session = conn.session;
    conn.session = null;
    this.deps.events.emit('close', { connectionId: conn.id, shardId: session?.shardId ?? null, code, by });
    if (session === null || session.connection !== conn) return;
    session.connection = null;
    // A client closing with 1000/1001 ends its session (protocol §7.7); so do the fatal server codes.
    const ends = by === 'client' ? code === 1000 || code === 1001 : SESSION_ENDING_CODES.has(code);
    if (ends) this.endSession(session);
    else this.keepResumable(session);
  }

  private keepResumable(session: GatewaySession): void {
    session.clearExpiry();
    session.expiry = setTimeout(() => this.endSession(session), this.options.resumeWindowMs);
    session.expiry.unref();
  }

  private endSession(session: GatewaySession): void {
    session.invalid = true;
    session.clearExpiry();
    this.sessions.delete(session.id);
  }

  emitDispatch(conn: Connection, t: string, s: number): void {
    const events = this.deps.events;
    if (events.listenerCount('dispatch') > 0) {
      events.emit('dispatch', { connectionId: conn.id, shardId: conn.session?.shardId ?? -1, t, s });
    }
  }

  emitHeartbeat(conn: Connection): void {
    const events = this.deps.events;
    if (events.listenerCount('heartbeat') > 0) {
      events.emit('heartbeat', { connectionId: conn.id, shardId: conn.session?.shardId ?? null, at: Date.now() });
    }
  }

  // ---- identify / resume ------------------------------------------------------------------------------

  identify(conn: Connection, d: unknown): void {
    if (typeof d !== 'object' || d === null || Array.isArray(d)) return conn.closeNow(GatewayCloseCodes.UnknownOpcode, 'Invalid payload');
    const o = d as Record<string, unknown>;
    if (typeof o.token !== 'string' || o.token !== this.deps.botToken) return conn.closeNow(GatewayCloseCodes.AuthenticationFailed, 'Authentication failed');
    if (typeof o.properties !== 'object' || o.properties === null) return conn.closeNow(GatewayCloseCodes.UnknownOpcode, 'Invalid payload');

    let shardId = 0;
    let shardCount = 1;
    const shardGiven = o.shard !== undefined && o.shard !== null;
    if (shardGiven) {
      const s = o.shard;
      if (
        !Array.isArray(s) || s.length !== 2 || !Number.isInteger(s[0]) || !Number.isInteger(s[1]) ||
        (s[1] as number) < 1 || (s[0] as number) < 0 || (s[0] as number) >= (s[1] as number)
      ) {
        return conn.closeNow(GatewayCloseCodes.InvalidShard, 'Invalid shard');
      }
      shardId = s[0] as number;
      shardCount = s[1] as number;
    }
    if (this.shardGuildIds(shardId, shardCount).length > this.options.maxGuildsPerShard) {
      return conn.closeNow(GatewayCloseCodes.ShardingRequired, 'Sharding required');
    }

    const intents = o.intents;
    const known = Object.values(INTENT_BITS).reduce((a, b) => a | b, 0);
    if (typeof intents !== 'number' || !Number.isInteger(intents) || intents < 0 || (intents & ~known) !== 0) {
      return conn.closeNow(GatewayCloseCodes.InvalidIntents, 'Invalid intent(s)');
    }
    if ((intents & PRIVILEGED_INTENTS & ~this.options.allowedIntents) !== 0) {
      return conn.closeNow(GatewayCloseCodes.DisallowedIntents, 'Disallowed intent(s)');
    }
    let largeThreshold = 50;
    if (o.large_threshold !== undefined) {
      const lt = o.large_threshold;
      if (typeof lt !== 'number' || !Number.isInteger(lt) || lt < 50 || lt > 250) return conn.closeNow(GatewayCloseCodes.UnknownOpcode, 'Invalid payload');
      largeThreshold = lt;
    }

    this.rollSessionWindow();
    if (this.sessionStart.remaining <= 0) {
      // Over the daily budget the service terminates sessions and resets the token (protocol §8.2).
      this.emitIdentifyRejected(conn, shardId, shardCount, 'session_start_limit');
      return conn.closeNow(GatewayCloseCodes.AuthenticationFailed, 'Authentication failed');
    }
    const bucket = shardId % this.options.maxConcurrency;
    const now = Date.now();
    const last = this.identifyBuckets.get(bucket);
    if (last !== undefined && now - last < this.options.identifyWindowMs) {
      // Over max_concurrency: the session does not start (op 9 false, protocol §8.2).
      this.emitIdentifyRejected(conn, shardId, shardCount, 'max_concurrency');
      conn.sendOp(GatewayOpcodes.InvalidSession, INVALID_SESSION_FALSE);
      return;
    }
    this.identifyBuckets.set(bucket, now);
    this.sessionStart.remaining--;
    this.deps.counters.identifies++;
    if (o.compress === true && !conn.compressed) conn.payloadCompression = true;

    const session = new Session<Connection>(shardId, shardCount, intents, largeThreshold, shardGiven, this.options.replayBufferSize, this.options.replayBufferBytes);
    this.sessions.set(session.id, session);
    session.connection = conn;
    conn.session = session;
    conn.invalidatedSession = null;
    this.deps.events.emit('identify', { connectionId: conn.id, shard: [shardId, shardCount], intents, at: now });
    this.log.debug({ shard: [shardId, shardCount], intents, connectionId: conn.id }, 'identify');

    const guildIds = this.shardGuildIds(shardId, shardCount);
    session.dispatch('READY', this.readyJson(session, guildIds));
    for (const id of guildIds) this.sendGuildCreate(session, id);
  }

  /** GUILD_CREATE of a guild to a session with GUILDS, its member list as the session's intents make it. */
  private sendGuildCreate(session: GatewaySession, guildId: string): void {
    if ((session.intents & INTENT_BITS.GUILDS) === 0) return;
    const guild = this.deps.store.guild(guildId)!;
    const kind: MemberListKind = (session.intents & INTENT_BITS.GUILD_PRESENCES) === 0 ? 'bot' : 'large';
    const k = kind === 'large' && this.deps.store.memberCount(guild) <= session.largeThreshold ? 'all' : kind;
    session.dispatch('GUILD_CREATE', this.deps.store.guildCreatePayload(guild, k, session.largeThreshold));
  }

  private emitIdentifyRejected(conn: Connection, shardId: number, shardCount: number, reason: 'max_concurrency' | 'session_start_limit'): void {
    this.deps.events.emit('identifyRejected', { connectionId: conn.id, shard: [shardId, shardCount], reason, at: Date.now() });
  }

  private readyJson(session: GatewaySession, guildIds: string[]): string {
    const store = this.deps.store;
    const ready: Record<string, unknown> = {
      v: 10,
      user_settings: {},
      user: { ...userObject(store.botUser), verified: true, mfa_enabled: false, email: null },
      guilds: guildIds.map((id) => ({ id, unavailable: true })),
      session_id: session.id,
      session_type: 'normal',
      resume_gateway_url: this.deps.resumeUrl(),
      application: { id: store.applicationId, flags: this.deps.applicationFlags() },
      private_channels: [],
      relationships: [],
      presences: [],
      guild_join_requests: [],
      geo_ordered_rtc_regions: ['sandbox'],
      auth: {},
      _trace: ['["gatehouse-sandbox",{"micros":0}]'],
    };
    if (session.shardGiven) ready.shard = [session.shardId, session.shardCount];
    return JSON.stringify(ready);
  }

  resume(conn: Connection, d: unknown): void {
    if (typeof d !== 'object' || d === null || Array.isArray(d)) return conn.closeNow(GatewayCloseCodes.UnknownOpcode, 'Invalid payload');
    const o = d as Record<string, unknown>;
    if (typeof o.token !== 'string' || typeof o.session_id !== 'string' || typeof o.seq !== 'number' || !Number.isInteger(o.seq)) {
      return conn.closeNow(GatewayCloseCodes.UnknownOpcode, 'Invalid payload');
    }
    if (o.token !== this.deps.botToken) return conn.closeNow(GatewayCloseCodes.AuthenticationFailed, 'Authentication failed');
    const session = this.sessions.get(o.session_id);
    // RESUME of the session op 9 `d: true` just detached from this very socket is fine on any URL.
    const sameSocket = session !== undefined && conn.invalidatedSession === session;
    if (this.options.strictResumeUrl && conn.kind === 'gateway' && !sameSocket) {
      // The service asks clients to resume on resume_gateway_url; the sandbox refuses elsewhere to catch them.
      this.log.warn({ connectionId: conn.id }, 'RESUME on the main gateway URL refused: resume on resume_gateway_url');
      return conn.sendOp(GatewayOpcodes.InvalidSession, INVALID_SESSION_FALSE);
    }
    if (session === undefined || session.invalid) return conn.sendOp(GatewayOpcodes.InvalidSession, INVALID_SESSION_FALSE);
    const seq = o.seq;
    if (seq > session.seq) {
      this.endSession(session);
      return conn.closeNow(GatewayCloseCodes.InvalidSeq, 'Invalid seq');
    }
    if (!session.canReplayFrom(seq)) {
      this.endSession(session);
      return conn.sendOp(GatewayOpcodes.InvalidSession, INVALID_SESSION_FALSE);
    }
    const previous = session.connection;
    if (previous !== null && previous !== conn) {
      previous.session = null;
      previous.closeNow(GatewayCloseCodes.UnknownError, 'Session resumed elsewhere');
    }
    session.clearExpiry();
    session.connection = conn;
    conn.session = session;
    conn.invalidatedSession = null;
    this.deps.counters.resumes++;
    this.deps.events.emit('resume', {
      connectionId: conn.id,
      shard: [session.shardId, session.shardCount],
      sessionId: session.id,
      seq,
      at: Date.now(),
    });
    session.replay(seq, (t, s, d) => conn.sendDispatch(t, s, d));
    session.dispatch('RESUMED', '{"_trace":["[\\"gatehouse-sandbox\\",{\\"micros\\":0}]"]}');
  }

  // ---- op 8 / 31 / 43 ---------------------------------------------------------------------------------

  requestGuildMembers(conn: Connection, session: GatewaySession, d: unknown): void {
    const request = parseMemberRequest(d);
    if (typeof request === 'string') return conn.closeNow(GatewayCloseCodes.UnknownOpcode, 'Invalid payload');
    const guild = this.deps.store.guild(request.guildId);
    // Guilds the session does not hold get no answer.
    if (!guild || this.shardOf(guild.id, session.shardCount) !== session.shardId) return;
    if (isAllMembersRequest(request) && (session.intents & INTENT_BITS.GUILD_MEMBERS) !== 0) {
      const now = Date.now();
      const last = this.memberRequests.get(guild.id);
      const window = this.options.memberRequestWindowMs;
      if (last !== undefined && now - last < window) {
        const meta: Record<string, string> = { guild_id: guild.id };
        if (request.nonce !== null) meta.nonce = request.nonce;
        const retryAfter = Math.max(0, (last + window - now) / 1000);
        session.dispatch('RATE_LIMITED', JSON.stringify({ opcode: 8, retry_after: retryAfter, meta }));
        return;
      }
      this.memberRequests.set(guild.id, now);
    }
    const chunks = memberChunks(this.deps.store, request, session.intents);
    if (chunks === null) return;
    for (const chunk of chunks) session.dispatch('GUILD_MEMBERS_CHUNK', chunk);
  }

  requestSoundboardSounds(conn: Connection, session: GatewaySession, d: unknown): void {
    const ids = (d as { guild_ids?: unknown } | null)?.guild_ids;
    if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string')) return conn.closeNow(GatewayCloseCodes.UnknownOpcode, 'Invalid payload');
    for (const id of ids as string[]) {
      if (this.deps.store.guild(id) && this.shardOf(id, session.shardCount) === session.shardId) {
        session.dispatch('SOUNDBOARD_SOUNDS', JSON.stringify({ guild_id: id, soundboard_sounds: [] }));
      }
    }
  }

  requestChannelInfo(conn: Connection, session: GatewaySession, d: unknown): void {
    const o = d as { guild_id?: unknown; fields?: unknown } | null;
    if (typeof o?.guild_id !== 'string' || !Array.isArray(o.fields)) return conn.closeNow(GatewayCloseCodes.UnknownOpcode, 'Invalid payload');
    const guild = this.deps.store.guild(o.guild_id);
    if (!guild || this.shardOf(guild.id, session.shardCount) !== session.shardId) return;
    const channels = guild.channels.filter((c) => c.type === 2).map((c) => ({ id: c.id, status: null, voice_start_time: null }));
    session.dispatch('CHANNEL_INFO', JSON.stringify({ guild_id: guild.id, channels }));
  }

  // ---- routing ----------------------------------------------------------------------------------------

  shardOf(guildId: string, shardCount: number): number {
    let t = this.guildTime.get(guildId);
    if (t === undefined) {
      t = BigInt(guildId) >> 22n;
      this.guildTime.set(guildId, t);
    }
    return shardCount === 1 ? 0 : Number(t % BigInt(shardCount));
  }

  shardGuildIds(shardId: number, shardCount: number): string[] {
    const out: string[] = [];
    for (const g of this.deps.store.guilds) if (this.shardOf(g.id, shardCount) === shardId) out.push(g.id);
    return out;
  }

  guild(guildId: string, t: string, d: string | Buffer, userId?: string): void {
    const botId = this.deps.store.applicationId;
    for (const session of this.sessions.values()) {
      if (this.shardOf(guildId, session.shardCount) !== session.shardId) continue;
      if (!receives(t, session.intents, userId, botId)) continue;
      session.dispatch(t, d);
    }
  }

  /** The bot joined a guild: every session of its shard gets GUILD_CREATE, as on IDENTIFY. */
  guildCreate(guildId: string): void {
    for (const session of this.sessions.values()) {
      if (this.shardOf(guildId, session.shardCount) === session.shardId) this.sendGuildCreate(session, guildId);
    }
  }

  global(t: string, d: string | Buffer): void {
    const botId = this.deps.store.applicationId;
    for (const session of this.sessions.values()) {
      if (session.shardId !== 0 || !receives(t, session.intents, undefined, botId, true)) continue;
      session.dispatch(t, d);
    }
  }

  /** Whether some session (connected or resumable) would receive a dispatch for this guild (null = shard 0). */
  hasReceiver(guildId: string | null): boolean {
    for (const session of this.sessions.values()) {
      if (guildId === null ? session.shardId === 0 : this.shardOf(guildId, session.shardCount) === session.shardId) return true;
    }
    return false;
  }

  // ---- faults -----------------------------------------------------------------------------------------

  private newestConnection(shardId: number): Connection {
    let found: Connection | null = null;
    for (const c of this.connections) {
      // A socket whose session op 9 detached still belongs to that shard (it may RESUME there).
      const session = c.session ?? c.invalidatedSession;
      if (c.open && session?.shardId === shardId && (found === null || c.id > found.id)) found = c;
    }
    if (found === null) throw new SandboxError('NO_SHARD', `no live gateway connection is identified as shard ${shardId}`);
    return found;
  }

  readonly faults: SandboxFaults = {
    stopHeartbeatAcks: (shardId) => {
      this.newestConnection(shardId).acking = false;
    },
    reconnect: (shardId) => {
      this.newestConnection(shardId).sendReconnect();
    },
    invalidateSession: (shardId, resumable) => {
      const conn = this.newestConnection(shardId);
      const session = (conn.session ?? conn.invalidatedSession)!;
      // The service invalidates the connection's session: nothing more is dispatched on this socket, and any
      // other payload than a heartbeat, IDENTIFY or RESUME is 4003 (protocol §7.1, §7.9). Everything queued before
      // goes out before the op 9, so the client's last seq is exact.
      conn.session = null;
      conn.invalidatedSession = null;
      if (session.connection === conn) session.connection = null;
      if (resumable) {
        // `d: true`: the session lives on and buffers its dispatches; the client may RESUME it on this same
        // socket (discord.js does) or on resume_gateway_url, and gets everything after its seq exactly once.
        conn.invalidatedSession = session;
        this.keepResumable(session);
      } else {
        this.endSession(session);
      }
      conn.sendOp(GatewayOpcodes.InvalidSession, resumable ? 'true' : 'false');
    },
    close: (shardId, code) => {
      this.newestConnection(shardId).closeNow(code, 'Closed by the sandbox (fault injection)');
    },
    corruptFrame: (shardId) => {
      this.newestConnection(shardId).sendCorruptFrame();
    },
    dispatch: (shardId, t, d) => {
      const session = this.newestConnection(shardId).session;
      const json = JSON.stringify(d);
      if (session === null) throw new SandboxError('NO_SHARD', `shard ${shardId} has no session`);
      if (json === undefined) throw new SandboxError('INVALID', 'the dispatch data must be JSON-serializable');
      session.dispatch(t, json);
    },
  };

  async close(): Promise<void> {
    for (const conn of [...this.connections]) conn.terminate();
    for (const session of this.sessions.values()) session.clearExpiry();
    this.sessions.clear();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }
}
