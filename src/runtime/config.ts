import { readFileSync, existsSync } from 'node:fs';
import { resolve, relative } from 'node:path';
import { z } from 'zod';
import { deepDict, dict } from '../util/dict.js';
import { redact, registerSecret, urlCredentials } from '../util/redact.js';
import { suggestion } from '../util/did-you-mean.js';
import { INTENT_BITS, type IntentName } from '../api/intents.js';
import { pluginEnvSettings, type PluginEnvSetting } from '../plugins/config-section.js';
import { isSnowflake, SNOWFLAKE_RULE } from '../api/snowflake.js';

/**
 * Configuration: `config/default.json` (checked in) <- `config/local.json` (git-ignored, optional)
 * <- environment variables. Every layer is validated as one merged object; a problem names the key, the
 * layer it came from and what was expected. Secret values are never echoed back: the token is never shown,
 * URL credentials are masked, and both are registered with the redactor before anything is validated.
 *
 * Keys come from files and the environment, so every object merged here has no prototype: a `__proto__` key in
 * local.json is an unknown key like any other, not a way to write into Object.prototype.
 */

const snowflake = z.string().refine(isSnowflake, `expected ${SNOWFLAKE_RULE}`);
const INTENT_NAMES = Object.keys(INTENT_BITS) as IntentName[];
/** Intents: a bit set, or names; a misspelt name is reported with the closest real one. */
const intents = z
  .union([z.number().int().nonnegative(), z.array(z.string())])
  .superRefine((v, ctx) => {
    if (!Array.isArray(v)) return;
    v.forEach((name, i) => {
      if (!Object.prototype.hasOwnProperty.call(INTENT_BITS, name)) {
        ctx.addIssue({ code: 'custom', path: [i], message: `unknown intent ${JSON.stringify(name)}${suggestion(name, INTENT_NAMES) || ` (intents: ${INTENT_NAMES.join(', ')})`}` });
      }
    });
  })
  .transform((v) => v as number | IntentName[]);
const port = z.number().int().min(0).max(65_535);
/**
 * Where the health and metrics endpoint listens: loopback unless the operator asks otherwise. A container whose
 * metrics are scraped from outside sets "0.0.0.0" (or "::") explicitly; the runtime then warns at startup.
 */
const opsHost = z.enum(['127.0.0.1', '::1', 'localhost', '0.0.0.0', '::'], {
  error: 'expected "127.0.0.1", "::1" or "localhost" (loopback), or "0.0.0.0" / "::" to listen on every interface',
});

export const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['127.0.0.1', '::1', 'localhost']);

