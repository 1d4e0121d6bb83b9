/**
 * The daily session-start budget (protocol §8.2): GET /gateway/bot says how many IDENTIFYs the token may
 * still send (`session_start_limit.remaining` of `total`) and when the count resets (`reset_after`). A bot
 * that runs out gets its token reset by the service, so the budget is kept for the whole life of the
 * process, not only looked at when it starts: every IDENTIFY takes one, and the one that would leave fewer
 * than `reserve` is refused with `IdentifyBudgetExhaustedError` (the shard stops, loudly) instead.
 *
 * `IdentifyBudget` is the seam for a fleet-wide implementation (several processes share one token's budget);
 * `LocalIdentifyBudget` keeps it in this process.
 */
import type { APIGatewaySessionStartLimit } from 'discord-api-types/v10';
import { IdentifyBudgetExhaustedError } from './errors.js';

export interface IdentifyBudgetSnapshot {
  /** Identifies left in the current window, as last known (null before the first update). */
  remaining: number | null;
  total: number | null;
  /** Kept back: identifies below this many are refused. */
  reserve: number;
  /** Ms until the window resets (null when unknown). */
  resetInMs: number | null;
}

export interface IdentifyBudget {
  /** The service's figures, from GET /gateway/bot (the manager passes them at start). */
  update(limit: APIGatewaySessionStartLimit): void;
  /** Identifies that may still start above the reserve (a window that has reset is refreshed first). */
  available(): Promise<number>;
  /**
   * Spend one identify for `shardId`, right before it is sent. Rejects with IdentifyBudgetExhaustedError
   * instead of leaving fewer than the reserve.
   */
  take(shardId: number): Promise<void>;
  snapshot(): IdentifyBudgetSnapshot;
}

export interface LocalIdentifyBudgetOptions {
  /**
   * Identifies kept back for the operator (a restart after fixing the cause). Default: 5% of `total`
   * (50 of the usual 1,000), at least 0.
   */
  reserve?: number;
  /**
   * Fresh figures from the service (GET /gateway/bot): asked once the window has reset, and before refusing,
   * in case the window reset earlier than we counted. Without it a reset window is assumed full again.
   */
  refresh?: () => Promise<APIGatewaySessionStartLimit>;
  /** Monotonic clock in ms. Default performance.now. */
  now?: () => number;
}

/** Length of the service's window when it cannot be asked: one day. */
const DAY_MS = 86_400_000;

export class LocalIdentifyBudget implements IdentifyBudget {
  private readonly explicitReserve: number | undefined;
  private readonly refreshFromService: (() => Promise<APIGatewaySessionStartLimit>) | undefined;
  private readonly now: () => number;
  private total: number | null = null;
  private remaining: number | null = null;
  private resetAt = 0;
  private refreshing: Promise<void> | null = null;

  constructor(options: LocalIdentifyBudgetOptions = {}) {
    if (options.reserve !== undefined && (!Number.isInteger(options.reserve) || options.reserve < 0)) {
      throw new RangeError(`identify budget reserve must be a non-negative integer, got ${options.reserve}`);
    }
    this.explicitReserve = options.reserve;
    this.refreshFromService = options.refresh;
    this.now = options.now ?? (() => performance.now());
  }

  get reserve(): number {
    return this.explicitReserve ?? Math.floor((this.total ?? 0) / 20);
  }

  update(limit: APIGatewaySessionStartLimit): void {
    this.total = limit.total;
    this.remaining = limit.remaining;
    this.resetAt = this.now() + Math.max(0, limit.reset_after);
  }

  async available(): Promise<number> {
    await this.freshen();
    return this.remaining === null ? Infinity : Math.max(0, this.remaining - this.reserve);
  }

  async take(shardId: number): Promise<void> {
    await this.freshen();
    if (this.remaining === null) return; // never told: nothing to count against
    if (this.remaining - 1 < this.reserve && this.refreshFromService !== undefined) await this.refresh();
    const remaining = this.remaining;
    if (remaining - 1 < this.reserve) {
      throw new IdentifyBudgetExhaustedError(shardId, remaining, this.reserve, Math.max(0, this.resetAt - this.now()));
    }
    this.remaining = remaining - 1;
  }

  snapshot(): IdentifyBudgetSnapshot {
    return {
      remaining: this.remaining,
      total: this.total,
      reserve: this.reserve,
      resetInMs: this.remaining === null ? null : Math.max(0, this.resetAt - this.now()),
    };
  }

  /** The window is over: learn the new one (or assume it is full again). */
  private async freshen(): Promise<void> {
    if (this.remaining === null || this.now() < this.resetAt) return;
    if (this.refreshFromService !== undefined) {
      await this.refresh();
      return;
    }
    this.remaining = this.total;
    this.resetAt = this.now() + DAY_MS;
  }

  /** One request at a time however many shards ask; a failed one keeps the figures we have. */
  private refresh(): Promise<void> {
    this.refreshing ??= (async () => {
      try {
        this.update(await this.refreshFromService!());
      } catch {
        // The service could not be asked: count on with what we know (never more than it said).
      } finally {
        this.refreshing = null;
      }
    })();
    return this.refreshing;
  }
}
