/**
 * The shared limits' notifications (the `<ns>:wake` channel, scripts.ts): the end of a bucket's discovery, so
 * that the requests waiting for it ask again at once instead of polling, and a process joining, so that every
 * process knows the fleet's size (the N of the fallback) at once instead of at its next heartbeat.
 *
 * Subscribing needs a connection of its own: a duplicate of the store's, opened and closed here. A waiter
 * still sets a timer (the lock's remaining lease): a notification missed while the subscription was
 * (re)connecting costs at most that wait.
 */
import type { Redis } from 'ioredis';

/** How long a notification is remembered, for a waiter whose answer came after the notification did. */
const RECENT_MS = 5_000;
const RECENT_CAP = 4096;

export class WakeChannel {
  private readonly sub: Redis;
  private readonly waiters = new Map<string, Set<() => void>>();
  /** Notification -> local time it was last heard. */
  private readonly recent = new Map<string, number>();
  private closed = false;

  constructor(
    redis: Redis,
    private readonly channel: string,
    private readonly onJoin: (processes: number) => void,
  ) {
    this.sub = redis.duplicate();
    // Outages are reported by the store's own connection; this one reconnects quietly with it.
    this.sub.on('error', () => undefined);
    this.sub.on('message', (ch: string, message: string) => {
      if (ch === this.channel) this.onMessage(message);
    });
    this.sub.subscribe(channel).catch(() => undefined);
  }

  /**
   * Settles when `notification` (`d <bucket key>`) is heard after `since` (local clock), or after `ms`,
   * whichever comes first.
   */
  wait(key: string, ms: number, since: number): Promise<void> {
    const heard = this.recent.get(key);
    if (this.closed || (heard !== undefined && heard >= since)) return Promise.resolve();
    return new Promise<void>((resolve) => {
      let set = this.waiters.get(key);
      if (set === undefined) {
        set = new Set();
        this.waiters.set(key, set);
      }
      const waiters = set;
      const done = (): void => {
        clearTimeout(timer);
        waiters.delete(done);
        if (waiters.size === 0 && this.waiters.get(key) === waiters) this.waiters.delete(key);
        resolve();
      };
      const timer = setTimeout(done, Math.max(1, Math.ceil(ms)));
      waiters.add(done);
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const set of [...this.waiters.values()]) for (const done of [...set]) done();
    this.waiters.clear();
    this.sub.disconnect();
  }

  private onMessage(message: string): void {
    if (message.startsWith('j ')) {
      const n = Number(message.slice(2));
      if (Number.isInteger(n) && n >= 1) this.onJoin(n);
      return;
    }
    const now = performance.now();
    if (this.recent.size >= RECENT_CAP) {
      for (const [k, at] of this.recent) if (now - at > RECENT_MS) this.recent.delete(k);
      if (this.recent.size >= RECENT_CAP) this.recent.clear();
    }
    this.recent.set(message, now);
    const set = this.waiters.get(message);
    if (set !== undefined) for (const done of [...set]) done();
  }
}
