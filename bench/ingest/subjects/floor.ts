/**
 * The decode floor: the very bytes the service sends (the same frames file the server reads), decompressed
 * and parsed and nothing else: zlib-sync (or zstd-napi / fzstd) + JSON.parse, Buffer#toString + JSON.parse
 * for plain JSON. No socket, no WebSocket framing, no cache. Any client must at least do this much.
 */
import { createRequire } from 'node:module';
import { load, frameAt, type TransportFrames } from '../frames.js';
import type { ChildConfig, EventCounts, StateMessage } from '../protocol.js';
import { loadFzstd, loadZstdNapi } from '../../../src/util/zstd.js';
import type { IngestSubject } from './types.js';

interface ZlibSync {
  Inflate: new (o: { chunkSize: number; to: 'string' }) => { push(b: Buffer, flush: number): void; result: string | null; err: number };
  Z_SYNC_FLUSH: number;
  Z_NO_FLUSH: number;
}

type Decode = (frame: Buffer) => string | null;

export class FloorSubject implements IngestSubject {
  private readonly frames: TransportFrames;
  private readonly decode: Decode;
  private readonly byType: Record<string, number> = Object.create(null) as Record<string, number>;

  constructor(cfg: ChildConfig) {
    this.frames = load(cfg.framesDir, cfg.transport);
    this.decode = decoder(cfg);
  }

  private run(from: number, to: number): void {
    const frames = this.frames;
    const byType = this.byType;
    for (let i = from; i < to; i++) {
      const text = this.decode(frameAt(frames, i));
      if (text === null) continue;
      const t = (JSON.parse(text) as { t: string | null }).t;
      if (t !== null) byType[t] = (byType[t] ?? 0) + 1;
    }
  }

  async start(): Promise<void> {
    this.run(0, this.frames.startupCount + 1);
  }

  async eventsDone(): Promise<EventCounts> {
    const f = this.frames;
    this.run(f.startupCount + 1, f.startupCount + f.eventCount + 1);
    const n = (t: string): number => this.byType[t] ?? 0;
    return {
      memberAdds: n('GUILD_MEMBER_ADD'),
      memberUpdates: n('GUILD_MEMBER_UPDATE'),
      memberRemoves: n('GUILD_MEMBER_REMOVE'),
      entitlementCreates: n('ENTITLEMENT_CREATE'),
      entitlementUpdates: n('ENTITLEMENT_UPDATE'),
      interactions: n('INTERACTION_CREATE'),
      answered: 0,
      byType: { ...this.byType },
    };
  }

  async settle(): Promise<void> {}
  async members(): Promise<number> {
    return 0;
  }
  async verify(): Promise<Omit<StateMessage, 'type'>> {
    return { membersPerGuild: [], sample: [], removedPresent: 0, entitlements: [], extra: {} };
  }
  async stop(): Promise<void> {}
}

function decoder(cfg: ChildConfig): Decode {
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
  if (napi === null) throw new Error('the zstd floor needs zstd-napi');
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
