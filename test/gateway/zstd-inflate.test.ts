/**
 * zstd-stream decoders against the sandbox's zstd-stream encoder (one open frame per connection, flushed after
 * every message), and against zstd-napi's own streaming compressor where messages end a frame.
 */
import { describe, expect, it } from 'vitest';
import { createInflater, resolveInflateImplementation, type ZstdInflateImplementation } from '../../src/gateway/inflate.js';
import type { GatewayDecodeError } from '../../src/gateway/errors.js';
import { corruptZstdFrame, createStreamEncoder } from '../../src/sandbox/gateway/compress.js';
import { loadZstdNapi } from '../../src/util/zstd.js';

const napi = loadZstdNapi();

class Collector {
  texts: string[] = [];
  errors: GatewayDecodeError[] = [];
  message = (text: string): void => void this.texts.push(text);
  error = (error: GatewayDecodeError): void => void this.errors.push(error);
}

function encodeAll(messages: string[]): Buffer[] {
  const encoder = createStreamEncoder('zstd-stream', { zlibLevel: 1 });
  const frames: Buffer[] = [];
  for (const m of messages) encoder.encode([m], (out) => frames.push(Buffer.from(out)));
  encoder.close();
  return frames;
}

const big = JSON.stringify({ members: Array.from({ length: 40_000 }, (_, i) => ({ id: String(1e17 + i), name: `m${i} ✓ 日本` })) });
const messages = [
  '{"t":null,"s":null,"op":10,"d":{"heartbeat_interval":41250}}',
  '{"t":"X","s":1,"op":0,"d":{"a":"ü€😀"}}',
  `{"t":"BIG","s":2,"op":0,"d":${big}}`,
  '{"t":null,"s":null,"op":11,"d":null}',
  `{"t":"BIG","s":3,"op":0,"d":${big}}`,
];

describe('zstd-stream decoder selection', () => {
  it.runIf(napi !== null)('prefers zstd-napi on auto when it loads, and takes fzstd when asked', () => {
    expect(resolveInflateImplementation('auto', 'zstd-stream')).toBe('zstd-napi');
    expect(resolveInflateImplementation('fzstd', 'zstd-stream')).toBe('fzstd');
  });

  it('refuses a zlib decoder for zstd-stream and a zstd decoder for zlib-stream, naming both', () => {
    expect(() => resolveInflateImplementation('zlib-sync', 'zstd-stream')).toThrow(/zlib-sync.*zstd-stream/);
    expect(() => resolveInflateImplementation('fzstd', 'zlib-stream')).toThrow(/fzstd.*zlib-stream/);
  });
});

describe.runIf(napi !== null).each<ZstdInflateImplementation>(['zstd-napi', 'fzstd'])('%s decoder', (implementation) => {
  it('delivers each message of one open frame, in order, inside push (a 1.5 MB one grows the buffer)', () => {
    const frames = encodeAll(messages);
    expect(big.length).toBeGreaterThan(1_000_000);
    const sink = new Collector();
    const inflater = createInflater(sink, implementation, 'zstd-stream');
    for (const f of frames) inflater.push(f);
    expect(sink.errors).toEqual([]);
    expect(sink.texts).toEqual(messages);
    expect(inflater.busy).toBe(false);
  });

  it('reads a stream whose messages each close their frame (a new frame per message)', () => {
    const { CCtx, EndDirective } = napi!;
    const ctx = new CCtx();
    const frames = messages.map((m) => {
      const src = Buffer.from(m);
      const dst = Buffer.alloc(src.length + 1024);
      const [remaining, produced, consumed] = ctx.compressStream2(dst, src, EndDirective.end);
      expect([remaining, consumed]).toEqual([0, src.length]);
      return dst.subarray(0, produced);
    });
    const sink = new Collector();
    const inflater = createInflater(sink, implementation, 'zstd-stream');
    for (const f of frames) inflater.push(f);
    expect(sink.texts).toEqual(messages);
  });

  it('reports corrupt data once, then ignores everything', () => {
    const frames = encodeAll(messages.slice(0, 2));
    const sink = new Collector();
    const inflater = createInflater(sink, implementation, 'zstd-stream');
    inflater.push(frames[0]!);
    inflater.push(corruptZstdFrame());
    inflater.push(frames[1]!);
    expect(sink.texts).toEqual([messages[0]]);
    expect(sink.errors).toHaveLength(1);
    expect(sink.errors[0]!.message).toMatch(new RegExp(implementation));
  });

  it('a fresh context per connection: a later connection decodes from the start of its own stream', () => {
    const first = encodeAll(messages.slice(0, 2));
    const second = encodeAll(messages.slice(3));
    const a = new Collector();
    const b = new Collector();
    const one = createInflater(a, implementation, 'zstd-stream');
    for (const f of first) one.push(f);
    one.destroy();
    one.push(second[0]!);
    const two = createInflater(b, implementation, 'zstd-stream');
    for (const f of second) two.push(f);
    expect(a.texts).toEqual(messages.slice(0, 2));
    expect(b.texts).toEqual(messages.slice(3));
  });
});
