/**
 * Transport decompression (protocol §5.4): one context per connection, fed every binary frame.
 *
 * zlib-stream: a message is complete when the bytes so far end with the Z_SYNC_FLUSH suffix 00 00 ff ff.
 * Two implementations behind one interface, chosen per connection:
 * - zlib-sync (native, synchronous): messages are delivered inside `push`, decoded to a string in C++ from a
 *   reused output buffer, so a message costs no intermediate Buffer.
 * - node:zlib (always available): the only stateful inflate Node exposes is the stream API, which completes
 *   on the thread pool, so messages are delivered asynchronously, in order. `busy`/`whenIdle` let the
 *   connection hold a socket close back until every message that arrived before it has been handled.
 *
 * zstd-stream (zstd-inflate.ts): one message per WebSocket message; zstd-napi (native) or fzstd (pure JS).
 *
 * Every implementation reports a failure once, through `sink.error`, and ignores everything after it: the
 * connection is reset.
 */
import { createRequire } from 'node:module';
import zlib from 'node:zlib';
import { loadFzstd, loadZstdNapi } from '../util/zstd.js';
import { GatewayDecodeError } from './errors.js';
import { FzstdInflater, ZstdNapiInflater } from './zstd-inflate.js';

/** The transport compressions the gateway offers (the `compress` query parameter). */
export type TransportCompression = 'zlib-stream' | 'zstd-stream';
export const TRANSPORT_COMPRESSIONS: readonly TransportCompression[] = ['zlib-stream', 'zstd-stream'];

// The types live in inflater.ts so zstd-inflate.ts can implement them without importing this module back.
export type {
  InflateImplementation,
  InflatePreference,
  Inflater,
  InflaterSink,
  ZlibInflateImplementation,
  ZstdInflateImplementation,
} from './inflater.js';
import type { InflateImplementation, InflatePreference, Inflater, InflaterSink } from './inflater.js';

export type InflaterFactory = (sink: InflaterSink) => Inflater;

const CHUNK_SIZE = 64 * 1024;

/** True when the frame ends with 00 00 ff ff. */
export function endsWithSyncFlush(frame: Uint8Array): boolean {
  const n = frame.length;
  return n >= 4 && frame[n - 1] === 0xff && frame[n - 2] === 0xff && frame[n - 3] === 0 && frame[n - 4] === 0;
}

const SYNC_FLUSH_TAIL = 0x0000ffff;

/**
 * The last four bytes of the stream so far, as a 32-bit number, after `frame`. The suffix may itself be split
 * across frames, so completeness is a property of the stream, not of the last frame.
 */
function nextTail(tail: number, frame: Uint8Array): number {
  const n = frame.length;
  if (n >= 4) return ((frame[n - 4]! << 24) | (frame[n - 3]! << 16) | (frame[n - 2]! << 8) | frame[n - 1]!) >>> 0;
  let t = tail;
  for (let i = 0; i < n; i++) t = ((t << 8) | frame[i]!) >>> 0;
  return t;
}

// ---- zlib-sync --------------------------------------------------------------------------------------------

interface ZlibSyncInflate {
  readonly result: Buffer | string | null;
  readonly err: number;
  readonly msg: string | null;
  push(buffer: Buffer, flush?: boolean | number): void;
}
interface ZlibSyncModule {
  Inflate: new (options?: { chunkSize?: number; to?: 'string'; windowBits?: number }) => ZlibSyncInflate;
  Z_NO_FLUSH: number;
  Z_SYNC_FLUSH: number;
}

let zlibSyncModule: ZlibSyncModule | null | undefined;

/** zlib-sync if it is installed and its native part loads, else null. Looked up once. */
export function loadZlibSync(): ZlibSyncModule | null {
  if (zlibSyncModule === undefined) {
    try {
      const required: unknown = createRequire(import.meta.url)('zlib-sync');
      zlibSyncModule = isZlibSyncModule(required) ? required : null;
    } catch {
      zlibSyncModule = null;
    }
  }
  return zlibSyncModule;
}

