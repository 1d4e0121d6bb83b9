/**
 * A gateway session: what IDENTIFY starts and RESUME continues. It outlives its connection: dispatches
 * that happen while the client is away are sequenced and buffered, and replayed on RESUME (reference §7.4).
 */
import { randomBytes } from 'node:crypto';
import type { Connection } from './connection.js';

export class Session {
  readonly id = randomBytes(16).toString('hex');
  seq = 0;
  connection: Connection | null = null;
  /** Set when the session can no longer be resumed. */
  invalid = false;
  expiry: NodeJS.Timeout | null = null;
  /** Replay buffer: frames[i] has sequence number firstSeq + i - head. */
  private frames: string[] = [];
  private types: string[] = [];
  private head = 0;
  private firstSeq = 1;

  constructor(
    readonly shardId: number,
    readonly shardCount: number,
    readonly intents: number,
    readonly largeThreshold: number,
    /** Whether IDENTIFY named a shard (READY echoes it only then). */
    readonly shardGiven: boolean,
    private readonly bufferSize: number,
  ) {}

  /** Sequence the dispatch, keep it for replay, and send it if a connection is attached. */
  dispatch(t: string, d: string): void {
    const s = ++this.seq;
    const frame = `{"t":"${t}","s":${s},"op":0,"d":${d}}`;
    this.frames.push(frame);
    this.types.push(t);
    if (this.frames.length - this.head > this.bufferSize) {
      this.head++;
      this.firstSeq++;
      // Compact now and then so the arrays do not grow without bound.
      if (this.head > 4096 && this.head * 2 > this.frames.length) {
        this.frames = this.frames.slice(this.head);
        this.types = this.types.slice(this.head);
        this.head = 0;
      }
    }
    this.connection?.sendDispatch(frame, t, s);
  }

  /** Whether dispatches after `seq` are all still buffered. */
  canReplayFrom(seq: number): boolean {
    return seq >= this.firstSeq - 1 && seq <= this.seq;
  }

  /** Call `send` for every buffered dispatch with s > seq, in order. */
  replay(seq: number, send: (frame: string, t: string, s: number) => void): number {
    let n = 0;
    for (let s = seq + 1; s <= this.seq; s++) {
      const i = this.head + (s - this.firstSeq);
      send(this.frames[i]!, this.types[i]!, s);
      n++;
    }
    return n;
  }

  clearExpiry(): void {
    if (this.expiry !== null) {
      clearTimeout(this.expiry);
      this.expiry = null;
    }
  }
}
