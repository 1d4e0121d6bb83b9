/**
 * The workload's messages as the bytes a gateway sends, per transport, made once before anything is timed
 * and kept on disk (keyed by workload and transport), so that every run of every subject gets the very same
 * bytes and the server only copies them to the socket.
 *
 * - zlib-stream: one deflate stream (zlib default level 6), every message ending with Z_SYNC_FLUSH.
 * - zstd-stream: one zstd stream (zstd default level 3), every message ending with ZSTD_e_flush.
 * - json: text frames.
 *
 * Heartbeat ACKs cannot be compressed ahead of time at a position nobody knows, so the stream has reset
 * points: after HELLO, after the startup burst, every RESET_EVERY live events and at the end. There the
 * compressor forgets its history (zlib Z_FULL_FLUSH; zstd ends its frame and the next message opens a new
 * one), and an ACK compressed on its own (raw deflate block / a complete zstd frame) may be inserted without
 * disturbing what follows. The cost is one lost compression window per RESET_EVERY events.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { constants, createDeflate, deflateRawSync, type Deflate } from 'node:zlib';
import { loadZstdNapi } from '../../src/util/zstd.js';
import type { ExpectedState, IngestWorkload } from './workload.js';

export type Transport = 'zlib-stream' | 'zstd-stream' | 'json';
export const TRANSPORTS: readonly Transport[] = ['zlib-stream', 'json', 'zstd-stream'];

export const RESET_EVERY = 512;
const ACK = '{"t":null,"s":null,"op":11,"d":null}';
const FORMAT_VERSION = 1;

/** Frames of one transport: index 0 is HELLO, then `startup` frames, then `events` frames. */
export interface TransportFrames {
  transport: Transport;
  /** Every frame, back to back. */
  data: Buffer;
  /** End offset of each frame in `data`. */
  ends: Uint32Array;
  startupCount: number;
  eventCount: number;
  /** A heartbeat ACK that may be sent at any reset point. */
  ack: Buffer;
  binary: boolean;
}

export interface FrameIndex {
  version: number;
  transport: Transport;
  startupCount: number;
  eventCount: number;
  ends: number[];
  ack: string;
  binary: boolean;
}

export function frameAt(frames: TransportFrames, i: number): Buffer {
  const start = i === 0 ? 0 : frames.ends[i - 1]!;
  return frames.data.subarray(start, frames.ends[i]!);
}

/** Frame i (0 = HELLO) is followed by a reset point. */
export function isResetPoint(frames: TransportFrames, i: number): boolean {
  if (i <= frames.startupCount) return i === 0 || i === frames.startupCount;
  const k = i - frames.startupCount; // 1-based event number
  return k % RESET_EVERY === 0 || k === frames.eventCount;
}

export function bytesOf(frames: TransportFrames, from: number, to: number): number {
  return (to === 0 ? 0 : frames.ends[to - 1]!) - (from === 0 ? 0 : frames.ends[from - 1]!);
}

/** Where the workload's files live: one folder per workload (options hash). */
export function workloadDir(workload: IngestWorkload): string {
  const hash = createHash('sha256').update(JSON.stringify({ v: FORMAT_VERSION, o: workload.options })).digest('hex').slice(0, 16);
  return join(tmpdir(), `gatehouse-ingest-bench-${hash}`);
}

export function transportAvailable(transport: Transport): boolean {
  return transport !== 'zstd-stream' || loadZstdNapi() !== null;
}

