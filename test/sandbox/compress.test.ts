import { constants, createInflate } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createStreamEncoder, createZlibStreamEncoder, SYNC_FLUSH_SUFFIX, zstdStreamAvailable } from '../../src/sandbox/gateway/compress.js';
import { loadZstdNapi } from '../../src/util/zstd.js';
import { splitFrames } from '../../src/sandbox/gateway/connection.js';

/** Inflate a zlib-stream message by message through one context, like a client. */
async function inflateAll(frames: Buffer[]): Promise<string[]> {
  const inflate = createInflate({ flush: constants.Z_SYNC_FLUSH });
  let out: Buffer[] = [];
  inflate.on('data', (c: Buffer) => out.push(c));
  const messages: string[] = [];
  for (const f of frames) {
    await new Promise<void>((resolve, reject) => inflate.write(f, (e) => (e ? reject(e) : resolve())));
    messages.push(Buffer.concat(out).toString('utf8'));
    out = [];
  }
  return messages;
}

async function encodeAll(forceAsync: boolean, messages: Array<Array<string | Buffer>>): Promise<Buffer[]> {
  const encoder = createZlibStreamEncoder(1, forceAsync);
  const frames: Buffer[] = [];
  await new Promise<void>((resolve) => {
    messages.forEach((parts, i) =>
      encoder.encode(parts, (out) => {
        frames.push(out);
        if (i === messages.length - 1) resolve();
      }),
    );
  });
  encoder.close();
  return frames;
}

describe('zlib-stream encoder', () => {
  const big = JSON.stringify({ members: Array.from({ length: 20_000 }, (_, i) => ({ id: String(1e17 + i), name: `m${i} ✓` })) });
  const messages: Array<Array<string | Buffer>> = [
    ['{"op":10,"d":{"heartbeat_interval":41250}}'],
    ['{"t":"X","s":1,"op":0,"d":', Buffer.from('{"a":"ü"}'), '}'],
    [`{"t":"BIG","s":2,"op":0,"d":${big}}`],
    ['{"op":11}'],
  ];
  const expected = messages.map((parts) => parts.map((p) => p.toString()).join(''));

  for (const forceAsync of [false, true]) {
    it(`${forceAsync ? 'async fallback' : 'synchronous'}: every message ends with 00 00 ff ff and inflates through one context`, async () => {
      const encoder = createZlibStreamEncoder(1, forceAsync);
      expect(encoder.synchronous).toBe(!forceAsync);
      encoder.close();
      const frames = await encodeAll(forceAsync, messages);
      expect(frames).toHaveLength(messages.length);
      for (const f of frames) expect(f.subarray(-4).equals(SYNC_FLUSH_SUFFIX)).toBe(true);
      expect(await inflateAll(frames)).toEqual(expected);
    });
  }

  it('splits a message into frames where only the last one ends with the suffix', () => {
    const out = Buffer.concat([Buffer.alloc(10, 1), Buffer.from([0, 0, 0xff, 0xff]), Buffer.alloc(7, 2), SYNC_FLUSH_SUFFIX]);
    for (const max of [1, 3, 5, 14, 64]) {
      const parts = splitFrames(out, max);
      expect(Buffer.concat(parts).equals(out)).toBe(true);
      parts.forEach((p, i) => expect(p.subarray(-4).equals(SYNC_FLUSH_SUFFIX)).toBe(i === parts.length - 1));
    }
  });
});

describe.runIf(zstdStreamAvailable())('zstd-stream encoder', () => {
  it('flushes every message without ending the frame: one magic number, and each message decodes when it arrives', () => {
    const encoder = createStreamEncoder('zstd-stream', { zlibLevel: 1 });
    const messages = [['{"op":10}'], ['{"t":"X","s":1,"op":0,"d":', Buffer.from('{"a":"ü"}'), '}'], ['{"op":11}']];
    const frames: Buffer[] = [];
    for (const parts of messages) encoder.encode(parts, (out) => frames.push(Buffer.from(out)));
    encoder.close();
    expect(frames).toHaveLength(3);
    // The zstd magic number 28 b5 2f fd opens the stream once; later messages continue the same frame.
    expect(frames[0]!.readUInt32LE(0)).toBe(0xfd2fb528);
    expect(frames.slice(1).every((f) => f.readUInt32LE(0) !== 0xfd2fb528)).toBe(true);
    const { DCtx } = loadZstdNapi()!;
    const ctx = new DCtx();
    const out = Buffer.alloc(1024);
    const texts = frames.map((f) => {
      const [, produced, consumed] = ctx.decompressStream(out, f);
      expect(consumed).toBe(f.length);
      return out.toString('utf8', 0, produced);
    });
    expect(texts).toEqual(messages.map((parts) => parts.map((p) => p.toString()).join('')));
  });
});