/** A path of the signed endpoint: absolute, without query, fragment or spaces. */
const endpointPath = z.string().regex(/^\/[^\s?#]*$/, 'expected an absolute path such as "/interactions" (no query or spaces)');

/**
 * The signed endpoint (src/transports/http/): the one listener meant to be reached from outside, for the
 * interactions endpoint URL and the webhook events URL. Loopback by default: expose it through a reverse proxy.
 */
const endpointSchema = z
  .strictObject({
    /** Listen address: loopback by default; an interface address or "0.0.0.0" / "::" when the proxy is elsewhere. */
    host: z.string().min(1).default('127.0.0.1'),
    port: port.default(8080),
    interactionsPath: endpointPath.default('/interactions'),
    /** Path of the webhook events URL; null turns webhook events off. */
    eventsPath: endpointPath.nullable().default('/events'),
    /** The application's public key (`verify_key`, 64 hex characters); default: read from GET /applications/@me. */
    publicKey: z.string().regex(/^[0-9a-fA-F]{64}$/, 'expected 64 hexadecimal characters (the application\'s public key)').optional(),
    /** Accepted age of X-Signature-Timestamp in seconds, either way (clock skew between the service and this host). */
    timestampWindowSeconds: z.number().int().min(1).max(3_600).default(30),
    /** Largest accepted request body in bytes (larger ones get 413 before their signature is checked). */
    maxBodyBytes: z.number().int().min(1_024).max(64 * 1024 * 1024).default(1024 * 1024),
    /** An interaction nobody answered this long after receipt is released with 202 (the service waits 3 s). */
    deadlineMs: z.number().int().min(500).max(2_900).default(2_500),
    /**
     * At stop, /readyz turns 503 first and the endpoint keeps answering this long before it closes, so that a load
     * balancer moves traffic away meanwhile. Default 3000 with a token, 0 on the embedded sandbox (no balancer).
     */
    drainMs: z.number().int().min(0).max(60_000).optional(),
  })
  .refine((e) => e.eventsPath !== e.interactionsPath, { path: ['eventsPath'], message: 'must differ from endpoint.interactionsPath' });

const ENDPOINT_DEFAULTS = {
  host: '127.0.0.1',
  port: 8080,
  interactionsPath: '/interactions',
  eventsPath: '/events',
  timestampWindowSeconds: 30,
  maxBodyBytes: 1024 * 1024,
  deadlineMs: 2_500,
} as const;

export const ConfigSchema = z.strictObject({
  // Checked here, not by the first request: a token with a line break or space (a Windows .env leaves `\r` at
  // the end) makes Node refuse the Authorization header, which reads as a network error and was retried.
  /** Bot token; when absent `start` runs against the embedded sandbox. */
  token: z
    .string()
    .min(1)
    .regex(/^\S+$/, 'has whitespace or a line break in it (a Windows .env leaves a trailing \\r): remove it')
    .optional(),
  /** Defaults to the application of the token (GET /applications/@me). */
  applicationId: snowflake.optional(),
  /**
   * The OAuth2 client secret, for plugins that exchange authorization codes. The runtime itself does not use it;
   * set here it is known to the redactor from startup, so it never shows in a log line or an error.
   */
  clientSecret: z.string().min(1).optional(),
  /** REST base including the version segment; the gateway URL comes from GET /gateway/bot. */
  apiUrl: z.url({ protocol: /^https?$/ }).default('https://discord.com/api/v10'),
  /** Enables the Redis cache backend and cluster mode. */
  redisUrl: z.string().regex(/^rediss?:\/\//, 'expected a redis:// or rediss:// URL').optional(),
  /**
   * How interactions reach the bot: "gateway" (shards only), "both" (shards and the signed HTTP endpoint, which
   * also receives webhook events) or "http" (the endpoint only: no shard connects and intents are unused).
   */
  transport: z.enum(['gateway', 'both', 'http']).default('gateway'),
  endpoint: endpointSchema.default(ENDPOINT_DEFAULTS),
  intents: intents.default(['GUILDS', 'GUILD_MEMBERS']),
  shards: z
    .strictObject({
      /** "auto" takes the recommended count from GET /gateway/bot. */
      total: z.union([z.literal('auto'), z.number().int().positive()]).default('auto'),
      /** Shard ids this process runs: "auto" = all of them (or claimed through Redis in cluster mode). */
      ids: z.union([z.literal('auto'), z.array(z.number().int().nonnegative()).min(1)]).default('auto'),
      /** Live resharding (docs/cluster.md "Resharding"); needs ids "auto". */
      reshard: z
        .strictObject({
          /** A shard closed with 4011 (sharding required) starts a reshard to the recommended count (or twice the shards). */
          on4011: z.boolean().default(true),
          /** Every this many ms, reshard when GET /gateway/bot recommends more shards than run. 0: never. */
          checkMs: z.number().int().min(0).default(0),
          /** Wait after the new shards are ready before the old ones stop delivering. */
          settleMs: z.number().int().min(0).max(60_000).default(500),
          /** How long after the cutover the new shards still skip events the old ones delivered. */
          dedupeWindowMs: z.number().int().min(0).max(3_600_000).default(60_000),
          /** Give a reshard up when the new shards are not ready this long after it started. */
          warmTimeoutMs: z.number().int().min(1_000).max(3_600_000).default(600_000),
        })
        .default({ on4011: true, checkMs: 0, settleMs: 500, dedupeWindowMs: 60_000, warmTimeoutMs: 600_000 }),
    })
    .default({
      total: 'auto',
      ids: 'auto',
      reshard: { on4011: true, checkMs: 0, settleMs: 500, dedupeWindowMs: 60_000, warmTimeoutMs: 600_000 },
    }),
  gateway: z
    .strictObject({
      largeThreshold: z.number().int().min(50).max(250).default(50),
      /**
       * Transport compression: "zlib-stream" (or true), "zstd-stream", or false for none. zstd-stream decodes
       * with zstd-napi when it is installed, else with the pure-JS fzstd.
       */
      compress: z
        .union([z.boolean(), z.enum(['zlib-stream', 'zstd-stream'])], {
          error: 'expected "zlib-stream", "zstd-stream", true (zlib-stream) or false (no compression)',
        })
        .default(true),
    })
    .default({ largeThreshold: 50, compress: true }),
  plugins: z
    .strictObject({
      dirs: z.array(z.string().min(1)).min(1).default(['plugins']),
      /** Plugin names to skip. */
      disabled: z.array(z.string()).default([]),
      /** Per-plugin configuration sections, keyed by plugin name. */
      config: z.record(z.string(), z.unknown()).default({}),
      /** A plugin's setup that has not settled after this fails the start, naming the plugin. Default 5000. */
      setupTimeoutMs: z.number().int().min(1).max(600_000).optional(),
      /** A plugin's teardown that has not settled after this is left behind (logged, naming it). Default 5000. */
      teardownTimeoutMs: z.number().int().min(1).max(600_000).optional(),
    })
    .default({ dirs: ['plugins'], disabled: [], config: {} }),
  commands: z
    .strictObject({
      /** Sync commands on startup. */
      sync: z.boolean().default(true),
      /** Development mode: register every command in this guild instead of globally. */
      devGuildId: snowflake.optional(),
      /** The ephemeral answer to an interaction no plugin handles. Default "This command is not available right now." */
      unavailableText: z.string().min(1).max(2_000).optional(),
      /** That answer by the interaction's locale ("de", "pt-BR"; a language alone matches its regional locales). */
      unavailableTextLocalizations: z.record(z.string(), z.string().min(1).max(2_000)).optional(),
    })
    .default({ sync: true }),
  cache: z
    .strictObject({
      backend: z.enum(['auto', 'memory', 'redis']).default('auto'),
      guilds: z.boolean().default(true),
      members: z.boolean().default(true),
      users: z.boolean().default(true),
      roles: z.boolean().default(true),
      entitlements: z.boolean().default(true),
      /** Channels and threads with their permission overwrites, and command permission settings. */
      channels: z.boolean().default(true),
      /** Voice states of guild members (needs the GUILD_VOICE_STATES intent). */
      voiceStates: z.boolean().default(false),
      /** Cap on cached members per guild (0 = no cap). */
      maxMembersPerGuild: z.number().int().nonnegative().default(0),
      /** Redis key prefix; the application id is appended (`<prefix>:{<application id>}`), so bots sharing a Redis never share keys. */
      redisPrefix: z.string().min(1).default('gh'),
    })
    .default({
      backend: 'auto',
      guilds: true,
      members: true,
      users: true,
      roles: true,
      entitlements: true,
      channels: true,
      voiceStates: false,
      maxMembersPerGuild: 0,
      redisPrefix: 'gh',
    }),
  rest: z
    .strictObject({
      /**
       * Close a kept-alive REST connection idle this long, before the server or a proxy in front of it does (a
       * request written to a connection the server is closing is lost). Below the shortest idle timeout common in
       * front of HTTP APIs: Node's http.Server and Apache 5 s, nginx 75 s, Cloudflare's edge 400 s
       * (docs/operations.md "Long-running processes").
       */
      keepAliveIdleMs: z.number().int().min(100).max(600_000).default(4_000),
    })
    .default({ keepAliveIdleMs: 4_000 }),
  http: z
    .strictObject({
      enabled: z.boolean().default(true),
      host: opsHost.default('127.0.0.1'),
      /** Health and metrics port; 0 picks a free one. */
      port: port.default(9464),
    })
    .default({ enabled: true, host: '127.0.0.1', port: 9464 }),
  /**
   * Cluster mode (on when `redisUrl` and a token are set): several processes share the bot through Redis.
   * See src/cluster/ and docs/cluster.md.
   */
  cluster: z
    .strictObject({
      /** false: run alone even with Redis configured (Redis then serves the cache only). */
      enabled: z.boolean().default(true),
      /** Prefix of the coordination keys; the application id is appended, so bots never share them. */
      prefix: z.string().min(1).default('gh:cluster'),
      /** A shard lease expires this long after its last renewal: the takeover time after a process dies. */
      leaseMs: z.number().int().min(300).max(600_000).default(15_000),
      /** Heartbeat and lease renewal interval; at most half of leaseMs. Default leaseMs / 3. */
      renewMs: z.number().int().min(50).optional(),
      /** Most shards one process claims when shard ids are "auto" (0 = no cap beyond the fair share). */
      maxShardsPerProcess: z.number().int().nonnegative().default(0),
      /** Wait after registering before the first claim, to see the processes starting together. */
      settleMs: z.number().int().nonnegative().max(60_000).default(1_000),
      /** Expiry of a stored session after its last write; keep it below the service's resume window. */
      sessionTtlMs: z.number().int().min(1_000).max(3_600_000).default(60_000),
      /** How often each running shard's seq is checkpointed to Redis. */
      checkpointMs: z.number().int().min(50).max(60_000).default(1_000),
      /**
       * The bot's limits are kept in Redis for every process: REST buckets, the global limit, 429 waits, the
       * invalid-request budget and the daily identify budget. false: each process counts alone.
       */
      sharedLimits: z.boolean().default(true),
    })
    .superRefine((c, ctx) => {
      if (c.renewMs !== undefined && c.renewMs * 2 > c.leaseMs) {
        ctx.addIssue({ code: 'custom', path: ['renewMs'], message: `must be at most half of cluster.leaseMs (${c.leaseMs})` });
      }
    })
    .default({
      enabled: true,
      prefix: 'gh:cluster',
      leaseMs: 15_000,
      maxShardsPerProcess: 0,
      settleMs: 1_000,
      sessionTtlMs: 60_000,
      checkpointMs: 1_000,
      sharedLimits: true,
    }),
  log: z
    .strictObject({
      level: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).default('info'),
      /** Pretty output; defaults to "when stdout is a TTY". */
      pretty: z.boolean().optional(),
    })
    .default({ level: 'info' }),
  sandbox: z
    .strictObject({
      /**
       * When the embedded sandbox runs: "auto" when no token is set, except in production (NODE_ENV=production,
       * where a missing token is a configuration error); "embedded" on purpose, production included (a token
       * must not be set too); "off" never.
       */
      mode: z.enum(['auto', 'embedded', 'off']).default('auto'),
      port: port.default(0),
      guilds: z.number().int().min(1).max(10_000).default(2),
      membersPerGuild: z.number().int().min(1).max(100_000).default(25),
      activities: z.boolean().default(true),
    })
    .default({ mode: 'auto', port: 0, guilds: 2, membersPerGuild: 25, activities: true }),
});

export type Config = z.output<typeof ConfigSchema> & {
  /** `GATEHOUSE_PLUGIN__<PLUGIN>__<KEY>` variables, applied to plugin sections when plugins load. */
  readonly pluginEnvironment?: readonly PluginEnvSetting[];
};
export type ConfigInput = z.input<typeof ConfigSchema>;

/** Keys whose values must never be printed. */
const SECRET_KEYS = new Set(['token', 'clientSecret']);
/** Keys holding URLs whose user info (passwords, API keys) must never be printed. */
const URL_KEYS = new Set(['apiUrl', 'redisUrl']);

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    // The net behind describeValue: a value echoed in a problem goes through the redactor too.
    const safe = problems.map(redact);
    super(`invalid configuration:\n  ${safe.join('\n  ')}`);
    this.problems = safe;
    this.name = 'ConfigError';
  }
}

