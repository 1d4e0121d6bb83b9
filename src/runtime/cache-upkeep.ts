/**
 * What keeps the cache true beyond the gateway's events (issue "Trustworthy state"):
 *
 * - entitlements synced from REST (every page) at startup and after every fresh READY of shard 0, since
 *   entitlement events go to shard 0 only and a new session may have missed some; a failure is retried with
 *   backoff;
 * - stale state recovered: a guild whose cache write failed is fetched again (the guild and its role list from
 *   REST, every member by an all-member request), the entitlements by a REST sync; stale marks left in Redis by
 *   any process are picked up whenever a shard is READY;
 * - all-member requests (op 8 with query "" and limit 0) replace the guild's cached member set with their answer.
 */
import type { Logger } from 'pino';
import { StaleRecovery, type Cache } from '../cache/index.js';
import type { MemberRequestResult, RequestMembersOptions, ShardManager } from '../gateway/index.js';
import { ApiError, listEntitlements, type RestClient } from '../rest/index.js';

export interface CacheUpkeepDeps {
  cache: Cache;
  rest: RestClient;
  applicationId: string;
  /** The shard manager once the gateway started (null before). */
  gateway: () => ShardManager | null;
  /** Whether the GUILD_MEMBERS intent is on (all-member requests need it). */
  membersIntent: boolean;
  log: Logger;
}

const SEED_RETRY_MIN_MS = 1_000;
const SEED_RETRY_MAX_MS = 300_000;

export class CacheUpkeep {
  readonly recovery: StaleRecovery;
  private seeding: Promise<void> | null = null;
  private seedAgain = false;
  private seedTimer: NodeJS.Timeout | null = null;
  private seedDelayMs = SEED_RETRY_MIN_MS;
  private stopped = false;

  constructor(private readonly deps: CacheUpkeepDeps) {
    this.recovery = new StaleRecovery(
      deps.cache,
      { guild: (guildId) => this.recoverGuild(guildId), entitlements: () => this.seedEntitlements() },
      { log: deps.log },
    );
  }

  /** The first entitlement sync, before the gateway starts; a failure is logged and retried in the background. */
  async start(): Promise<void> {
    await this.seedEntitlements().catch((err: unknown) => {
      this.deps.log.warn({ err }, 'could not sync entitlements from REST at startup; retrying');
      this.seedEntitlementsSoon();
    });
  }

  /** A shard is READY (or RESUMED). */
  onShardReady(shardId: number, resumed: boolean): void {
    if (!resumed && shardId === 0) queueMicrotask(() => this.seedEntitlementsSoon());
    void this.recovery.resume().catch((err: unknown) => this.deps.log.warn({ err }, 'could not read the stale cache marks'));
  }

  stop(): void {
    this.stopped = true;
    this.recovery.stop();
    if (this.seedTimer !== null) clearTimeout(this.seedTimer);
    this.seedTimer = null;
  }

  /**
   * Op 8 through the shard of the guild. An all-member request (no user ids, query "" and limit 0) replaces the
   * guild's cached member set with its answer once every chunk arrived (see Cache.beginMemberSync).
   */
  requestMembers(gateway: ShardManager, options: RequestMembersOptions): Promise<MemberRequestResult> {
    const all = options.userIds === undefined && (options.query ?? '') === '' && (options.limit ?? 0) === 0;
    const sync = all ? this.deps.cache.beginMemberSync(options.guildId) : null;
    return gateway.requestMembers(options).then(
      async (result) => {
        // A commit that fails was reported (and the guild marked stale) by the cache: the answer stands.
        await sync?.commit(result.members.length).catch(() => undefined);
        return result;
      },
      (err: unknown) => {
        sync?.abort();
        throw err;
      },
    );
  }

