/**
 * Transport compression, server side (protocol §5.4).
 *
 * zstd-stream: one zstd compression stream per connection, flushed (ZSTD_e_flush, the frame stays open) after
 * every message, which goes out as one WebSocket message. Only the native zstd-napi binding compresses, so the
 * sandbox offers zstd-stream only where that optional package is installed (`zstdStreamAvailable()`).
 *
 * zlib-stream: one deflate context per connection, every message ends with a Z_SYNC_FLUSH (so its output ends
 * with 00 00 ff ff).
 *
 * Two implementations behind one interface:
 *  - synchronous: drives the deflate handle of a node:zlib stream directly (`_handle.writeSync`, the call
 *    node:zlib's own *Sync functions make) without closing it after each message. A few microseconds per
 *    message instead of a thread-pool round trip: this is what lets the sandbox out-send its clients.
 *  - asynchronous: the public stream API, used when the Node.js internals are not there. Messages still
 *    complete in write order.
 */
import { constants, createDeflate, type Deflate } from 'node:zlib';
import { loadZstdNapi, type ZstdCompressionContext, type ZstdNapiBinding } from '../../util/zstd.js';

export const SYNC_FLUSH_SUFFIX = Buffer.from([0x00, 0x00, 0xff, 0xff]);
const CHUNK = 64 * 1024;
/** Largest reused encoding buffer per connection. */
const MAX_SCRATCH = 1024 * 1024;

export type StreamCompression = 'zlib-stream' | 'zstd-stream';

/** One connection's compressor: a message in, its bytes (one WebSocket message's worth, or more for zlib) out. */
export interface StreamEncoder {
  readonly synchronous: boolean;
  /**
   * Compress one message given as consecutive parts (so that a cached payload is never copied into a frame
   * string); `done` receives exactly its bytes, in write order (at once when synchronous).
   */
  encode(parts: ReadonlyArray<string | Buffer>, done: (out: Buffer) => void): void;
  close(): void;
}

export type ZlibStreamEncoder = StreamEncoder;

/** The native handle behind a node:zlib stream (internal API, feature-detected). */
interface NativeZlibHandle {
  writeSync(flush: number, input: Buffer, inOff: number, inLen: number, out: Buffer, outOff: number, outLen: number): void;
}

class SyncDeflateEncoder implements ZlibStreamEncoder {
  readonly synchronous = true;
  private out = Buffer.allocUnsafe(CHUNK);
  private offset = 0;
  private closed = false;

  constructor(
    private readonly stream: Deflate,
    private readonly handle: NativeZlibHandle,
    private readonly state: Uint32Array,
  ) {
    stream.on('error', () => {
      this.closed = true;
    });
  }

  encode(parts: ReadonlyArray<string | Buffer>, done: (out: Buffer) => void): void {
    if (this.closed) return;
    const out: Buffer[] = [];
    const last = parts.length - 1;
    for (let p = 0; p <= last; p++) {
      const part = parts[p]!;
      const flush = p === last ? constants.Z_SYNC_FLUSH : constants.Z_NO_FLUSH;
      if (!this.write(typeof part === 'string' ? this.utf8(part) : part, flush, out)) return;
    }
    done(out.length === 1 ? out[0]! : Buffer.concat(out));
  }

  /** Strings are encoded into one reused scratch buffer: zlib copies its input, so nothing keeps a reference. */
  private scratch = Buffer.allocUnsafe(CHUNK);

  private utf8(text: string): Buffer {
    // UTF-8 takes at most 3 bytes per UTF-16 code unit. Huge messages get their own buffer.
    if (text.length * 3 > MAX_SCRATCH) return Buffer.from(text);
    if (text.length * 3 > this.scratch.length) {
      let size = this.scratch.length;
      while (size < text.length * 3) size *= 2;
      this.scratch = Buffer.allocUnsafe(size);
    }
    const n = this.scratch.write(text, 0, 'utf8');
    return this.scratch.subarray(0, n);
  }

  private write(input: Buffer, flush: number, out: Buffer[]): boolean {
    let inOff = 0;
    let availIn = input.length;
    for (;;) {
      const availOutBefore = this.out.length - this.offset;
      this.handle.writeSync(flush, input, inOff, availIn, this.out, this.offset, availOutBefore);
      if (this.stream.destroyed) {
        this.closed = true;
        return false;
      }
      const availOutAfter = this.state[0]!;
      const availInAfter = this.state[1]!;
      const have = availOutBefore - availOutAfter;
      // Views handed out are never written again: the offset only moves forward, then a new buffer comes.
      if (have > 0) out.push(this.out.subarray(this.offset, this.offset + have));
      this.offset += have;
      inOff += availIn - availInAfter;
      availIn = availInAfter;
      if (availOutAfter === 0 || this.offset >= this.out.length) {
        this.out = Buffer.allocUnsafe(CHUNK);
        this.offset = 0;
      }
      // Output space left over means this input is consumed (and, with a flush, flushed).
      if (availOutAfter !== 0) return true;
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.stream.close();
  }
}

class AsyncDeflateEncoder implements ZlibStreamEncoder {
  readonly synchronous = false;
  private readonly deflate: Deflate;
  private pending: Buffer[] = [];
  private closed = false;

  constructor(level: number) {
    // Each write is its own flush boundary: the default flush flag makes every write end in Z_SYNC_FLUSH.
    this.deflate = createDeflate({ level, flush: constants.Z_SYNC_FLUSH, chunkSize: CHUNK });
    this.deflate.on('data', (chunk: Buffer) => this.pending.push(chunk));
    this.deflate.on('error', () => {
      this.closed = true;
    });
  }

