/**
 * What the intake has seen, kept from the runtime's construction on so that metrics, readiness and the "logged in
 * as" line can read it at any time: dispatches handled, each shard's READY, interactions whose handlers still run,
 * and interactions answered "not available" because no plugin handles them.
 */

/** Who the bot is and what its shards hold, from READY (the "logged in as" line). */
export interface ReadyInfo {
  userId: string;
  username: string;
  /** Guilds in READY, summed over this process's shards. */
  guilds: number;
  shards: number;
}

/** The kinds of interaction the router can find no handler for. */
export type UnhandledKind = 'command' | 'autocomplete' | 'component' | 'modal';

export class IntakeCounters {
  /** Gateway dispatches delivered since start. */
  dispatches = 0;
  /** Interactions being handled; shutdown waits for them. */
  readonly inFlight = new Set<Promise<void>>();
  /** Interactions no plugin handles, by kind (each answered "not available right now"). */
  readonly unhandled = new Map<UnhandledKind, number>();
  /** READY of each shard: the bot user and its guild count. */
  private readonly readyShards = new Map<number, { userId: string; username: string; guilds: number }>();

  /** Interactions a precondition denied, by `<precondition>\t<command or handler>`. */
  readonly denials = new Map<string, number>();

  countDenial(precondition: string, target: string): void {
    const key = `${precondition}\t${target}`;
    this.denials.set(key, (this.denials.get(key) ?? 0) + 1);
  }

  countUnhandled(kind: UnhandledKind): void {
    this.unhandled.set(kind, (this.unhandled.get(kind) ?? 0) + 1);
  }

  /** Track a handling until it settles. */
  track(handling: Promise<void>): void {
    this.inFlight.add(handling);
    void handling.finally(() => this.inFlight.delete(handling));
  }

  /** Let the handlers already running answer, for at most `graceMs`; true when some were still running. */
  async drain(graceMs: number): Promise<boolean> {
    if (this.inFlight.size === 0) return false;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      Promise.allSettled([...this.inFlight]).then(() => false),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), Math.max(0, graceMs));
      }),
    ]);
    clearTimeout(timer);
    return timedOut;
  }

  /**
   * Keep who the bot is and how many guilds the shard has. The payload comes from the peer and may be anything
   * (null, an id that is an object): only strings are taken, and nothing here may throw, or the event would
   * never reach plugins. What is wrong with it was reported by the cache's checks (once per kind, see
   * dispatchProblem); a field this cannot read keeps the shard's previous value.
   */
  noteReady(shardId: number, d: unknown): void {
    const ready = typeof d === 'object' && d !== null ? (d as { user?: unknown; guilds?: unknown }) : {};
    const user = typeof ready.user === 'object' && ready.user !== null ? (ready.user as { id?: unknown; username?: unknown }) : {};
    const previous = this.readyShards.get(shardId);
    this.readyShards.set(shardId, {
      userId: typeof user.id === 'string' ? user.id : (previous?.userId ?? ''),
      username: typeof user.username === 'string' ? user.username : (previous?.username ?? ''),
      guilds: Array.isArray(ready.guilds) ? ready.guilds.length : (previous?.guilds ?? 0),
    });
  }

  /** The bot and its guilds as the READYs of this process's shards said (null before the first READY). */
  get readyInfo(): ReadyInfo | null {
    const shards = [...this.readyShards.values()];
    const first = shards[0];
    if (first === undefined) return null;
    return { userId: first.userId, username: first.username, guilds: shards.reduce((n, s) => n + s.guilds, 0), shards: shards.length };
  }
}
