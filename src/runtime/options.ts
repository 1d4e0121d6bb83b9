/**
 * What a Runtime is built from: the configuration and the overrides a bot owner, a test or a tool passes in code.
 * Kept apart from runtime.ts so that the services it composes can read it without importing the runtime back.
 */
import type { Logger } from 'pino';
import type { ClusterCoordinatorOptions } from '../cluster/index.js';
import type { DispatchHook, ShardManagerOptions } from '../gateway/index.js';
import type { RestClientOptions } from '../rest/index.js';
import type { Sandbox } from '../sandbox/contract.js';
import type { AnomalyLog } from '../util/anomaly-log.js';
import type { Config } from './config.js';

export interface RuntimeOptions {
  config: Config;
  log?: Logger;
  /** Working directory for plugin directories. */
  cwd?: string;
  /** Use this sandbox instead of starting one when no token is configured (tests share one). */
  sandbox?: Sandbox;
  /** Overrides for the shard manager (tests shorten windows). */
  gateway?: Partial<Omit<ShardManagerOptions, 'token' | 'intents' | 'gatewayBot' | 'onDispatch'>>;
  rest?: Partial<RestClientOptions>;
  /** Defer an interaction automatically when its handler has not answered after this long. Default 2000. */
  deferAfterMs?: number;
  /** Overrides for the cluster coordinator (tests shorten leases and waits). */
  cluster?: Partial<Omit<ClusterCoordinatorOptions, 'redis' | 'prefix' | 'totalShards' | 'shardIds' | 'logger'>>;
  /** Called for every dispatch, with its seq, after the runtime handled it (tooling and tests). */
  observeDispatch?: DispatchHook;
  /**
   * Production rules: without a token the bot does not fall back to the embedded sandbox unless
   * `sandbox.mode` is "embedded" (see usesEmbeddedSandbox). Default: NODE_ENV=production.
   */
  production?: boolean;
  /**
   * The text of the ephemeral answer to an interaction no plugin handles, by the interaction's `locale`
   * (default: `commands.unavailableText` and its localizations from the configuration).
   */
  unavailableText?: (locale: string | undefined) => string;
  /**
   * The clock of the preconditions' cooldowns, in ms since the epoch (the test kit moves it forward). Default: the
   * cooldown store's own (Date.now in memory; the Redis server's clock when the windows are in Redis).
   */
  preconditionClock?: () => number;
}

/** What every service of a runtime shares: its configuration, options, logger and protocol-anomaly log. */
export interface RuntimeContext {
  readonly config: Config;
  readonly options: RuntimeOptions;
  readonly log: Logger;
  /** Payloads that break the protocol (gateway, cache, interactions): warned once per kind and window. */
  readonly anomalies: AnomalyLog;
  /** True when there is no token and the runtime runs against its own (embedded) sandbox. */
  readonly embedded: boolean;
}
