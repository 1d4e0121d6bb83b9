import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createInflater,
  endsWithSyncFlush,
  loadZlibSync,
  resolveInflateImplementation,
  type Inflater,
  type InflateImplementation,
} from '../../src/gateway/inflate.js';
import { GatewayDecodeError } from '../../src/gateway/errors.js';
import { splitAt, ZlibStreamWriter } from './helpers/zlib-stream.js';

class Collector {
  texts: string[] = [];
  errors: GatewayDecodeError[] = [];
  message = (text: string): void => {
    this.texts.push(text);
  };
  error = (error: GatewayDecodeError): void => {
    this.errors.push(error);
  };
}

function idle(inflater: Inflater): Promise<void> {
  return new Promise((resolve) => inflater.whenIdle(resolve));
}

describe('inflate selection', () => {
  it('finds zlib-sync (installed as an optional dependency) and prefers it on auto', () => {
    expect(loadZlibSync()).not.toBeNull();
    expect(resolveInflateImplementation('auto')).toBe('zlib-sync');
    expect(resolveInflateImplementation('node:zlib')).toBe('node:zlib');
    expect(resolveInflateImplementation('zlib-sync')).toBe('zlib-sync');
  });

  it('detects the Z_SYNC_FLUSH suffix only at the end', () => {
    expect(endsWithSyncFlush(Buffer.from([1, 0, 0, 0xff, 0xff]))).toBe(true);
    expect(endsWithSyncFlush(Buffer.from([0, 0, 0xff, 0xff, 1]))).toBe(false);
    expect(endsWithSyncFlush(Buffer.from([0, 0xff, 0xff]))).toBe(false);
    expect(endsWithSyncFlush(Buffer.alloc(0))).toBe(false);
  });
});

describe.each<InflateImplementation>(['zlib-sync', 'node:zlib'])('%s inflater', (implementation) => {
  let writer: ZlibStreamWriter;
  let inflater: Inflater;
  let sink: Collector;

  function setup(): void {
    writer = new ZlibStreamWriter();
    sink = new Collector();
    inflater = createInflater(sink, implementation);
  }

  afterEach(() => {
    inflater?.destroy();
    writer?.close();
  });

  it('reports its implementation', () => {
    setup();
    expect(inflater.implementation).toBe(implementation);
  });

  it('inflates consecutive messages through one shared context', async () => {
    setup();
    // The second message repeats the first, so its deflate output back-references the shared window:
    // an inflater that does not keep its context across messages cannot decode it.
    const first = { op: 10, d: { heartbeat_interval: 41250, filler: 'abcdefghij'.repeat(50) } };
    const second = { op: 0, t: 'X', s: 1, d: { filler: 'abcdefghij'.repeat(50) } };
    const a = await writer.message(first);
    const b = await writer.message(second);
    expect(b.length).toBeLessThan(JSON.stringify(second).length / 4);
    inflater.push(a);
    inflater.push(b);
    await idle(inflater);
    expect(sink.errors).toEqual([]);
    expect(sink.texts.map((t) => JSON.parse(t))).toEqual([first, second]);
  });

  it('assembles a message that spans several frames, including a split suffix', async () => {
    setup();
    const value = { op: 0, t: 'GUILD_CREATE', s: 1, d: { name: 'ü€😀'.repeat(200), n: randomBytes(64).toString('hex') } };
    const bytes = await writer.message(value);
    const pieces = splitAt(bytes, 5, 40, bytes.length - 2);
    for (const piece of pieces.slice(0, -1)) inflater.push(piece);
    await idle(inflater);
    expect(sink.texts).toEqual([]); // nothing before the suffix is complete
    inflater.push(pieces.at(-1)!);
    await idle(inflater);
    expect(sink.texts.map((t) => JSON.parse(t))).toEqual([value]);
  });

  it('assembles a message fed one byte per frame', async () => {
    setup();
    const first = await writer.message({ op: 10, d: { heartbeat_interval: 45000 } });
    const second = await writer.message({ op: 0, t: 'READY', s: 1, d: { session_id: 'x'.repeat(40) } });
    for (const bytes of [first, second]) for (let i = 0; i < bytes.length; i++) inflater.push(bytes.subarray(i, i + 1));
    await idle(inflater);
    expect(sink.errors).toEqual([]);
    expect(sink.texts.map((t) => (JSON.parse(t) as { op: number }).op)).toEqual([10, 0]);
  });

  it('inflates messages larger than its output chunk', async () => {
    setup();
    const value = { op: 0, t: 'GUILD_MEMBERS_CHUNK', s: 2, d: { blob: randomBytes(150_000).toString('base64') } };
    inflater.push(await writer.message(value));
    inflater.push(await writer.message({ op: 11 }));
    await idle(inflater);
    expect(sink.texts.length).toBe(2);
    expect(JSON.parse(sink.texts[0]!)).toEqual(value);
    expect(JSON.parse(sink.texts[1]!)).toEqual({ op: 11 });
  });

  it('keeps order across many small messages', async () => {
    setup();
    const frames: Buffer[] = [];
    for (let s = 1; s <= 200; s++) frames.push(await writer.message({ op: 0, t: 'E', s, d: { s } }));
    for (const f of frames) inflater.push(f);
    await idle(inflater);
    expect(sink.texts.map((t) => (JSON.parse(t) as { s: number }).s)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
  });

  it('reports a corrupt frame once and ignores everything after it', async () => {
    setup();
    inflater.push(await writer.message({ op: 10, d: { heartbeat_interval: 1 } }));
    await idle(inflater);
    inflater.push(Buffer.from([0x07, 0xde, 0xad, 0xbe, 0xef, 0x00, 0x00, 0xff, 0xff]));
    await idle(inflater);
    inflater.push(await writer.message({ op: 11 }));
    await idle(inflater);
    expect(sink.texts.length).toBe(1);
    expect(sink.errors.length).toBe(1);
    expect(sink.errors[0]).toBeInstanceOf(GatewayDecodeError);
    expect(sink.errors[0]!.message).toMatch(/inflate failed/);
  });

  it('a fresh inflater cannot continue another connection\'s stream', async () => {
    setup();
    await writer.message({ op: 10, d: { text: 'hello hello hello hello' } });
    const second = await writer.message({ op: 0, d: { text: 'hello hello hello hello' } });
    inflater.push(second); // no zlib header: the stream started on the first message
    await idle(inflater);
    expect(sink.texts).toEqual([]);
    expect(sink.errors.length).toBe(1);
  });
});

describe('node:zlib inflater timing', () => {
  it('delivers asynchronously and whenIdle waits for it', async () => {
    const writer = new ZlibStreamWriter();
    const sink = new Collector();
    const inflater = createInflater(sink, 'node:zlib');
    inflater.push(await writer.message({ op: 11 }));
    expect(inflater.busy).toBe(true);
    expect(sink.texts.length).toBe(0);
    await idle(inflater);
    expect(inflater.busy).toBe(false);
    expect(sink.texts.length).toBe(1);
    inflater.destroy();
    writer.close();
  });

  it('zlib-sync delivers inside push', async () => {
    const writer = new ZlibStreamWriter();
    const sink = new Collector();
    const inflater = createInflater(sink, 'zlib-sync');
    inflater.push(await writer.message({ op: 11 }));
    expect(inflater.busy).toBe(false);
    expect(sink.texts).toEqual(['{"op":11}']);
    inflater.destroy();
    writer.close();
  });
});
