/**
 * Sandbox options with every default filled in, so the rest of the sandbox never has to guess.
 * Defaults follow the service (protocol §4, §8, §3); tests shorten the windows through options.
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { ALL_INTENTS } from '../api/intents.js';
import { DAILY_CREATES } from '../commands/constants.js';
import { silentLogger } from '../util/silent-logger.js';
import type { SandboxOptions, SeedOptions } from './contract.js';
import { isSnowflake, SNOWFLAKE_RULE } from '../api/snowflake.js';

/** A REST rate-limit bucket: `limit` requests per `windowMs`. */
export interface BucketLimit {
  limit: number;
  windowMs: number;
}

/**
 * Rate-limit buckets of the sandbox's REST routes. Names are stable; X-RateLimit-Bucket is a hash of the name.
 * Real limits are not documented ("do not hard-code limits"); these are plausible values that keep a normal
 * command sync under the limit and make a burst hit it.
 */
export const DEFAULT_BUCKETS = {
  'gateway': { limit: 5, windowMs: 5_000 },
  'users.me': { limit: 5, windowMs: 5_000 },
  'applications.me': { limit: 5, windowMs: 5_000 },
  'applications.edit': { limit: 5, windowMs: 5_000 },
  'users.read': { limit: 30, windowMs: 5_000 },
  'users.edit': { limit: 2, windowMs: 5_000 },
  'users.guilds': { limit: 5, windowMs: 5_000 },
  'users.dm': { limit: 5, windowMs: 5_000 },
  'guilds.read': { limit: 30, windowMs: 5_000 },
  'guilds.members': { limit: 10, windowMs: 10_000 },
  'guilds.member.edit': { limit: 5, windowMs: 5_000 },
  'guilds.member.kick': { limit: 5, windowMs: 5_000 },
  'guilds.member.roles': { limit: 10, windowMs: 10_000 },
  'guilds.roles.edit': { limit: 10, windowMs: 5_000 },
  'guilds.bans': { limit: 10, windowMs: 10_000 },
  'guilds.bans.edit': { limit: 5, windowMs: 5_000 },
  'guilds.bans.bulk': { limit: 5, windowMs: 5_000 },
  'channels.read': { limit: 30, windowMs: 5_000 },
  'channels.create': { limit: 10, windowMs: 10_000 },
  'channels.edit': { limit: 10, windowMs: 10_000 },
  'channels.delete': { limit: 5, windowMs: 5_000 },
  'channels.permissions': { limit: 10, windowMs: 10_000 },
  'threads.create': { limit: 10, windowMs: 10_000 },
  'threads.members': { limit: 10, windowMs: 10_000 },
  'threads.read': { limit: 30, windowMs: 5_000 },
  'messages.read': { limit: 30, windowMs: 5_000 },
  'messages.create': { limit: 5, windowMs: 5_000 },
  'messages.edit': { limit: 5, windowMs: 5_000 },
  'messages.delete': { limit: 5, windowMs: 5_000 },
  'messages.bulk': { limit: 1, windowMs: 1_000 },
  'reactions': { limit: 5, windowMs: 1_000 },
  'reactions.read': { limit: 10, windowMs: 5_000 },
  'pins': { limit: 5, windowMs: 5_000 },
  'polls': { limit: 5, windowMs: 5_000 },
  'typing': { limit: 5, windowMs: 5_000 },
  'commands.read': { limit: 20, windowMs: 5_000 },
  'commands.create': { limit: 5, windowMs: 5_000 },
  'commands.edit': { limit: 5, windowMs: 5_000 },
  'commands.delete': { limit: 5, windowMs: 5_000 },
  'commands.bulk': { limit: 2, windowMs: 5_000 },
  'permissions.read': { limit: 10, windowMs: 5_000 },
  'permissions.edit': { limit: 5, windowMs: 5_000 },
  'oauth2.token': { limit: 5, windowMs: 5_000 },
  'interaction.callback': { limit: 5, windowMs: 5_000 },
  'webhook': { limit: 5, windowMs: 2_000 },
  'webhooks.read': { limit: 30, windowMs: 5_000 },
  'webhooks.edit': { limit: 5, windowMs: 5_000 },
  // Ten publications per channel per hour (discord-api-docs "Crosspost Message" is limited per channel).
  'messages.crosspost': { limit: 10, windowMs: 3_600_000 },
  'invites.read': { limit: 30, windowMs: 5_000 },
  'invites.edit': { limit: 5, windowMs: 5_000 },
  'audit-log': { limit: 10, windowMs: 5_000 },
  'entitlements': { limit: 10, windowMs: 5_000 },
  'skus': { limit: 10, windowMs: 5_000 },
  'emojis.read': { limit: 30, windowMs: 5_000 },
  'emojis.edit': { limit: 5, windowMs: 5_000 },
  'stickers.read': { limit: 30, windowMs: 5_000 },
  'stickers.edit': { limit: 5, windowMs: 5_000 },
  'events.read': { limit: 30, windowMs: 5_000 },
  'events.edit': { limit: 5, windowMs: 5_000 },
  'stage-instances': { limit: 5, windowMs: 5_000 },
  'voice-states': { limit: 5, windowMs: 5_000 },
  'users.guilds.leave': { limit: 5, windowMs: 5_000 },
  'users.oauth2': { limit: 5, windowMs: 5_000 },
  'guilds.edit': { limit: 5, windowMs: 5_000 },
  'guilds.members.add': { limit: 10, windowMs: 10_000 },
  'automod.read': { limit: 10, windowMs: 5_000 },
  'automod.edit': { limit: 5, windowMs: 5_000 },
} satisfies Record<string, BucketLimit>;