type Source = string;
type Plain = Record<string, unknown>;

interface Layer {
  source: Source;
  values: Plain;
}

/** Environment variables and the config path each one sets, with its parser. */
const ENV_BINDINGS: ReadonlyArray<{ env: string; path: string[]; parse: (raw: string) => unknown }> = [
  { env: 'DISCORD_TOKEN', path: ['token'], parse: (s) => s },
  { env: 'DISCORD_APPLICATION_ID', path: ['applicationId'], parse: (s) => s },
  { env: 'DISCORD_CLIENT_SECRET', path: ['clientSecret'], parse: (s) => s },
  { env: 'DISCORD_API_URL', path: ['apiUrl'], parse: (s) => s },
  { env: 'REDIS_URL', path: ['redisUrl'], parse: (s) => s },
  { env: 'GATEHOUSE_TRANSPORT', path: ['transport'], parse: (s) => s },
  { env: 'DISCORD_PUBLIC_KEY', path: ['endpoint', 'publicKey'], parse: (s) => s.trim() },
  { env: 'GATEHOUSE_ENDPOINT_HOST', path: ['endpoint', 'host'], parse: (s) => s },
  { env: 'GATEHOUSE_ENDPOINT_PORT', path: ['endpoint', 'port'], parse: parseNumber },
  { env: 'GATEHOUSE_INTERACTIONS_PATH', path: ['endpoint', 'interactionsPath'], parse: (s) => s },
  { env: 'GATEHOUSE_EVENTS_PATH', path: ['endpoint', 'eventsPath'], parse: (s) => (/^(off|none|false)$/i.test(s) ? null : s) },
  { env: 'GATEHOUSE_ENDPOINT_TIMESTAMP_WINDOW', path: ['endpoint', 'timestampWindowSeconds'], parse: parseNumber },
  { env: 'GATEHOUSE_ENDPOINT_MAX_BODY_BYTES', path: ['endpoint', 'maxBodyBytes'], parse: parseNumber },
  { env: 'GATEHOUSE_INTENTS', path: ['intents'], parse: parseIntents },
  { env: 'GATEHOUSE_GATEWAY_COMPRESS', path: ['gateway', 'compress'], parse: parseBool },
  { env: 'GATEHOUSE_SHARD_TOTAL', path: ['shards', 'total'], parse: parseAutoOrNumber },
  { env: 'GATEHOUSE_SHARD_IDS', path: ['shards', 'ids'], parse: parseShardIds },
  { env: 'GATEHOUSE_RESHARD_ON_4011', path: ['shards', 'reshard', 'on4011'], parse: parseBool },
  { env: 'GATEHOUSE_RESHARD_CHECK_MS', path: ['shards', 'reshard', 'checkMs'], parse: parseNumber },
  { env: 'GATEHOUSE_RESHARD_SETTLE_MS', path: ['shards', 'reshard', 'settleMs'], parse: parseNumber },
  { env: 'GATEHOUSE_RESHARD_DEDUPE_MS', path: ['shards', 'reshard', 'dedupeWindowMs'], parse: parseNumber },
  { env: 'GATEHOUSE_PLUGIN_DIRS', path: ['plugins', 'dirs'], parse: parseList },
  { env: 'GATEHOUSE_DEV_GUILD_ID', path: ['commands', 'devGuildId'], parse: (s) => s },
  { env: 'GATEHOUSE_COMMAND_SYNC', path: ['commands', 'sync'], parse: parseBool },
  { env: 'GATEHOUSE_CACHE_BACKEND', path: ['cache', 'backend'], parse: (s) => s },
  { env: 'GATEHOUSE_REST_KEEP_ALIVE_IDLE_MS', path: ['rest', 'keepAliveIdleMs'], parse: parseNumber },
  { env: 'GATEHOUSE_HTTP_HOST', path: ['http', 'host'], parse: (s) => s },
  { env: 'GATEHOUSE_HTTP_PORT', path: ['http', 'port'], parse: parseNumber },
  { env: 'GATEHOUSE_CLUSTER', path: ['cluster', 'enabled'], parse: parseBool },
  { env: 'GATEHOUSE_CLUSTER_PREFIX', path: ['cluster', 'prefix'], parse: (s) => s },
  { env: 'GATEHOUSE_CLUSTER_LEASE_MS', path: ['cluster', 'leaseMs'], parse: parseNumber },
  { env: 'GATEHOUSE_CLUSTER_RENEW_MS', path: ['cluster', 'renewMs'], parse: parseNumber },
  { env: 'GATEHOUSE_CLUSTER_MAX_SHARDS', path: ['cluster', 'maxShardsPerProcess'], parse: parseNumber },
  { env: 'GATEHOUSE_CLUSTER_SETTLE_MS', path: ['cluster', 'settleMs'], parse: parseNumber },
  { env: 'GATEHOUSE_CLUSTER_SESSION_TTL_MS', path: ['cluster', 'sessionTtlMs'], parse: parseNumber },
  { env: 'GATEHOUSE_CLUSTER_CHECKPOINT_MS', path: ['cluster', 'checkpointMs'], parse: parseNumber },
  { env: 'GATEHOUSE_CLUSTER_SHARED_LIMITS', path: ['cluster', 'sharedLimits'], parse: parseBool },
  { env: 'LOG_LEVEL', path: ['log', 'level'], parse: (s) => s },
  { env: 'GATEHOUSE_SANDBOX', path: ['sandbox', 'mode'], parse: (s) => s },
  { env: 'GATEHOUSE_SANDBOX_PORT', path: ['sandbox', 'port'], parse: parseNumber },
];