/** Load the frames from disk, building (and storing) every transport's frames and the expected state first if needed. */
export async function prepare(workload: IngestWorkload, transports: readonly Transport[], log: (line: string) => void): Promise<ExpectedState> {
  const dir = workloadDir(workload);
  mkdirSync(dir, { recursive: true });
  const expectedPath = join(dir, 'expected.json');
  const missing = transports.filter((t) => !existsSync(join(dir, `${t}.json`)));
  if (missing.length === 0 && existsSync(expectedPath)) return JSON.parse(readFileSync(expectedPath, 'utf8')) as ExpectedState;
  const started = Date.now();
  const messages = workload.build();
  log(`workload built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const all = [messages.hello, ...messages.startup, ...messages.events];
  for (const transport of missing) {
    const t0 = Date.now();
    const frames = await encode(transport, all, messages.startup.length, messages.events.length);
    store(dir, frames);
    log(`${transport}: ${(frames.data.length / 1048576).toFixed(1)} MiB of frames made in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
  atomicWrite(expectedPath, JSON.stringify(messages.expected));
  return messages.expected;
}

export function load(dir: string, transport: Transport): TransportFrames {
  const index = JSON.parse(readFileSync(join(dir, `${transport}.json`), 'utf8')) as FrameIndex;
  if (index.version !== FORMAT_VERSION) throw new Error(`${dir}/${transport}.json is of an older format; delete the folder`);
  return {
    transport,
    data: readFileSync(join(dir, `${transport}.bin`)),
    ends: Uint32Array.from(index.ends),
    startupCount: index.startupCount,
    eventCount: index.eventCount,
    ack: Buffer.from(index.ack, 'base64'),
    binary: index.binary,
  };
}

function store(dir: string, frames: TransportFrames): void {
  atomicWrite(join(dir, `${frames.transport}.bin`), frames.data);
  const index: FrameIndex = {
    version: FORMAT_VERSION,
    transport: frames.transport,
    startupCount: frames.startupCount,
    eventCount: frames.eventCount,
    ends: Array.from(frames.ends),
    ack: frames.ack.toString('base64'),
    binary: frames.binary,
  };
  atomicWrite(join(dir, `${frames.transport}.json`), JSON.stringify(index));
}

function atomicWrite(path: string, data: string | Buffer): void {
  writeFileSync(`${path}.tmp`, data);
  renameSync(`${path}.tmp`, path);
}

/** The frames of `messages` (HELLO, then `startupCount` startup messages, then `eventCount` events) for one transport. */
export async function encode(transport: Transport, messages: string[], startupCount: number, eventCount: number): Promise<TransportFrames> {
  const parts: Buffer[] = [];
  const shell: TransportFrames = {
    transport,
    data: Buffer.alloc(0),
    ends: new Uint32Array(messages.length),
    startupCount,
    eventCount,
    ack: Buffer.alloc(0),
    binary: transport !== 'json',
  };
  let offset = 0;
  const push = (i: number, frame: Buffer): void => {
    parts.push(frame);
    offset += frame.length;
    shell.ends[i] = offset;
  };
  if (transport === 'json') {
    messages.forEach((m, i) => push(i, Buffer.from(m)));
    shell.ack = Buffer.from(ACK);
  } else if (transport === 'zlib-stream') {
    const deflate = createDeflate({ chunkSize: 256 * 1024 });
    let out: Buffer[] = [];
    deflate.on('data', (chunk: Buffer) => out.push(chunk));
    for (let i = 0; i < messages.length; i++) {
      deflate.write(messages[i]!);
      await flush(deflate, isResetPoint(shell, i) ? constants.Z_FULL_FLUSH : constants.Z_SYNC_FLUSH);
      push(i, out.length === 1 ? out[0]! : Buffer.concat(out));
      out = [];
    }
    deflate.destroy();
    // A raw deflate block with no history, ending with the sync-flush suffix like every message.
    shell.ack = deflateRawSync(ACK, { finishFlush: constants.Z_SYNC_FLUSH });
  } else {
    const zstd = loadZstdNapi();
    if (zstd === null) throw new Error('zstd-stream frames need the optional zstd-napi package');
    const ctx = new zstd.CCtx();
    ctx.setParameter(zstd.CParameter.compressionLevel, 3);
    let scratch = Buffer.allocUnsafe(1 << 20);
    for (let i = 0; i < messages.length; i++) {
      const src = Buffer.from(messages[i]!);
      if (scratch.length < src.length + 65536) scratch = Buffer.allocUnsafe(src.length * 2 + 65536);
      const op = isResetPoint(shell, i) ? zstd.EndDirective.end : zstd.EndDirective.flush;
      const [remaining, produced, consumed] = ctx.compressStream2(scratch, src, op);
      if (remaining !== 0 || consumed !== src.length) throw new Error('zstd output buffer too small');
      push(i, Buffer.from(scratch.subarray(0, produced)));
    }
    const ackCtx = new zstd.CCtx();
    ackCtx.setParameter(zstd.CParameter.compressionLevel, 3);
    const [, produced] = ackCtx.compressStream2(scratch, Buffer.from(ACK), zstd.EndDirective.end);
    shell.ack = Buffer.from(scratch.subarray(0, produced));
  }
  shell.data = Buffer.concat(parts);
  return shell;
}

function flush(deflate: Deflate, kind: number): Promise<void> {
  return new Promise((resolve) => deflate.flush(kind, () => resolve()));
}
