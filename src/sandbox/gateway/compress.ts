/**
 * zlib-stream transport compression, server side (reference §5.4): one deflate context per connection,
 * every message ends with a Z_SYNC_FLUSH (so its output ends with 00 00 ff ff). Messages complete in the
 * order they were written; the caller gets each message's bytes through its callback.
 */
import { constants, createDeflate, type Deflate } from 'node:zlib';

export const SYNC_FLUSH_SUFFIX = Buffer.from([0x00, 0x00, 0xff, 0xff]);

export class ZlibStreamEncoder {
  private readonly deflate: Deflate;
  private pending: Buffer[] = [];
  private closed = false;

  constructor(level: number) {
    // Each write is its own flush boundary: the default flush flag makes every write end in Z_SYNC_FLUSH.
    this.deflate = createDeflate({ level, flush: constants.Z_SYNC_FLUSH, chunkSize: 64 * 1024 });
    this.deflate.on('data', (chunk: Buffer) => this.pending.push(chunk));
    this.deflate.on('error', () => {
      this.closed = true;
    });
  }

  /** Compress one message; `done` receives exactly that message's bytes, in write order. */
  encode(message: string | Buffer, done: (out: Buffer) => void): void {
    if (this.closed) return;
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

/**
 * Bytes that no inflater accepts: a final block header with the reserved block type 11 ("invalid block
 * type"), followed by a sync-flush suffix so that clients try to inflate it at once.
 */
export function corruptZlibFrame(): Buffer {
  return Buffer.from([0x07, 0xde, 0xad, 0xbe, 0xef, 0x00, 0x00, 0xff, 0xff]);
}