/** The environment variables and the keys they set, for the configuration reference (scripts/config-reference.ts). */
export const CONFIG_ENV_BINDINGS: ReadonlyArray<{ readonly env: string; readonly path: readonly string[] }> = ENV_BINDINGS;

function parseNumber(raw: string): unknown {
  const n = Number(raw);
  return raw.trim() !== '' && Number.isFinite(n) ? n : raw;
}
function parseAutoOrNumber(raw: string): unknown {
  return raw === 'auto' ? raw : parseNumber(raw);
}
function parseList(raw: string): string[] {
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}
function parseShardIds(raw: string): unknown {
  if (raw === 'auto') return raw;
  const out: unknown[] = [];
  for (const part of parseList(raw)) {
    const range = /^(\d+)-(\d+)$/.exec(part);
    if (range) {
      const from = Number(range[1]);
      const to = Number(range[2]);
      for (let i = from; i <= to && out.length < 100_000; i++) out.push(i);
    } else {
      out.push(parseNumber(part));
    }
  }
  return out;
}
function parseIntents(raw: string): unknown {
  return /^\d+$/.test(raw.trim()) ? Number(raw) : parseList(raw);
}
function parseBool(raw: string): unknown {
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  return raw;
}

function isPlain(v: unknown): v is Plain {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function readJsonLayer(file: string, cwd: string): Layer | null {
  if (!existsSync(file)) return null;
  const source = relative(cwd, file) || file;
  let parsed: unknown;
  const text = readFileSync(file, 'utf8');
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new ConfigError([`${source}: not valid JSON (${jsonErrorWithoutText(err as Error, text)})`]);
  }
  if (!isPlain(parsed)) throw new ConfigError([`${source}: expected a JSON object at the top level`]);
  return { source, values: parsed };
}