  encode(parts: ReadonlyArray<string | Buffer>, done: (out: Buffer) => void): void {
    if (this.closed) return;
    const message = parts.length === 1 ? parts[0]! : Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)));
    this.deflate.write(message, () => {
      // Output of this write was emitted ('data') before its callback; take it all.
      const out = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending);
      this.pending = [];
      if (!this.closed) done(out);
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.deflate.destroy();
  }
}

/** The fastest encoder this Node.js offers; `forceAsync` for tests of the fallback. */
export function createZlibStreamEncoder(level: number, forceAsync = false): ZlibStreamEncoder {
  if (!forceAsync) {
    const stream = createDeflate({ level, chunkSize: CHUNK });
    const internals = stream as unknown as { _handle?: Partial<NativeZlibHandle> | null; _writeState?: unknown };
    const handle = internals._handle;
    const state = internals._writeState;
    if (handle && typeof handle.writeSync === 'function' && state instanceof Uint32Array && state.length >= 2) {
      return new SyncDeflateEncoder(stream, handle as NativeZlibHandle, state);
    }
    stream.destroy();
  }
  return new AsyncDeflateEncoder(level);
}

/**
 * Bytes that no inflater accepts: a final block header with the reserved block type 11 ("invalid block
 * type"), followed by a sync-flush suffix so that clients try to inflate it at once.
 */
export function corruptZlibFrame(): Buffer {
  return Buffer.from([0x07, 0xde, 0xad, 0xbe, 0xef, 0x00, 0x00, 0xff, 0xff]);
}

// ---- zstd-stream --------------------------------------------------------------------------------------------

/** Whether this installation can serve zstd-stream (the optional zstd-napi binding loads). */
export function zstdStreamAvailable(): boolean {
  return loadZstdNapi() !== null;
}

class ZstdStreamEncoder implements StreamEncoder {
  readonly synchronous = true;
  private readonly ctx: ZstdCompressionContext;
  private readonly flush: number;
  private readonly continueOp: number;
  private out = Buffer.allocUnsafe(CHUNK);
  private offset = 0;
  private scratch = Buffer.allocUnsafe(CHUNK);
  private closed = false;

  constructor(binding: ZstdNapiBinding, level: number) {
    this.ctx = new binding.CCtx();
    this.ctx.setParameter(binding.CParameter.compressionLevel, level);
    this.flush = binding.EndDirective.flush;
    this.continueOp = binding.EndDirective.continue;
  }

  encode(parts: ReadonlyArray<string | Buffer>, done: (out: Buffer) => void): void {
    if (this.closed) return;
    const out: Buffer[] = [];
    const last = parts.length - 1;
    for (let p = 0; p <= last; p++) {
      const part = parts[p]!;
      this.write(typeof part === 'string' ? this.utf8(part) : part, p === last ? this.flush : this.continueOp, out);
    }
    done(out.length === 1 ? out[0]! : Buffer.concat(out));
  }

  private utf8(text: string): Buffer {
    if (text.length * 3 > MAX_SCRATCH) return Buffer.from(text);
    if (text.length * 3 > this.scratch.length) {
      let size = this.scratch.length;
      while (size < text.length * 3) size *= 2;
      this.scratch = Buffer.allocUnsafe(size);
    }
    return this.scratch.subarray(0, this.scratch.write(text, 0, 'utf8'));
  }

  /** Feed `input`; with the flush directive, loop until zstd reports nothing left to flush. */
  private write(input: Buffer, op: number, out: Buffer[]): void {
    let read = 0;
    for (;;) {
      const [remaining, produced, consumed] = this.ctx.compressStream2(
        this.out.subarray(this.offset),
        read === 0 ? input : input.subarray(read),
        op,
      );
      // Views handed out are never written again: the offset only moves forward, then a new buffer comes.
      if (produced > 0) out.push(this.out.subarray(this.offset, this.offset + produced));
      this.offset += produced;
      read += consumed;
      if (this.out.length - this.offset < 1024) {
        this.out = Buffer.allocUnsafe(CHUNK);
        this.offset = 0;
      }
      if (read === input.length && (op === this.continueOp || remaining === 0)) return;
    }
  }

  close(): void {
    this.closed = true;
  }
}

/** The encoder for a connection that asked for `compression`. zstd-stream needs zstdStreamAvailable(). */
export function createStreamEncoder(compression: StreamCompression, options: { zlibLevel: number; zstdLevel?: number; forceAsync?: boolean }): StreamEncoder {
  if (compression === 'zlib-stream') return createZlibStreamEncoder(options.zlibLevel, options.forceAsync === true);
  const binding = loadZstdNapi();
  if (binding === null) throw new Error('zstd-stream needs the optional zstd-napi package, which is not installed here');
  return new ZstdStreamEncoder(binding, options.zstdLevel ?? ZSTD_SANDBOX_LEVEL);
}

/** zstd level of the sandbox: 1 favours send speed, as zlib level 1 does. */
export const ZSTD_SANDBOX_LEVEL = 1;

/**
 * Bytes no zstd decoder accepts, in a frame or between frames: a block header with the reserved block type 3
 * (and, read as a frame start, no zstd magic number).
 */
export function corruptZstdFrame(): Buffer {
  return Buffer.from([0x06, 0x00, 0x00, 0xde, 0xad, 0xbe, 0xef]);
}
