/**
 * The sandbox's programmatic surface: what tests, benchmarks and `npm start` rely on.
 *
 * This file is the contract between the sandbox and its users (gateway tests, plugin-host tests, the CLI).
 * The implementation lives beside it (`createSandbox` in ./index.ts). Extending these interfaces is fine;
 * changing or removing a member breaks other layers' tests, so do it only together with them.
 */
import type { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { SandboxWebhookOptions, SandboxWebhooks } from './delivery/contract.js';


export type * from './delivery/contract.js';

/** Seed size for generated fixtures (deterministic for a given `seed`). */
export interface SeedOptions {
  guilds?: number; // default 2
  /** Default 25. The bot is a member of every guild on top of these (member_count = membersPerGuild + 1). */
  membersPerGuild?: number; // default 25 (the bot itself is always a member of every guild)
  /** Default 5, @everyone included. At least @everyone, Admin, Moderator and the bot's managed role exist. */
  rolesPerGuild?: number; // default 5
  channelsPerGuild?: number; // default 3
  skus?: number; // default 2 (one durable, one subscription)
  /** PRNG seed so runs are reproducible. */
  seed?: number;
  /**
   * Extension: generate every member at creation instead of on first use (guild members are otherwise
   * materialized lazily, which keeps a 1,000 x 1,000 fixture instant to create). Default false.
   */
  eager?: boolean;
}

export interface SandboxGatewayOptions {
  /** Hello's heartbeat_interval. Default 41250. */
  heartbeatIntervalMs?: number;
  /** session_start_limit.max_concurrency. Default 1. */
  maxConcurrency?: number;
  /** Identify spacing window per max_concurrency bucket. Default 5000 (shorten in tests). */
  identifyWindowMs?: number;
  /** session_start_limit.total (and initial remaining). Default 1000. */
  sessionStartLimit?: number;
  /** GET /gateway/bot `shards`. Default: one per 1000 guilds, at least 1. */
  recommendedShards?: number;
  /** Client send limit per connection; over it the connection is closed with 4008. Default 120 / 60000. */
  sendLimit?: { count: number; windowMs: number };
  /** Window of the all-members op 8 limit (RATE_LIMITED). Default 30000. */
  memberRequestWindowMs?: number;
  /** Intent bits the application is allowed (privileged portal switches). Default: all documented. */
  allowedIntents?: number;
  /** How long a dropped session stays resumable. Default 120000. */
  resumeWindowMs?: number;
  /** Split each compressed message into WebSocket frames of at most this many bytes. Default: no split. */
  maxFrameBytes?: number;
  /**
   * Extension: a connection that sends no heartbeat for this long is closed with 4009 (session timed out).
   * Counted from HELLO, then from each heartbeat. Default 1.5 x heartbeatIntervalMs.
   */
  heartbeatTimeoutMs?: number;
  /** Extension: guilds one shard may hold before IDENTIFY is refused with 4011. Default 2500. */
  maxGuildsPerShard?: number;
  /** Extension: dispatches kept per session for RESUME replay. Default 50000. */
  replayBufferSize?: number;
  /** Extension: bytes of dispatch JSON kept per session for replay (older ones go first). Default 64 MiB. */
  replayBufferBytes?: number;
  /** Extension: after a `faults.reconnect` (op 7) the server closes the socket itself after this delay. Default 5000. */
  reconnectCloseDelayMs?: number;
  /**
   * Extension: RESUME is accepted only on `resume_gateway_url` (op 9 false on the main URL), so clients that
   * ignore resume_gateway_url are caught. Default true.
   */
  strictResumeUrl?: boolean;
  /** Extension: zlib level of zlib-stream (0-9). Default 1 (fast: the sandbox must out-send its client). */
  compressionLevel?: number;
  /** Extension: use node:zlib's public async stream API instead of the synchronous native handle. Default false. */
  asyncCompression?: boolean;
}

export interface SandboxRestOptions {
  /** Global requests per second per token. Default 50. */
  globalPerSecond?: number;
  /** Command creates per day per scope. Default 200. */
  dailyCommandCreates?: number;
  /** Extension: per-route bucket limits by bucket name (see DEFAULT_BUCKETS in ./options.ts). */
  buckets?: Partial<Record<string, { limit: number; windowMs: number }>>;
  /** Extension: deadline of the initial interaction response (then 10062). Default 3000. */
  interactionResponseMs?: number;
  /** Extension: lifetime of an interaction token for follow-ups and @original. Default 15 minutes. */
  interactionTokenMs?: number;
}

export interface SandboxOptions {
  /** '127.0.0.1' (default) or '::1'. Never anything else. */
  host?: '127.0.0.1' | '::1';
  /** One port serves REST, gateway and admin. 0 (default) picks a free one. */
  port?: number;
  botToken?: string;
  applicationId?: string;
  /** Extension: OAuth2 client secret (random by default). The client id is the application id. */
  clientSecret?: string;
  seed?: SeedOptions;
  /** Activities enabled: EMBEDDED app flag and an automatically created entry-point command "Launch". */
  activities?: boolean;
  gateway?: SandboxGatewayOptions;
  rest?: SandboxRestOptions;
  /** Extension: outgoing webhooks (interactions endpoint, webhook events): retry delays, timeout. */
  webhooks?: SandboxWebhookOptions;
  logger?: Logger;
}

/** Fault injection, addressed by shard id (the newest live connection identified as that shard). */
export interface SandboxFaults {
  /** Stop answering heartbeats with op 11 (the client should detect a zombie). */
  stopHeartbeatAcks(shardId: number): void;
  /** Send op 7 RECONNECT. */
  reconnect(shardId: number): void;
  /** Send op 9 INVALID_SESSION with d = resumable (false also discards the session). */
  invalidateSession(shardId: number, resumable: boolean): void;
  /** Close the socket with the given code. */
  close(shardId: number, code: number): void;
  /** Send a frame that does not decode (corrupt zlib-stream or zstd-stream data, or invalid JSON without compression). */
  corruptFrame(shardId: number): void;
  /**
   * Extension: send one dispatch exactly as given (any event name, any `d`, malformed ones included, serialized
   * with JSON.stringify) to the shard's session, sequenced like any other and regardless of intents: for
   * testing how a client copes with payloads the service should never send.
   */
  dispatch(shardId: number, t: string, d: unknown): void;
}

/** What the sandbox observed on its gateway; tests count and time these. */
export interface SandboxGatewayEvents {
  /** Extension: `path` says whether the client opened the main URL or resume_gateway_url. */
  connection: [
    { connectionId: number; at: number; path?: 'gateway' | 'resume'; compress?: boolean; compression?: 'zlib-stream' | 'zstd-stream' },
  ];
  identify: [{ connectionId: number; shard: [number, number]; intents: number; at: number }];
  resume: [{ connectionId: number; shard: [number, number]; sessionId: string; seq: number; at: number }];
  dispatch: [{ connectionId: number; shardId: number; t: string; s: number }];
  close: [{ connectionId: number; shardId: number | null; code: number; by: 'client' | 'server' }];
  /** Extension: an IDENTIFY with a valid token that did not start a session (op 9 or close). */
  identifyRejected: [{ connectionId: number; shard: [number, number]; reason: 'max_concurrency' | 'session_start_limit'; at: number }];
  /** Extension: a heartbeat (op 1) arrived. */
  heartbeat: [{ connectionId: number; shardId: number | null; at: number }];
}

/** Extension: REST faults (the service's own limits are modelled anyway; these force an answer). */
export interface SandboxRestFaults {
  /**
   * The next `count` (default 1) requests of a rate-limit bucket (by name, e.g. "messages.create"; any major
   * parameter) are answered 429 with this retry_after and scope ("user" by default; "global" sets
   * X-RateLimit-Global). A request that is refused before its bucket is looked at (401, global limit) does not
   * use one up.
   */
  rateLimit(options: { bucket: string; retryAfterMs: number; scope?: 'user' | 'shared' | 'global'; count?: number }): void;
}

/** Extension: every REST answer, as the sandbox gave it (tests count and time these). */
export interface SandboxRestEvents {
  response: [{ method: string; path: string; bucket: string | null; major: string | null; status: number; at: number }];
}

export interface SandboxCounters {
  identifies: number;
  resumes: number;
  /** POST/PATCH/PUT/DELETE on command endpoints that reached the handler (including rejected ones). */
  commandWrites: number;
  /** Commands newly created (POST of a new name, or new entries in a bulk overwrite). */
  commandCreates: number;
  restRequests: number;
  rest429s: number;
}

export interface InvokeOptions {
  /** Command name as registered (default, unlocalized). */
  name: string;
  type?: 1 | 2 | 3 | 4;
  /** Guild to invoke in; omitted = the bot DM (context BOT_DM). */
  guildId?: string;
  /** Invoking user; defaults to a seeded non-bot member of the guild. */
  userId?: string;
  /** Subcommand path, e.g. ['config', 'set']. */
  subcommand?: string[];
  /** Option values by name (for the innermost subcommand). Users/roles/channels by id. */
  options?: Record<string, string | number | boolean>;
  /** For USER / MESSAGE commands. */
  targetId?: string;
  locale?: string;
  /** Installation context: guild install (default) or user install. */
  integration?: 'guild' | 'user';
  /** Extension: channel of the guild to invoke in (default: the guild's first text channel). */
  channelId?: string;
  /**
   * Extension: ATTACHMENT option values name a file ("report.pdf"); its size in bytes (default 1024) for
   * every attachment option of this invocation.
   */
  attachmentSize?: number;
}

export interface AutocompleteOptions extends InvokeOptions {
  /** Name of the option being typed; its value in `options` may be partial. */
  focused: string;
}

/** Extension: a user clicks a button or picks from a select menu on a message the app sent. */
export interface ComponentOptions {
  /**
   * The message: an interaction response (@original) or follow-up the app sent, or a message the bot posted with
   * POST /channels/{id}/messages (an update of it edits the channel message and dispatches MESSAGE_UPDATE).
   */
  messageId: string;
  /** custom_id of the component on that message. */
  customId: string;
  /** Picked values (select menus): option values, or ids for user / role / mentionable / channel selects. */
  values?: string[];
  /**
   * Who clicks; defaults to the user of the interaction that produced the message (for a channel message: the
   * guild's owner, or the DM's recipient).
   */
  userId?: string;
  locale?: string;
}

/** Extension: a user submits the modal an app opened (callback type 9). */
export interface ModalSubmitOptions {
  /** The interaction the app answered with MODAL. */
  interactionId: string;
  /** Text input values (or picked values for selects, comma-free strings) by custom_id. */
  values: Record<string, string | string[]>;
  locale?: string;
}

/** One interaction the sandbox sent, with everything the app did in answer. */
export interface InteractionRecord {
  id: string;
  token: string;
  type: number;
  payload: Record<string, unknown>;
  /** Callback bodies in order ({ type, data }). */
  callbacks: Array<{ type: number; data?: Record<string, unknown> }>;
  /** The original response message as currently edited, if any. */
  original: Record<string, unknown> | null;
  followups: Array<Record<string, unknown>>;
  /** Resolves with the first callback, rejects after `timeoutMs`. */
  firstResponse(timeoutMs?: number): Promise<{ type: number; data?: Record<string, unknown> }>;
  /**
   * Extension: `listener` runs after every change (a callback, an edit of @original or a follow-up, a follow-up,
   * a delete), so that a test can wait for an answer without polling. Returns the function that removes it.
   */
  onChange(listener: () => void): () => void;
}

/**
 * Extension: a message the bot sent in a guild channel or a DM (POST /channels/{id}/messages), as it is now:
 * edits replace `message`, a delete sets `deletedAt` (the record stays). The newest 10,000 are kept.
 */
export interface SandboxMessageRecord {
  id: string;
  channelId: string;
  /** null in DMs. */
  guildId: string | null;
  /** The user of a DM; null in guild channels. */
  recipientId: string | null;
  /** The message object as GET /channels/{id}/messages/{id} returns it (after the last edit). */
  message: Record<string, unknown>;
  createdAt: number;
  editedAt: number | null;
  deletedAt: number | null;
  edits: number;
}

export interface SandboxState {
  readonly guildIds: readonly string[];
  /** The seeded user ids of a guild's members (the bot included). */
  memberIds(guildId: string): string[];
  addMember(guildId: string, member?: { id?: string; username?: string; roles?: string[]; nick?: string }): string;
  /** `communicationDisabledUntil`: epoch ms of a timeout's end (null lifts it); `mute` / `deaf`: server voice state. */
  updateMember(guildId: string, userId: string, patch: { nick?: string | null; roles?: string[]; communicationDisabledUntil?: number | null; mute?: boolean; deaf?: boolean }): void;
  removeMember(guildId: string, userId: string): void;
  /** Create an entitlement (ENTITLEMENT_CREATE); returns its id. */
  grantEntitlement(e: { skuId: string; userId?: string; guildId?: string; subscription?: boolean }): string;
  /** Set ends_at (ENTITLEMENT_UPDATE). A cancellation without end emits nothing (protocol §S3). */
  endEntitlement(entitlementId: string, endsAt?: Date): void;
  /** Delete an entitlement, as a refund or a test entitlement's removal does (ENTITLEMENT_DELETE). */
  deleteEntitlement(entitlementId: string): void;
  readonly skuIds: readonly string[];
  /** Extension: the channel ids of a guild (the first is its text channel `general`). */
  channelIds(guildId: string): string[];
  /** Extension: the role ids of a guild (@everyone first). */
  roleIds(guildId: string): string[];
  /** Registered commands of a scope (guildId undefined = global). */
  commands(guildId?: string): Array<Record<string, unknown>>;
  /**
   * Extension: channels, threads, permission overwrites and roles, changed without the bot's permission checks
   * (to set a scene), each with the gateway event the service sends (CHANNEL_*, THREAD_*, GUILD_ROLE_UPDATE).
   */
  readonly channels: SandboxChannelVerbs;
  /** Extension: a member marks themselves interested in a scheduled event, or not (GUILD_SCHEDULED_EVENT_USER_*). */
  setEventInterest(guildId: string, eventId: string, userId: string, interested?: boolean): void;
  /**
   * Extension: the bot leaves a guild, or is removed from it (GUILD_DELETE without `unavailable`); the guild is
   * then unknown to REST (10004) and to new sessions until `joinGuild`.
   */
  leaveGuild(guildId: string): void;
  /** Extension: the bot joins a guild it left again, with its managed role (GUILD_CREATE as on a join). */
  joinGuild(guildId: string): void;
  /** Extension: the guilds the bot has left and may join again. */
  readonly leftGuildIds: readonly string[];
}

/** An overwrite as the verbs take it: bit sets as decimal strings or bigints. */
export interface OverwriteInput {
  id: string;
  /** 0 role (the guild id is @everyone), 1 member. */
  type: 0 | 1;
  allow?: string | bigint;
  deny?: string | bigint;
}

export interface ChannelInput {
  name: string;
  /** 0 text (default), 2 voice, 4 category, 5 announcement, 13 stage, 15 forum, 16 media. */
  type?: number;
  parentId?: string | null;
  topic?: string | null;
  nsfw?: boolean;
  position?: number;
  overwrites?: OverwriteInput[];
}

export interface ChannelUpdate extends Omit<Partial<ChannelInput>, 'type' | 'overwrites'> {
  archived?: boolean;
  locked?: boolean;
}

export interface ThreadInputVerb {
  name: string;
  /** 11 public (default), 12 private; 10 under an announcement channel. */
  type?: number;
  /** Who started it (default: the guild's owner); joins it. */
  ownerId?: string;
}

export interface RoleUpdate {
  name?: string;
  permissions?: string | bigint;
  position?: number;
}

export interface SandboxChannelVerbs {
  /** A guild channel (CHANNEL_CREATE); returns the channel object. */
  createChannel(guildId: string, input: ChannelInput): Record<string, unknown>;
  /** A channel or thread (CHANNEL_UPDATE / THREAD_UPDATE); `archived` / `locked` for threads. */
  updateChannel(channelId: string, update: ChannelUpdate): Record<string, unknown>;
  /** A channel (its threads go too) or a thread (CHANNEL_DELETE / THREAD_DELETE). */
  deleteChannel(channelId: string): void;
  setOverwrite(channelId: string, overwrite: OverwriteInput): void;
  deleteOverwrite(channelId: string, overwriteId: string): void;
  /** A thread started by a member (default: the owner), who joins it (THREAD_CREATE, THREAD_MEMBERS_UPDATE). */
  createThread(channelId: string, input: ThreadInputVerb): Record<string, unknown>;
  /** Add (`true`) or remove a member of a thread (THREAD_MEMBERS_UPDATE). */
  setThreadMember(threadId: string, userId: string, member: boolean): void;
  /** A member reacts to a message of the bot with a unicode emoji (MESSAGE_REACTION_ADD), or (`false`) takes it back. */
  react(channelId: string, messageId: string, userId: string, emoji: string, on?: boolean): void;
  /** A member's votes on a poll of the bot become `answerIds` (empty: withdrawn): MESSAGE_POLL_VOTE_ADD / _REMOVE. */
  vote(channelId: string, messageId: string, userId: string, answerIds: number[]): void;
  /** Rename, re-permission or move a role, the bot's own included (GUILD_ROLE_UPDATE). */
  updateRole(guildId: string, roleId: string, update: RoleUpdate): Record<string, unknown>;
}

export interface Sandbox {
  /** REST base with the version segment, e.g. http://127.0.0.1:PORT/api/v10 */
  readonly restUrl: string;
  /** What GET /gateway/bot returns as `url`. */
  readonly gatewayUrl: string;
  /** Admin HTTP API base (loopback only). */
  readonly adminUrl: string;
  readonly botToken: string;
  readonly applicationId: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly state: SandboxState;
  readonly faults: SandboxFaults;
  readonly counters: SandboxCounters;
  readonly gatewayEvents: EventEmitter<SandboxGatewayEvents>;
  /** Send an APPLICATION_COMMAND interaction over the gateway. */
  invoke(options: InvokeOptions): Promise<InteractionRecord>;
  /** Send an APPLICATION_COMMAND_AUTOCOMPLETE interaction over the gateway. */
  autocomplete(options: AutocompleteOptions): Promise<InteractionRecord>;
  interaction(id: string): InteractionRecord | undefined;
  /** Extension: REST faults (a forced 429 with retry_after). */
  readonly restFaults: SandboxRestFaults;
  /** Extension: every REST answer (method, path with tokens masked, bucket, status, epoch ms). */
  readonly restEvents: EventEmitter<SandboxRestEvents>;
  /**
   * Extension: what GET /gateway/bot recommends as `shards` from now on (null: back to the configured
   * `gateway.recommendedShards`, or one per 1,000 guilds).
   */
  setRecommendedShards(count: number | null): void;
  /** Extension: send a MESSAGE_COMPONENT interaction (type 3) for a component on a message the app sent. */
  component(options: ComponentOptions): Promise<InteractionRecord>;
  /** Extension: send a MODAL_SUBMIT interaction (type 5) for a modal the app opened. */
  submitModal(options: ModalSubmitOptions): Promise<InteractionRecord>;
  /** Extension: the messages the bot sent (deleted ones too), oldest first, optionally of one channel or guild. */
  messages(filter?: { channelId?: string; guildId?: string }): SandboxMessageRecord[];
  /**
   * The application's key pair and its interactions endpoint / webhook events URLs: signed interactions and
   * webhook events (install, deauthorize, entitlements), with bad-signature and stale-timestamp faults.
   */
  readonly webhooks: SandboxWebhooks;
  /** Issue an OAuth2 bearer token directly (as if a user had authorized), e.g. with permissions scope. */
  issueBearerToken(scopes: string[], userId?: string): string;
  /** Extension: an OAuth2 authorization code for POST /oauth2/token (grant_type=authorization_code). */
  issueAuthorizationCode(scopes: string[], options?: { userId?: string; redirectUri?: string }): string;
  close(): Promise<void>;
}

export type CreateSandbox = (options?: SandboxOptions) => Promise<Sandbox>;