/**
 * A JSON.parse error without the excerpt of the file V8 quotes in some messages (`..."{"token": abc"...`): the
 * excerpt may hold part of a secret, which no redactor recognizes in pieces. A position becomes line and column.
 */
function jsonErrorWithoutText(err: Error, text: string): string {
  const message = err.message.replace(/,?\s*(\.\.\.)?".*"(\.\.\.)?\s*is not valid JSON$/s, '');
  const at = /at position (\d+)/.exec(message);
  if (at === null) return message;
  const before = text.slice(0, Number(at[1]));
  const line = before.split('\n').length;
  const column = before.length - before.lastIndexOf('\n');
  return `${message.slice(0, at.index).trimEnd()} at line ${line}, column ${column}`;
}

function envLayer(env: NodeJS.ProcessEnv): { layer: Layer; origins: Map<string, Source> } {
  const values = dict<unknown>();
  const origins = new Map<string, Source>();
  for (const binding of ENV_BINDINGS) {
    const raw = env[binding.env];
    if (raw === undefined || raw === '') continue;
    let node = values;
    for (const key of binding.path.slice(0, -1)) {
      const next = node[key];
      node = isPlain(next) ? next : (node[key] = dict<unknown>());
    }
    node[binding.path[binding.path.length - 1]!] = binding.parse(raw);
    origins.set(binding.path.join('.'), `environment variable ${binding.env}`);
  }
  return { layer: { source: 'environment', values }, origins };
}

