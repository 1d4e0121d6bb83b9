import { constants, createDeflate, type Deflate } from 'node:zlib';

/** A zlib-stream producer like the service's: one deflate context, every message ends with Z_SYNC_FLUSH. */
export class ZlibStreamWriter {
  private readonly deflate: Deflate = createDeflate({ flush: constants.Z_SYNC_FLUSH });
  private out: Buffer[] = [];

  constructor() {
    this.deflate.on('data', (chunk: Buffer) => this.out.push(chunk));
  }

  message(value: unknown): Promise<Buffer> {
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    return new Promise((resolve, reject) => {
      this.deflate.write(text, (error) => {
        if (error) return reject(error);
        const bytes = Buffer.concat(this.out);
        this.out = [];
        resolve(bytes);
      });
    });
  }

  close(): void {
    this.deflate.destroy();
  }
}

/** Split `bytes` into pieces at the given offsets. */
export function splitAt(bytes: Buffer, ...offsets: number[]): Buffer[] {
  const pieces: Buffer[] = [];
  let from = 0;
  for (const at of offsets) {
    pieces.push(bytes.subarray(from, at));
    from = at;
  }
  pieces.push(bytes.subarray(from));
  return pieces;
}