function isZlibSyncModule(value: unknown): value is ZlibSyncModule {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { Inflate?: unknown }).Inflate === 'function' &&
    typeof (value as { Z_SYNC_FLUSH?: unknown }).Z_SYNC_FLUSH === 'number'
  );
}

class ZlibSyncInflater implements Inflater {
  readonly implementation = 'zlib-sync' as const;
  readonly busy = false;
  private readonly inflate: ZlibSyncInflate;
  private readonly noFlush: number;
  private readonly syncFlush: number;
  private tail = 0;
  private dead = false;

  constructor(
    mod: ZlibSyncModule,
    private readonly sink: InflaterSink,
  ) {
    this.inflate = new mod.Inflate({ chunkSize: CHUNK_SIZE, to: 'string' });
    this.noFlush = mod.Z_NO_FLUSH;
    this.syncFlush = mod.Z_SYNC_FLUSH;
  }

  push(frame: Buffer): void {
    if (this.dead || frame.length === 0) return;
    this.tail = nextTail(this.tail, frame);
    const complete = this.tail === SYNC_FLUSH_TAIL;
    // Partial frames inflate into the native output buffer, which keeps growing until the flush.
    this.inflate.push(frame, complete ? this.syncFlush : this.noFlush);
    const err = this.inflate.err;
    // Z_BUF_ERROR (-5) only means "no progress possible yet"; other negative codes are real failures.
    if (err < 0 && err !== -5) {
      this.fail(`zlib-sync inflate failed (${this.inflate.msg ?? `code ${err}`})`);
      return;
    }
    if (!complete) return;
    const result = this.inflate.result;
    if (typeof result !== 'string') {
      this.fail('zlib-sync produced no output for a complete message');
      return;
    }
    this.sink.message(result);
  }

  whenIdle(fn: () => void): void {
    fn();
  }

  destroy(): void {
    this.dead = true;
  }

  private fail(message: string): void {
    this.dead = true;
    this.sink.error(new GatewayDecodeError(message));
  }
}

// ---- node:zlib --------------------------------------------------------------------------------------------

class NodeZlibInflater implements Inflater {
  readonly implementation = 'node:zlib' as const;
  private readonly stream: zlib.Inflate;
  private out: Buffer[] = [];
  private pending = 0;
  private tail = 0;
  private idleWaiters: Array<() => void> = [];
  private dead = false;

  constructor(private readonly sink: InflaterSink) {
    // Z_SYNC_FLUSH on every write makes each write's output complete by the time its callback runs.
    this.stream = zlib.createInflate({ chunkSize: CHUNK_SIZE, flush: zlib.constants.Z_SYNC_FLUSH });
    this.stream.on('data', this.onData);
    this.stream.on('error', this.onError);
  }

  get busy(): boolean {
    return this.pending > 0;
  }

  push(frame: Buffer): void {
    if (this.dead || frame.length === 0) return;
    this.tail = nextTail(this.tail, frame);
    if (this.tail !== SYNC_FLUSH_TAIL) {
      this.stream.write(frame);
      return;
    }
    this.pending++;
    this.stream.write(frame, this.onMessageEnd);
  }

  whenIdle(fn: () => void): void {
    if (this.pending === 0 || this.dead) fn();
    else this.idleWaiters.push(fn);
  }

  destroy(): void {
    if (this.dead) return;
    this.dead = true;
    this.stream.off('data', this.onData);
    this.stream.destroy();
    this.releaseWaiters();
  }

  private readonly onData = (chunk: Buffer): void => {
    if (!this.dead) this.out.push(chunk);
  };

