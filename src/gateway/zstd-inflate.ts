/**
 * zstd-stream transport decompression (protocol §5.4): one decompression context per connection; every
 * WebSocket message carries exactly one gateway message, but the zstd frame stays open across messages (each
 * message ends with a flush, not a frame end), so a message is complete when its input is consumed and the
 * decoder has nothing more to give.
 *
 * Two implementations, both synchronous (messages are delivered inside `push`):
 * - zstd-napi (native): decodes into one reused output buffer per connection that grows to the largest
 *   message seen, then one Buffer#toString: a message costs its string and nothing else.
 * - fzstd (pure JS, always installed): blocks arrive through a callback as they complete; they are decoded to
 *   text as they come (streaming UTF-8, so a character split between blocks survives) and joined.
 */
import { GatewayDecodeError } from './errors.js';
import type { Inflater, InflaterSink } from './inflater.js';
import type { FzstdDecompress, FzstdModule, ZstdDecompressionContext, ZstdNapiBinding } from '../util/zstd.js';

const INITIAL_OUT = 64 * 1024;
/** A buffer grown past this for one huge message is dropped afterwards rather than kept per connection. */
const KEEP_OUT = 4 * 1024 * 1024;

export class ZstdNapiInflater implements Inflater {
  readonly implementation = 'zstd-napi' as const;
  readonly busy = false;
  private readonly ctx: ZstdDecompressionContext;
  private out = Buffer.allocUnsafe(INITIAL_OUT);
  private dead = false;

  constructor(
    binding: ZstdNapiBinding,
    private readonly sink: InflaterSink,
  ) {
    this.ctx = new binding.DCtx();
  }

  push(frame: Buffer): void {
    if (this.dead || frame.length === 0) return;
    let written = 0;
    let read = 0;
    let out = this.out;
    try {
      for (;;) {
        const [, produced, consumed] = this.ctx.decompressStream(
          written === 0 ? out : out.subarray(written),
          read === 0 ? frame : frame.subarray(read),
        );
        written += produced;
        read += consumed;
        // Input used up and room left over: the decoder has flushed everything this message holds.
        if (read === frame.length && written < out.length) break;
        if (written === out.length) {
          const bigger = Buffer.allocUnsafe(out.length * 2);
          out.copy(bigger, 0, 0, written);
          out = bigger;
        } else if (produced === 0 && consumed === 0) {
          this.fail('zstd-napi made no progress on a message');
          return;
        }
      }
    } catch (error) {
      this.fail(`zstd-napi decompression failed (${error instanceof Error ? error.message : String(error)})`, error);
      return;
    }
    this.out = out.length > KEEP_OUT ? Buffer.allocUnsafe(INITIAL_OUT) : out;
    if (written > 0) this.sink.message(out.toString('utf8', 0, written));
  }

  whenIdle(fn: () => void): void {
    fn();
  }

  destroy(): void {
    this.dead = true;
  }

  private fail(message: string, cause?: unknown): void {
    this.dead = true;
    this.sink.error(new GatewayDecodeError(message, cause === undefined ? undefined : { cause }));
  }
}

export class FzstdInflater implements Inflater {
  readonly implementation = 'fzstd' as const;
  readonly busy = false;
  private readonly stream: FzstdDecompress;
  private readonly utf8 = new TextDecoder('utf-8');
  private text = '';
  private dead = false;

  constructor(
    mod: FzstdModule,
    private readonly sink: InflaterSink,
  ) {
    this.stream = new mod.Decompress(this.onData);
  }

  private readonly onData = (chunk: Uint8Array): void => {
    // The chunk may be a view of fzstd's window, which later blocks overwrite: decode it now.
    this.text += this.utf8.decode(chunk, { stream: true });
  };

  push(frame: Buffer): void {
    if (this.dead || frame.length === 0) return;
    try {
      this.stream.push(frame);
    } catch (error) {
      this.dead = true;
      this.text = '';
      this.sink.error(
        new GatewayDecodeError(`fzstd decompression failed (${error instanceof Error ? error.message : String(error)})`, { cause: error }),
      );
      return;
    }
    const text = this.text + this.utf8.decode();
    this.text = '';
    if (text.length > 0) this.sink.message(text);
  }

  whenIdle(fn: () => void): void {
    fn();
  }

  destroy(): void {
    this.dead = true;
  }
}
