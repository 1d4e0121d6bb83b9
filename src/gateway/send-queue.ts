/**
 * Outbound rate limiting for one shard (protocol §8.1): at most `limit` sends per `windowMs` per connection
 * (120 per 60 s), and over it the service closes the connection with 4008.
 *
 * The queue keeps a sliding log of send times (a ring buffer, so counting costs no allocation), which is
 * stricter than any fixed window the service may use. `reserved` slots of every window are kept for
 * priority sends (heartbeats, IDENTIFY, RESUME): ordinary sends (member requests, presence updates) only use
 * `limit - reserved`, so a burst of them can never delay a heartbeat into a zombie verdict.
 *
 * Ordinary sends wait while the queue is closed (socket down, or not yet READY/RESUMED: anything but a
 * heartbeat before IDENTIFY is closed with 4003) and survive reconnects; priority sends are only made on a
 * live socket and never wait behind ordinary ones.
 *
 * The queue is bounded (`maxQueued` ordinary sends): while a shard is down for long, callers get a
 * `SendQueueFullError` at once instead of a backlog that grows without limit and is sent, minutes later, for
 * nobody. A queued send can be withdrawn (its caller gave up, e.g. a member request past its deadline).
 */
import { SendQueueFullError } from './errors.js';


export interface SendQueueOptions {
  /** Sends per window. Default 120. */
  limit?: number;
  /** Window length in ms. Default 60000. */
  windowMs?: number;
  /**
   * Extra spacing on top of the window. The service counts when sends arrive, this queue when they leave;
   * delivery and server-side delays can bring arrivals closer together than departures. Default: 2% of the
   * window, at least 100 ms.
   */
  marginMs?: number;
  /** Monotonic clock in ms. Default performance.now. */
  now?: () => number;
  /** Ordinary sends that may wait at once; more are refused with SendQueueFullError. Default 1000. */
  maxQueued?: number;
  /** Named in SendQueueFullError. */
  shardId?: number;
}

/** Default bound of waiting ordinary sends: over 8 minutes of the service's 120 per 60 s. */
export const DEFAULT_MAX_QUEUED_SENDS = 1000;

interface QueuedSend {
  text: string;
  onSent: ((error?: Error) => void) | undefined;
  /** Withdrawn by its caller before it was written: skipped. */
  cancelled: boolean;
}

const NOOP = (): void => undefined;

export class SendQueue {
  readonly limit: number;
  readonly windowMs: number;
  readonly marginMs: number;
  readonly maxQueued: number;
  private readonly shardId: number | null;
  private readonly now: () => number;
  /** Ordinary sends waiting and not withdrawn. */
  private live = 0;
  /** Ring buffer of the send times inside the window, oldest at `head`. */
  private readonly log: Float64Array;
  private head = 0;
  private count = 0;
  private reservedSlots = 1;
  private isOpen = false;
  private readonly queue: QueuedSend[] = [];
  private queueHead = 0;
  private readonly priorityQueue: string[] = [];
  private timer: NodeJS.Timeout | null = null;
  private writer: ((text: string) => void) | null = null;

  constructor(options: SendQueueOptions = {}) {
    this.limit = options.limit ?? 120;
    this.windowMs = options.windowMs ?? 60_000;
    if (!Number.isInteger(this.limit) || this.limit < 2) throw new RangeError('send limit must be an integer >= 2');
    if (!(this.windowMs > 0)) throw new RangeError('send window must be positive');
    this.marginMs = options.marginMs ?? Math.max(100, this.windowMs * 0.02);
    this.now = options.now ?? (() => performance.now());
    this.log = new Float64Array(this.limit);
    this.maxQueued = options.maxQueued ?? DEFAULT_MAX_QUEUED_SENDS;
    if (!Number.isInteger(this.maxQueued) || this.maxQueued < 1) throw new RangeError('maxQueued must be a positive integer');
    this.shardId = options.shardId ?? null;
  }

  /** Slots per window kept for priority sends, clamped so ordinary sends keep at least one. */
  get reserved(): number {
    return this.reservedSlots;
  }

  setReserved(slots: number): void {
    this.reservedSlots = Math.min(Math.max(1, Math.ceil(slots)), this.limit - 1);
  }

  /** Ordinary sends waiting. */
  get pending(): number {
    return this.live;
  }

  /** A new socket: its window starts empty. Priority sends go through `writer` from now on. */
  attach(writer: (text: string) => void): void {
    this.writer = writer;
    this.head = 0;
    this.count = 0;
    this.priorityQueue.length = 0;
    this.isOpen = false;
  }