  private readonly onMessageEnd = (error?: Error | null): void => {
    if (this.dead || error) return; // the 'error' event reports it
    // Output still buffered in the readable side (not expected in flowing mode) is emitted as 'data' by read().
    while (this.stream.readableLength > 0 && this.stream.read() !== null);
    const out = this.out;
    const text = out.length === 1 ? out[0]!.toString() : Buffer.concat(out).toString();
    out.length = 0;
    this.pending--;
    this.sink.message(text);
    if (this.pending === 0 && this.idleWaiters.length > 0) this.releaseWaiters();
  };

  private readonly onError = (error: Error): void => {
    if (this.dead) return;
    this.dead = true;
    this.pending = 0;
    this.out.length = 0;
    this.sink.error(new GatewayDecodeError(`node:zlib inflate failed (${error.message})`, { cause: error }));
    this.releaseWaiters();
  };

  private releaseWaiters(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const fn of waiters) fn();
  }
}

// ---- selection --------------------------------------------------------------------------------------------

const ZLIB_IMPLEMENTATIONS: ReadonlySet<InflatePreference> = new Set(['zlib-sync', 'node:zlib']);
const ZSTD_IMPLEMENTATIONS: ReadonlySet<InflatePreference> = new Set(['zstd-napi', 'fzstd']);

/** The implementation `preference` resolves to on this machine for `transport`. */
export function resolveInflateImplementation(
  preference: InflatePreference = 'auto',
  transport: TransportCompression = 'zlib-stream',
): InflateImplementation {
  if (transport === 'zstd-stream') {
    if (ZLIB_IMPLEMENTATIONS.has(preference)) {
      throw new Error(`gateway inflate "${preference}" decodes zlib-stream, but the transport is zstd-stream; use "auto", "zstd-napi" or "fzstd".`);
    }
    if (preference !== 'fzstd' && loadZstdNapi() !== null) return 'zstd-napi';
    if (preference === 'zstd-napi') {
      throw new Error(
        'gateway inflate is "zstd-napi" but the zstd-napi package is not installed or its native module failed to load; ' +
          'install it or use "auto" / "fzstd".',
      );
    }
    if (loadFzstd() === null) throw new Error('zstd-stream needs the fzstd package (a dependency of gatehouse); reinstall dependencies.');
    return 'fzstd';
  }
  if (ZSTD_IMPLEMENTATIONS.has(preference)) {
    throw new Error(`gateway inflate "${preference}" decodes zstd-stream, but the transport is zlib-stream; use "auto", "zlib-sync" or "node:zlib".`);
  }
  if (preference === 'node:zlib') return 'node:zlib';
  if (loadZlibSync() !== null) return 'zlib-sync';
  if (preference === 'zlib-sync') {
    throw new Error(
      'gateway.inflate is "zlib-sync" but the zlib-sync package is not installed or its native module failed to load; ' +
        'install it or use "auto" / "node:zlib".',
    );
  }
  return 'node:zlib';
}

export function createInflater(
  sink: InflaterSink,
  preference: InflatePreference = 'auto',
  transport: TransportCompression = 'zlib-stream',
): Inflater {
  switch (resolveInflateImplementation(preference, transport)) {
    case 'zlib-sync':
      return new ZlibSyncInflater(loadZlibSync()!, sink);
    case 'node:zlib':
      return new NodeZlibInflater(sink);
    case 'zstd-napi':
      return new ZstdNapiInflater(loadZstdNapi()!, sink);
    case 'fzstd':
      return new FzstdInflater(loadFzstd()!, sink);
  }
}

/** A factory bound to one preference, resolved (and validated) now rather than at the first connection. */
export function inflaterFactory(
  preference: InflatePreference = 'auto',
  transport: TransportCompression = 'zlib-stream',
): InflaterFactory {
  const implementation = resolveInflateImplementation(preference, transport);
  return (sink) => createInflater(sink, implementation, transport);
}

/** `compress` as the options take it (true = zlib-stream, false = none) as a transport, or null. */
export function transportCompression(compress: boolean | TransportCompression | undefined): TransportCompression | null {
  if (compress === undefined || compress === true) return 'zlib-stream';
  if (compress === false) return null;
  return compress;
}
