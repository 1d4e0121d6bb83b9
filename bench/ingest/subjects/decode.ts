/**
 * How the floors turn one frame into its text: the bare transport decoder and nothing around it, zlib-sync
 * (Z_SYNC_FLUSH at each message's end) for zlib-stream, zstd-napi or fzstd for zstd-stream, Buffer#toString
 * for plain JSON. Shared by the decode floor (frames read from the frames file) and the wire floor (frames
 * read from the WebSocket), so that the two differ only in where the bytes come from and what is answered.
 */
import { createRequire } from 'node:module';
import type { ChildConfig } from '../protocol.js';
import { loadFzstd, loadZstdNapi } from '../../../src/util/zstd.js';

interface ZlibSync {
  Inflate: new (o: { chunkSize: number; to: 'string' }) => { push(b: Buffer, flush: number): void; result: string | null; err: number };
  Z_SYNC_FLUSH: number;
  Z_NO_FLUSH: number;
}

/** The text of a complete message, or null while a zlib-stream message is still incomplete. */
export type Decode = (frame: Buffer) => string | null;

/** One streaming decoder for one connection's (or the frames file's) frames, in order. */
export function frameDecoder(cfg: Pick<ChildConfig, 'transport' | 'decoder'>): Decode {
  if (cfg.transport === 'json') return (frame) => frame.toString();
  if (cfg.transport === 'zlib-stream') {
    const z = createRequire(import.meta.url)('zlib-sync') as ZlibSync;
    const inflate = new z.Inflate({ chunkSize: 64 * 1024, to: 'string' });
    return (frame) => {
      const n = frame.length;
      const complete = n >= 4 && frame[n - 4] === 0 && frame[n - 3] === 0 && frame[n - 2] === 0xff && frame[n - 1] === 0xff;
      inflate.push(frame, complete ? z.Z_SYNC_FLUSH : z.Z_NO_FLUSH);
      if (inflate.err < 0 && inflate.err !== -5) throw new Error(`inflate failed (${inflate.err})`);
      return complete ? inflate.result : null;
    };
  }
  if (cfg.decoder === 'fzstd') {
    const stream = new (loadFzstd()!.Decompress)();
    const utf8 = new TextDecoder();
    let text = '';
    stream.ondata = (chunk) => {
      text += utf8.decode(chunk, { stream: true });
    };
    return (frame) => {
      stream.push(frame);
      const out = text + utf8.decode();
      text = '';
      return out;
    };
  }
  const napi = loadZstdNapi();
  if (napi === null) throw new Error('the zstd floors need zstd-napi');
  const ctx = new napi.DCtx();
  let out = Buffer.allocUnsafe(1 << 20);
  return (frame) => {
    let written = 0;
    let read = 0;
    for (;;) {
      const [, produced, consumed] = ctx.decompressStream(written === 0 ? out : out.subarray(written), read === 0 ? frame : frame.subarray(read));
      written += produced;
      read += consumed;
      if (read === frame.length && written < out.length) break;
      if (written === out.length) {
        const bigger = Buffer.allocUnsafe(out.length * 2);
        out.copy(bigger, 0, 0, written);
        out = bigger;
      }
    }
    return out.toString('utf8', 0, written);
  };
}