/**
 * Deep merge where objects merge key by key and anything else (arrays included) replaces. `target` and every
 * object copied into it are prototype-free, and only own keys are followed.
 */
function mergeInto(target: Plain, layer: Layer, origins: Map<string, Source>): void {
  const walk = (dst: Plain, src: Plain, path: string[]): void => {
    for (const key of Object.keys(src)) {
      const value = src[key];
      const here = [...path, key];
      const current = Object.hasOwn(dst, key) ? dst[key] : undefined;
      if (isPlain(value) && isPlain(current)) {
        walk(current, value, here);
      } else {
        dst[key] = deepDict(value);
        origins.set(here.join('.'), layer.source);
      }
    }
  };
  walk(target, layer.values, []);
}

function describeValue(path: string, value: unknown): string {
  if (SECRET_KEYS.has(path)) return 'a secret value';
  if (URL_KEYS.has(path) && typeof value === 'string') return JSON.stringify(maskUserInfo(value));
  const json = JSON.stringify(value);
  return json === undefined ? String(value) : json.length > 60 ? `${json.slice(0, 57)}...` : json;
}

/**
 * A URL-ish value with whatever precedes its last `@` (after `//` when there is one) masked: also for values
 * so malformed that they were rejected (`redis//:password@host`), which the redactor's URL shape would miss.
 */