export type BucketName = keyof typeof DEFAULT_BUCKETS;

export interface ResolvedGatewayOptions {
  heartbeatIntervalMs: number;
  heartbeatTimeoutMs: number;
  maxConcurrency: number;
  identifyWindowMs: number;
  sessionStartLimit: number;
  recommendedShards: number | null;
  sendLimit: { count: number; windowMs: number };
  memberRequestWindowMs: number;
  allowedIntents: number;
  resumeWindowMs: number;
  maxFrameBytes: number | null;
  maxGuildsPerShard: number;
  replayBufferSize: number;
  replayBufferBytes: number;
  reconnectCloseDelayMs: number;
  strictResumeUrl: boolean;
  compressionLevel: number;
  asyncCompression: boolean;
}

export interface ResolvedRestOptions {
  globalPerSecond: number;
  dailyCommandCreates: number;
  buckets: Record<BucketName, BucketLimit>;
  interactionResponseMs: number;
  interactionTokenMs: number;
}

export interface ResolvedSeed {
  guilds: number;
  membersPerGuild: number;
  rolesPerGuild: number;
  channelsPerGuild: number;
  skus: number;
  seed: number;
  eager: boolean;
}

export interface ResolvedOptions {
  host: '127.0.0.1' | '::1';
  port: number;
  botToken: string;
  applicationId: string | null;
  clientSecret: string;
  seed: ResolvedSeed;
  activities: boolean;
  gateway: ResolvedGatewayOptions;
  rest: ResolvedRestOptions;
  logger: Logger;
}

export class SandboxOptionsError extends Error {
  constructor(message: string) {
    super(`sandbox options: ${message}`);
    this.name = 'SandboxOptionsError';
  }
}

function positiveInt(path: string, value: number | undefined, fallback: number, min = 1): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min) {
    throw new SandboxOptionsError(`${path} must be an integer >= ${min}; got ${String(value)}`);
  }
  return value;
}

/** A token with the shape of a bot token (base64 id . timestamp . hmac), random per sandbox unless given. */
export function makeBotToken(applicationId: string): string {
  const id = Buffer.from(applicationId).toString('base64url');
  const ts = randomBytes(4).toString('base64url').slice(0, 6);
  const hmac = randomBytes(27).toString('base64url').slice(0, 38);
  return `${id}.${ts}.${hmac}`;
}

export function resolveSeed(seed: SeedOptions | undefined): ResolvedSeed {
  return {
    guilds: positiveInt('seed.guilds', seed?.guilds, 2, 0),
    membersPerGuild: positiveInt('seed.membersPerGuild', seed?.membersPerGuild, 25, 0),
    rolesPerGuild: positiveInt('seed.rolesPerGuild', seed?.rolesPerGuild, 5, 0),
    channelsPerGuild: positiveInt('seed.channelsPerGuild', seed?.channelsPerGuild, 3, 1),
    skus: positiveInt('seed.skus', seed?.skus, 2, 0),
    seed: seed?.seed ?? 1,
    eager: seed?.eager ?? false,
  };
}

