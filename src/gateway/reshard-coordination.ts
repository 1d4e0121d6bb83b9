/**
 * How the shard sets of one bot agree on a live reshard (S -> S'): the plan, and the few points every
 * process must pass together. One process alone: `LocalReshardCoordination` (in memory). Several processes:
 * the cluster layer's Redis implementation, where every step is shared.
 *
 *   propose       a reshard from S to S' (refused when the bot no longer runs S; the one under way otherwise)
 *   delivered     the old set delivered an event that new shard k receives too (the cutover's ledger)
 *   warm          new shard k is READY and has loaded its guilds
 *   allWarm       every new shard of the bot is warm (then the cutover may happen)
 *   oldStopped    this process's old set delivers nothing more; resolves once every process's has
 *   ledger        what the old set delivered for new shard k
 *   finished      this process switched its new shards and closed its old ones
 *   abort         give the reshard up: every process closes its new set and keeps the old one
 */

export interface ReshardPlan {
  /** Unique per reshard. */
  readonly id: string;
  readonly from: number;
  readonly to: number;
  /** The shard set generation the new set belongs to (0 is the first set the bot ever ran). */
  readonly generation: number;
  /** Why: "4011", "recommended", "operator", ... */
  readonly reason: string;
}

export interface ReshardCoordination {
  propose(from: number, to: number, reason: string): Promise<ReshardPlan | null>;
  /** Plans this process must take part in (a cluster hears of other processes' proposals). */
  onPlan(listener: (plan: ReshardPlan) => void): void;
  /** Told when a plan is given up (by any process). */
  onAbort(listener: (plan: ReshardPlan, reason: string) => void): void;
  delivered(plan: ReshardPlan, newShard: number, key: string): void;
  warm(plan: ReshardPlan, newShard: number): void;
  allWarm(plan: ReshardPlan, signal: AbortSignal): Promise<void>;
  oldStopped(plan: ReshardPlan, signal: AbortSignal): Promise<void>;
  ledger(plan: ReshardPlan, newShard: number): Promise<string[]>;
  finished(plan: ReshardPlan): Promise<void>;
  abort(plan: ReshardPlan, reason: string): Promise<void>;
  close(): Promise<void>;
}

/** One process, one shard set at a time: everything is here already. */
export class LocalReshardCoordination implements ReshardCoordination {
  private current: { plan: ReshardPlan; warm: Set<number>; ledgers: Map<number, string[]>; wake: (() => void) | null } | null = null;
  private readonly planListeners: Array<(plan: ReshardPlan) => void> = [];
  private readonly abortListeners: Array<(plan: ReshardPlan, reason: string) => void> = [];
  private generation = 0;
  private total: number | null = null;
  private sequence = 0;

  async propose(from: number, to: number, reason: string): Promise<ReshardPlan | null> {
    if (this.current !== null) return this.current.plan;
    if (this.total !== null && this.total !== from) return null;
    const plan: ReshardPlan = { id: `local-${++this.sequence}`, from, to, generation: this.generation + 1, reason };
    this.current = { plan, warm: new Set(), ledgers: new Map(), wake: null };
    for (const listener of this.planListeners) listener(plan);
    return plan;
  }

  onPlan(listener: (plan: ReshardPlan) => void): void {
    this.planListeners.push(listener);
  }

  onAbort(listener: (plan: ReshardPlan, reason: string) => void): void {
    this.abortListeners.push(listener);
  }

  delivered(plan: ReshardPlan, newShard: number, key: string): void {
    const c = this.of(plan);
    if (c === null) return;
    let list = c.ledgers.get(newShard);
    if (list === undefined) c.ledgers.set(newShard, (list = []));
    list.push(key);
  }

  warm(plan: ReshardPlan, newShard: number): void {
    const c = this.of(plan);
    if (c === null) return;
    c.warm.add(newShard);
    if (c.warm.size >= plan.to) c.wake?.();
  }

  allWarm(plan: ReshardPlan, signal: AbortSignal): Promise<void> {
    const c = this.of(plan);
    if (c === null) return Promise.reject(new Error(`reshard ${plan.id} is not under way`));
    if (c.warm.size >= plan.to) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const onAbort = (): void => reject(signal.reason instanceof Error ? signal.reason : new Error('reshard given up'));
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      c.wake = () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
    });
  }

  async oldStopped(): Promise<void> {
    // This process is the whole bot.
  }

  async ledger(plan: ReshardPlan, newShard: number): Promise<string[]> {
    return this.of(plan)?.ledgers.get(newShard) ?? [];
  }

  async finished(plan: ReshardPlan): Promise<void> {
    if (this.of(plan) === null) return;
    this.current = null;
    this.generation = plan.generation;
    this.total = plan.to;
  }

  async abort(plan: ReshardPlan, reason: string): Promise<void> {
    if (this.of(plan) === null) return;
    this.current = null;
    for (const listener of this.abortListeners) listener(plan, reason);
  }

  async close(): Promise<void> {
    this.current = null;
  }

  private of(plan: ReshardPlan): LocalReshardCoordination['current'] {
    return this.current !== null && this.current.plan.id === plan.id ? this.current : null;
  }
}