function maskUserInfo(value: string): string {
  const at = value.lastIndexOf('@');
  if (at === -1) return value;
  const slashes = value.indexOf('//');
  const from = slashes !== -1 && slashes < at ? slashes + 2 : 0;
  return `${value.slice(0, from)}[redacted]${value.slice(at)}`;
}

function valueAt(root: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let node: unknown = root;
  for (const key of path) {
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return node;
}

/** Register every secret a merged configuration holds, before it is validated (or rejected) and used. */
function registerConfigSecrets(merged: Plain): void {
  for (const key of SECRET_KEYS) {
    const value = merged[key];
    if (typeof value === 'string') registerSecret(value);
  }
  for (const key of URL_KEYS) {
    const url = merged[key];
    if (typeof url === 'string') for (const secret of urlCredentials(url)) registerSecret(secret);
  }
}

/** The keys a config object accepts at a path (for "did you mean" on unknown keys). */
function knownKeysAt(path: ReadonlyArray<PropertyKey>): string[] {
  let node: unknown = ConfigSchema;
  for (const key of [...path, null]) {
    // Step through defaults, optionals and refinements to the object schema inside.
    for (let i = 0; i < 6; i++) {
      const def = (node as { def?: { innerType?: unknown; in?: unknown } } | undefined)?.def;
      const inner = def?.innerType ?? def?.in;
      if (inner === undefined) break;
      node = inner;
    }
    const shape = (node as { shape?: Record<string, unknown> } | undefined)?.shape;
    if (shape === undefined) return [];
    if (key === null) return Object.keys(shape);
    if (!Object.prototype.hasOwnProperty.call(shape, String(key))) return [];
    node = shape[String(key)];
  }
  return [];
}

function originOf(origins: Map<string, Source>, path: ReadonlyArray<PropertyKey>): Source | undefined {
  for (let n = path.length; n > 0; n--) {
    const found = origins.get(path.slice(0, n).map(String).join('.'));
    if (found) return found;
  }
  return undefined;
}

export interface LoadConfigOptions {
  /** Folder holding default.json and local.json; defaults to `<cwd>/config`. */
  dir?: string;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Extra values applied last (CLI flags, tests). */
  overrides?: ConfigInput;
}

/** Load, merge and validate configuration. Throws ConfigError listing every problem. */
export function loadConfig(options: LoadConfigOptions = {}): Config {
  const cwd = options.cwd ?? process.cwd();
  const dir = resolve(cwd, options.dir ?? 'config');
  const env = options.env ?? process.env;
  const origins = new Map<string, Source>();
  const merged = dict<unknown>();

  const layers: Layer[] = [];
  const defaults = readJsonLayer(resolve(dir, 'default.json'), cwd);
  if (defaults) layers.push(defaults);
  const local = readJsonLayer(resolve(dir, 'local.json'), cwd);
  if (local) layers.push(local);
  for (const layer of layers) mergeInto(merged, layer, origins);

  const { layer: fromEnv, origins: envOrigins } = envLayer(env);
  mergeInto(merged, fromEnv, origins);
  for (const [k, v] of envOrigins) origins.set(k, v);
  if (options.overrides) mergeInto(merged, { source: 'overrides', values: options.overrides as Plain }, origins);

  // Register before validating: a rejected token or password must not leak through an error message either.
  registerConfigSecrets(merged);

  const plugins = pluginEnvSettings(env);
  const result = ConfigSchema.safeParse(merged);
  if (!result.success || plugins.problems.length > 0) {
    const problems = (result.error?.issues ?? []).flatMap((issue) => {
      const keys =
        issue.code === 'unrecognized_keys' ? issue.keys.map((k) => [...issue.path, k]) : [issue.path];
      return keys.map((path) => {
        const dotted = path.map(String).join('.') || '(root)';
        const from = originOf(origins, path);
        const where = from ? ` (from ${from})` : '';
        if (issue.code === 'unrecognized_keys') {
          const key = String(path[path.length - 1]);
          return `${dotted}${where}: unknown key${suggestion(key, knownKeysAt(path.slice(0, -1)))}`;
        }
        const got = valueAt(merged, path);
        const gotText = got === undefined ? 'nothing' : describeValue(dotted, got);
        // A closed set of values: suggest the one meant.
        const hint =
          issue.code === 'invalid_value' && typeof got === 'string' && !SECRET_KEYS.has(dotted)
            ? suggestion(got, issue.values.filter((v): v is string => typeof v === 'string'))
            : '';
        return issue.message.includes('did you mean') ? `${dotted}${where}: ${issue.message}` : `${dotted}${where}: ${issue.message}; got ${gotText}${hint}`;
      });
    });
    throw new ConfigError([...problems, ...plugins.problems]);
  }
  const config: Config = { ...result.data, pluginEnvironment: plugins.settings };
  if (config.token) registerSecret(config.token);
  // Plugin sections are read with keys of the plugins' choosing (often ids): no prototype behind them either.
  config.plugins.config = deepDict(config.plugins.config) as Record<string, unknown>;
  return config;
}

/** Production as far as the runtime is concerned: NODE_ENV=production (the Docker image sets it). */
export function isProduction(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.NODE_ENV === 'production';
}

/**
 * Whether the bot runs on the embedded sandbox (true) or on the configured token (false). Throws ConfigError
 * when neither may happen: no token where the sandbox is not allowed (sandbox.mode "off", or "auto" in
 * production, where a container that quietly ran the sandbox would look healthy while serving nobody), or a
 * token together with sandbox.mode "embedded".
 */
export function usesEmbeddedSandbox(config: Pick<Config, 'token' | 'sandbox'>, production: boolean): boolean {
  const mode = config.sandbox.mode;
  if (mode === 'embedded') {
    if (config.token !== undefined) {
      throw new ConfigError([
        'sandbox.mode: "embedded" runs the bot on the local sandbox, but a token (DISCORD_TOKEN) is set too; unset one of them',
      ]);
    }
    return true;
  }
  if (config.token !== undefined) return false;
  if (mode === 'off') {
    throw new ConfigError(['token: DISCORD_TOKEN is not set and sandbox.mode is "off"; set DISCORD_TOKEN to the bot\'s token']);
  }
  if (production) {
    throw new ConfigError([
      'token: DISCORD_TOKEN is not set. In production (NODE_ENV=production) gatehouse does not fall back to the embedded ' +
        'sandbox: set DISCORD_TOKEN to the bot\'s token, or GATEHOUSE_SANDBOX=embedded to run on the local sandbox on purpose',
    ]);
  }
  return true;
}

/** Resolve the configured intents to a bit set. */
export function intentBits(config: Pick<Config, 'intents'>): number {
  if (typeof config.intents === 'number') return config.intents;
  let bits = 0;
  for (const name of config.intents) bits |= INTENT_BITS[name];
  return bits;
}