export function resolveOptions(options: SandboxOptions = {}): ResolvedOptions {
  const host = options.host ?? '127.0.0.1';
  // The sandbox holds tokens and answers anyone who connects: it must never listen beyond loopback.
  if (host !== '127.0.0.1' && host !== '::1') {
    throw new SandboxOptionsError(`host must be '127.0.0.1' or '::1'; got ${JSON.stringify(host)}`);
  }
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new SandboxOptionsError(`port must be an integer in 0..65535; got ${String(port)}`);
  }
  if (options.applicationId !== undefined && !isSnowflake(options.applicationId)) {
    throw new SandboxOptionsError(`applicationId must be ${SNOWFLAKE_RULE}; got ${JSON.stringify(options.applicationId)}`);
  }
  const g = options.gateway ?? {};
  const heartbeatIntervalMs = positiveInt('gateway.heartbeatIntervalMs', g.heartbeatIntervalMs, 41_250);
  const rest = options.rest ?? {};
  const buckets = { ...DEFAULT_BUCKETS } as Record<BucketName, BucketLimit>;
  for (const [name, limit] of Object.entries(rest.buckets ?? {})) {
    if (!(name in DEFAULT_BUCKETS)) {
      throw new SandboxOptionsError(`rest.buckets.${name} is not a bucket; known: ${Object.keys(DEFAULT_BUCKETS).join(', ')}`);
    }
    if (limit === undefined) continue;
    buckets[name as BucketName] = {
      limit: positiveInt(`rest.buckets.${name}.limit`, limit.limit, 1),
      windowMs: positiveInt(`rest.buckets.${name}.windowMs`, limit.windowMs, 1),
    };
  }
  const sendLimit = g.sendLimit ?? { count: 120, windowMs: 60_000 };
  return {
    host,
    port,
    botToken: options.botToken ?? '',
    applicationId: options.applicationId ?? null,
    clientSecret: options.clientSecret ?? randomBytes(24).toString('base64url'),
    seed: resolveSeed(options.seed),
    activities: options.activities ?? false,
    gateway: {
      heartbeatIntervalMs,
      heartbeatTimeoutMs: positiveInt('gateway.heartbeatTimeoutMs', g.heartbeatTimeoutMs, Math.round(heartbeatIntervalMs * 1.5)),
      maxConcurrency: positiveInt('gateway.maxConcurrency', g.maxConcurrency, 1),
      identifyWindowMs: positiveInt('gateway.identifyWindowMs', g.identifyWindowMs, 5_000, 0),
      sessionStartLimit: positiveInt('gateway.sessionStartLimit', g.sessionStartLimit, 1_000, 0),
      recommendedShards: g.recommendedShards === undefined ? null : positiveInt('gateway.recommendedShards', g.recommendedShards, 1),
      sendLimit: {
        count: positiveInt('gateway.sendLimit.count', sendLimit.count, 120),
        windowMs: positiveInt('gateway.sendLimit.windowMs', sendLimit.windowMs, 60_000),
      },
      memberRequestWindowMs: positiveInt('gateway.memberRequestWindowMs', g.memberRequestWindowMs, 30_000, 0),
      allowedIntents: g.allowedIntents ?? ALL_INTENTS,
      resumeWindowMs: positiveInt('gateway.resumeWindowMs', g.resumeWindowMs, 120_000, 0),
      maxFrameBytes: g.maxFrameBytes === undefined ? null : positiveInt('gateway.maxFrameBytes', g.maxFrameBytes, 1),
      maxGuildsPerShard: positiveInt('gateway.maxGuildsPerShard', g.maxGuildsPerShard, 2_500),
      replayBufferSize: positiveInt('gateway.replayBufferSize', g.replayBufferSize, 50_000),
      replayBufferBytes: positiveInt('gateway.replayBufferBytes', g.replayBufferBytes, 64 * 1024 * 1024),
      reconnectCloseDelayMs: positiveInt('gateway.reconnectCloseDelayMs', g.reconnectCloseDelayMs, 5_000, 0),
      strictResumeUrl: g.strictResumeUrl ?? true,
      compressionLevel: positiveInt('gateway.compressionLevel', g.compressionLevel, 1, 0),
      asyncCompression: g.asyncCompression ?? false,
    },
    rest: {
      globalPerSecond: positiveInt('rest.globalPerSecond', rest.globalPerSecond, 50),
      dailyCommandCreates: positiveInt('rest.dailyCommandCreates', rest.dailyCommandCreates, DAILY_CREATES, 0),
      buckets,
      interactionResponseMs: positiveInt('rest.interactionResponseMs', rest.interactionResponseMs, 3_000),
      interactionTokenMs: positiveInt('rest.interactionTokenMs', rest.interactionTokenMs, 15 * 60_000),
    },
    logger: options.logger ?? silentLogger(),
  };
}