  /**
   * Replace the cached entitlements with the application's list from REST (every page), without losing the
   * entitlement events that arrive meanwhile (see Cache.beginEntitlementSync). One at a time: a request while
   * one runs makes it run once more after.
   */
  seedEntitlements(): Promise<void> {
    if (this.seeding !== null) {
      this.seedAgain = true;
      return this.seeding;
    }
    const run = (async () => {
      try {
        do {
          this.seedAgain = false;
          await this.seedOnce();
        } while (this.seedAgain);
      } finally {
        this.seeding = null;
      }
    })();
    this.seeding = run;
    return run;
  }

  private async seedOnce(): Promise<void> {
    const { cache, rest, applicationId } = this.deps;
    if (!cache.options.entitlements) return;
    const sync = cache.beginEntitlementSync();
    try {
      let after: string | undefined;
      let total = 0;
      for (let pages = 0; pages < 100_000; pages++) {
        const page = await listEntitlements(rest, applicationId, { limit: 100, ...(after !== undefined ? { after } : {}) });
        sync.add(page);
        total += page.length;
        if (page.length < 100) break;
        after = page.reduce((max, e) => (BigInt(e.id) > BigInt(max) ? e.id : max), page[0]!.id);
      }
      await sync.commit();
      await cache.recovered({ entitlements: true });
      this.deps.log.debug({ entitlements: total }, 'entitlements synced from REST');
    } catch (err) {
      sync.abort();
      throw err;
    }
  }

  /** seedEntitlements in the background: a failure is logged and tried again later (1 s doubling to 5 min). */
  private seedEntitlementsSoon(): void {
    if (this.stopped) return;
    this.seedEntitlements().then(
      () => {
        this.seedDelayMs = SEED_RETRY_MIN_MS;
      },
      (err: unknown) => {
        if (this.stopped) return;
        const delay = this.seedDelayMs;
        this.seedDelayMs = Math.min(SEED_RETRY_MAX_MS, delay * 2);
        this.deps.log.warn({ err, retryInMs: delay }, 'could not sync entitlements from REST; retrying');
        if (this.seedTimer === null) {
          this.seedTimer = setTimeout(() => {
            this.seedTimer = null;
            this.seedEntitlementsSoon();
          }, delay);
          this.seedTimer.unref();
        }
      },
    );
  }

  /**
   * Fetch a stale guild again: the guild with its complete role list (REST), then every member (op 8, when the
   * GUILD_MEMBERS intent is on). A guild of a shard another process runs is left to that process.
   */
  private async recoverGuild(guildId: string): Promise<'recovered' | 'elsewhere'> {
    const gateway = this.deps.gateway();
    if (gateway === null || gateway.shardCount === 0 || gateway.shardForGuild(guildId) === undefined) return 'elsewhere';
    const { cache, rest } = this.deps;
    // While the cache's store is down, fetching would only fail again: spend no request, try later.
    if (!cache.reachable) throw new Error('the cache cannot reach its store');
    try {
      cache.apply('GUILD_UPDATE', await rest.request<unknown>({ method: 'GET', route: '/guilds/{guild_id}', params: { guild_id: guildId }, query: { with_counts: true } }));
    } catch (err) {
      // 10004 Unknown Guild: the bot is no longer in it, there is nothing to fetch. Another 404 (a server without
      // the route) leaves the members' answer alone; anything else is tried again later.
      if (err instanceof ApiError && err.code === 10_004) {
        cache.apply('GUILD_DELETE', { id: guildId });
        await cache.flush();
        return 'recovered';
      }
      if (!(err instanceof ApiError && err.status === 404)) throw err;
    }
    if (this.deps.membersIntent) {
      const sync = cache.beginMemberSync(guildId);
      let result: MemberRequestResult;
      try {
        result = await gateway.requestMembers({ guildId, timeoutMs: 60_000 });
      } catch (err) {
        sync.abort();
        throw err;
      }
      await sync.commit(result.members.length);
    }
    await cache.flush();
    return 'recovered';
  }
}
