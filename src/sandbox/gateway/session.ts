/**
 * A gateway session: what IDENTIFY starts and RESUME continues. It outlives its connection: dispatches
 * that happen while the client is away are sequenced and buffered, and replayed on RESUME (protocol §7.4).
 */
import { randomBytes } from 'node:crypto';

/** What a session sends through; the connection class is a parameter so this module need not import it back. */
export interface SessionSocket {
  sendDispatch(t: string, s: number, d: string | Buffer): void;
}

export class Session<C extends SessionSocket = SessionSocket> {
  readonly id = randomBytes(16).toString('hex');
  seq = 0;
  connection: C | null = null;
  /** Set when the session can no longer be resumed. */
  invalid = false;
  expiry: NodeJS.Timeout | null = null;
  /** Replay buffer: payloads[i] / types[i] have sequence number firstSeq + i - head. Payloads are shared, not copied. */
  private payloads: Array<string | Buffer> = [];
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
    private readonly bufferBytes: number = 64 * 1024 * 1024,
  ) {}

  /** Bytes of JSON held for replay. */
  private held = 0;

  /** Sequence the dispatch, keep it for replay, and send it if a connection is attached. `d` is JSON. */
  dispatch(t: string, d: string | Buffer): void {
    const s = ++this.seq;
    this.payloads.push(d);
    this.types.push(t);
    this.held += d.length;
    // Bounded by count and by bytes (member chunks are large); the newest dispatch always stays.
    while (this.payloads.length - this.head > 1 && (this.payloads.length - this.head > this.bufferSize || this.held > this.bufferBytes)) {
      this.held -= this.payloads[this.head]!.length;
      this.payloads[this.head] = '';
      this.head++;
      this.firstSeq++;
    }
    // Compact now and then so the arrays do not grow without bound.
    if (this.head > 4096 && this.head * 2 > this.payloads.length) {
      this.payloads = this.payloads.slice(this.head);
      this.types = this.types.slice(this.head);
      this.head = 0;
    }
    this.connection?.sendDispatch(t, s, d);
  }

  /** Whether dispatches after `seq` are all still buffered. */
  canReplayFrom(seq: number): boolean {
    return seq >= this.firstSeq - 1 && seq <= this.seq;
  }

  /** Call `send` for every buffered dispatch with s > seq, in order. */
  replay(seq: number, send: (t: string, s: number, d: string | Buffer) => void): number {
    let n = 0;
    for (let s = seq + 1; s <= this.seq; s++) {
      const i = this.head + (s - this.firstSeq);
      send(this.types[i]!, s, this.payloads[i]!);
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