  /** The socket is gone: nothing is written until the next `attach`. Ordinary sends stay queued. */
  detach(): void {
    this.writer = null;
    this.isOpen = false;
    this.priorityQueue.length = 0;
    this.clearTimer();
  }

  /** The session is READY/RESUMED: ordinary sends may flow. */
  open(): void {
    if (this.writer === null) return;
    this.isOpen = true;
    this.drain();
  }

  /** Heartbeat, IDENTIFY, RESUME: written now if the full limit allows, else as soon as a slot frees. */
  sendPriority(text: string): void {
    if (this.writer === null) return;
    if (this.priorityQueue.length === 0 && this.tryTake(this.limit)) {
      this.writer(text);
      return;
    }
    this.priorityQueue.push(text);
    this.schedule();
  }

  /**
   * An ordinary send. `onSent` runs once it is written, or with an error when the queue is full (at once) or
   * cleared. Returns a function that withdraws it while it has not been written.
   */
  enqueue(text: string, onSent?: (error?: Error) => void): () => void {
    if (this.live >= this.maxQueued) {
      onSent?.(new SendQueueFullError(this.shardId, this.maxQueued));
      return NOOP;
    }
    const item: QueuedSend = { text, onSent, cancelled: false };
    this.queue.push(item);
    this.live++;
    if (this.isOpen) this.drain();
    return () => {
      if (item.cancelled || item.onSent === NOOP) return;
      item.cancelled = true;
      this.live--;
      // Withdrawn items wait for the drain to skip them; while the socket is down for long, drop them sooner.
      if (this.queue.length - this.queueHead > 2 * this.live + 64) this.compact();
    };
  }

  private compact(): void {
    const kept = this.queue.slice(this.queueHead).filter((q) => q !== undefined && !q.cancelled);
    this.queue.length = 0;
    this.queue.push(...kept);
    this.queueHead = 0;
  }

  /** Drop every waiting ordinary send, telling each why. */
  clear(error: Error): void {
    this.clearTimer();
    const waiting = this.queue.splice(this.queueHead);
    this.queue.length = 0;
    this.queueHead = 0;
    this.live = 0;
    this.priorityQueue.length = 0;
    for (const item of waiting) {
      if (item.cancelled) continue;
      item.cancelled = true;
      item.onSent?.(error);
    }
  }

  private drain(): void {
    const writer = this.writer;
    if (writer === null) return;
    while (this.priorityQueue.length > 0) {
      if (!this.tryTake(this.limit)) return this.schedule();
      writer(this.priorityQueue.shift()!);
    }
    if (!this.isOpen) return;
    const ordinaryLimit = this.limit - this.reservedSlots;
    while (this.queueHead < this.queue.length) {
      const item = this.queue[this.queueHead]!;
      if (item.cancelled) {
        this.queue[this.queueHead] = undefined as unknown as QueuedSend;
        this.queueHead++;
        continue;
      }
      if (!this.tryTake(ordinaryLimit)) return this.schedule();
      this.queue[this.queueHead] = undefined as unknown as QueuedSend;
      this.queueHead++;
      this.live--;
      const onSent = item.onSent;
      // Written: withdrawing it is a no-op from here on.
      item.onSent = NOOP;
      writer(item.text);
      onSent?.();
      if (this.writer !== writer) break; // the write failed and the socket went away
    }
    if (this.queueHead === this.queue.length) {
      this.queue.length = 0;
      this.queueHead = 0;
    }
  }

  /** Record a send if fewer than `ceiling` happened inside the window. */
  private tryTake(ceiling: number): boolean {
    const now = this.now();
    this.expire(now);
    if (this.count >= ceiling) return false;
    this.log[(this.head + this.count) % this.limit] = now;
    this.count++;
    return true;
  }

  private expire(now: number): void {
    const cutoff = now - this.windowMs - this.marginMs;
    while (this.count > 0 && this.log[this.head]! <= cutoff) {
      this.head = (this.head + 1) % this.limit;
      this.count--;
    }
  }

  /** Wake up when the oldest send leaves the window. */
  private schedule(): void {
    if (this.timer !== null || this.count === 0) return;
    const wait = Math.max(0, this.log[this.head]! + this.windowMs + this.marginMs - this.now()) + 1;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.drain();
    }, wait);
    this.timer.unref?.();
  }

  private clearTimer(): void {
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
  }
}
