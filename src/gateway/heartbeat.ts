/**
 * Heartbeat scheduling for one connection (reference §7.2): the first beat after `interval * jitter`
 * (jitter uniform in [0, 1)), then one per interval (a server-requested beat restarts the interval). A beat due
 * while the previous one is still unacknowledged means the connection is a zombie: `onZombie` fires instead of
 * a send, and the timer stops.
 */

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

  start(intervalMs: number): void {
    this.stop();
    this.intervalMs = intervalMs;
    this.acked = true;
    const first = Math.floor(intervalMs * this.random());
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
