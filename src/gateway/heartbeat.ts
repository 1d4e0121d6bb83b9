/**
 * Heartbeat scheduling for one connection (protocol §7.2): the first beat after `interval * jitter`
 * (jitter uniform in [0, 1)), then one per interval (a server-requested beat restarts the interval). A beat due
 * while the previous one is still unacknowledged means the connection is a zombie: `onZombie` fires instead of
 * a send, and the timer stops.
 */

/** Node's timers hold at most 2^31-1 ms; a longer delay is silently run after 1 ms (TimeoutOverflowWarning). */
export const MAX_HEARTBEAT_INTERVAL_MS = 2 ** 31 - 1;

/**
 * The shortest interval the heartbeater keeps, whatever HELLO asked for (real HELLOs say 41250-45000 ms).
 * The zombie verdict gives each heartbeat one interval for its ACK: at a fraction of a millisecond that is
 * shorter than any round trip, so a healthy connection would be declared dead and dropped on every beat (a
 * reconnect storm). 100 ms still leaves a loopback round trip room, and keeps the cadence of test servers that
 * ask for sub-second beats (a gateway that closes late heartbeaters would close us if we beat slower than it
 * asked). A server that asks for beats faster than its own send limit allows (120 per 60 s) gets them late;
 * the shard then resumes with the backoff it has for repeated zombie closes instead of looping.
 */
export const MIN_HEARTBEAT_INTERVAL_MS = 100;

/** Whether a HELLO `heartbeat_interval` is usable at all: a finite number of ms within [1, 2^31-1]. */
export function isValidHeartbeatInterval(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 1 && value <= MAX_HEARTBEAT_INTERVAL_MS;
}

export interface HeartbeatHooks {
  /** Write a heartbeat (op 1 with the last seq) now. */
  send(): void;
  /** No ACK arrived between two beats. */
  zombie(): void;
}

export interface HeartbeatOptions {
  /** Jitter source in [0, 1). Default Math.random. */
  random?: () => number;
  /** Monotonic clock in ms. Default performance.now. */
  now?: () => number;
}

export class Heartbeater {
  private readonly random: () => number;
  private readonly now: () => number;
  private timer: NodeJS.Timeout | null = null;
  private intervalMs = 0;
  private acked = true;
  private sentAt = 0;
  private lastLatency = -1;

  constructor(
    private readonly hooks: HeartbeatHooks,
    options: HeartbeatOptions = {},
  ) {
    this.random = options.random ?? Math.random;
    this.now = options.now ?? (() => performance.now());
  }

  /** Round trip of the last acknowledged heartbeat in ms, or -1 before the first ACK. */
  get latency(): number {
    return this.lastLatency;
  }

  get running(): boolean {
    return this.timer !== null;
  }

  /** The interval in use (HELLO's, raised to MIN_HEARTBEAT_INTERVAL_MS), 0 before `start`. */
  get interval(): number {
    return this.intervalMs;
  }

  /**
   * Start beating every `intervalMs` (HELLO's heartbeat_interval, which the caller has checked with
   * `isValidHeartbeatInterval`), raised to MIN_HEARTBEAT_INTERVAL_MS.
   */
  start(intervalMs: number): void {
    if (!isValidHeartbeatInterval(intervalMs)) {
      throw new RangeError(`heartbeat interval must be a finite number of ms within [1, ${MAX_HEARTBEAT_INTERVAL_MS}] (got ${intervalMs})`);
    }
    this.stop();
    this.intervalMs = Math.max(MIN_HEARTBEAT_INTERVAL_MS, intervalMs);
    this.acked = true;
    const first = Math.floor(this.intervalMs * this.random());
    this.timer = setTimeout(this.tick, first);
  }

  stop(): void {
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
  }

  /**
   * The server asked for a heartbeat (op 1): send one now. The schedule restarts from it, so that the zombie
   * check still allows a whole interval for its ACK (a scheduled beat due moments later would otherwise find
   * it unanswered and drop a healthy connection).
   */
  beatNow(): void {
    this.sendBeat();
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = setTimeout(this.tick, this.intervalMs);
    }
  }

  ack(): void {
    if (!this.acked) {
      this.acked = true;
      this.lastLatency = this.now() - this.sentAt;
    }
  }

  private readonly tick = (): void => {
    if (!this.acked) {
      this.timer = null;
      this.hooks.zombie();
      return;
    }
    this.sendBeat();
    // A chain of timeouts rather than setInterval: `start` and `stop` stay the only places that own the timer.
    if (this.timer !== null) this.timer = setTimeout(this.tick, this.intervalMs);
  };

  private sendBeat(): void {
    this.acked = false;
    this.sentAt = this.now();
    this.hooks.send();
  }
}
