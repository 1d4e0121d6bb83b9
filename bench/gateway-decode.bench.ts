/**
 * PART benchmark (it says so in its output); the product path is ingest.bench.ts.
 *
 * Gateway decode cost per event: WebSocket message -> inflate (zlib-stream) -> JSON.parse, gatehouse's
 * PayloadDecoder against @discordjs/ws's WebSocketShard#unpackMessage (the path discord.js uses), on identical
 * frames, in one run. Reported as ns per event and the ratio (theirs / ours: above 1 means gatehouse is faster).
 *
 *   npm run bench -- gateway-decode [--quick]
 *   NODE_OPTIONS=--expose-gc npx tsx --conditions=gatehouse-source bench/gateway-decode.bench.ts [--events 20000] [--rounds 7]
 *
 * (--expose-gc, which `npm run bench` passes, lets each run start from a collected heap.)
 *
 * Both start from the Buffer ws reads off the socket. gatehouse asks ws for Buffers as they are; @discordjs/ws
 * asks for ArrayBuffers (binary) and strings (text), so its side pays the conversion ws makes for it (copied
 * here the way ws does it). @discordjs/ws's inflaters are set up the way its connect() does; its own
 * unpackMessage then decodes. Two workloads: live traffic ("steady") and GUILD_CREATE bursts ("startup").
 */
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { constants, createDeflate, createInflate } from 'node:zlib';
import { CompressionMethod, WebSocketShard } from '@discordjs/ws';
import { PayloadDecoder } from '../src/gateway/decoder.js';
import { inflaterFactory } from '../src/gateway/inflate.js';
import type { ReceivedPayload } from '../src/gateway/protocol.js';
import { gatewayWorkload, type WorkloadMix } from './gateway-workload.js';

type Transport = 'zlib-sync' | 'node:zlib' | 'uncompressed';

interface Frames {
  /** zlib-stream bytes per message, one deflate context for the whole stream. */
  compressed: Buffer[];
  /** The messages as UTF-8 bytes (uncompressed transport). */
  text: Buffer[];
}

export interface DecodeBenchResult {
  workload: WorkloadMix;
  transport: Transport;
  events: number;
  gatehouseNsPerEvent: number;
  discordjsNsPerEvent: number;
  /** @discordjs/ws time / gatehouse time, best rounds. */
  ratio: number;
  /** The same ratio from the median rounds. */
  medianRatio: number;
}

/** The private members of WebSocketShard this benchmark drives. */
interface DiscordjsShardInternals {
  zLibSyncInflate: unknown;
  nativeInflate: unknown;
  inflateBuffer: Buffer[];
  unpackMessage(data: ArrayBuffer | string, isBinary: boolean): Promise<unknown>;
}

async function compressStream(messages: string[]): Promise<Buffer[]> {
  const deflate = createDeflate({ flush: constants.Z_SYNC_FLUSH, chunkSize: 64 * 1024 });
  let out: Buffer[] = [];
  deflate.on('data', (chunk: Buffer) => out.push(chunk));
  const frames: Buffer[] = [];
  for (const m of messages) {
    await new Promise<void>((resolve, reject) => deflate.write(m, (e) => (e ? reject(e) : resolve())));
    frames.push(out.length === 1 ? out[0]! : Buffer.concat(out));
    out = [];
  }
  deflate.destroy();
  return frames;
}

function ourDecoder(transport: Transport, onPayload: (p: ReceivedPayload) => void): PayloadDecoder {
  return new PayloadDecoder(
    {
      payload: onPayload,
      error: (e) => {
        throw e;
      },
    },
    transport === 'uncompressed' ? null : inflaterFactory(transport),
  );
}

/** gatehouse: decode the whole stream once, fresh inflate context. Returns payloads decoded. */
async function runOurs(transport: Transport, frames: Frames): Promise<{ count: number; last: unknown }> {
  let count = 0;
  let last: unknown = null;
  const decoder = ourDecoder(transport, (p) => {
    count++;
    last = p;
  });
  if (transport === 'uncompressed') {
    for (let i = 0; i < frames.text.length; i++) decoder.push(frames.text[i]!, false);
  } else {
    for (let i = 0; i < frames.compressed.length; i++) decoder.push(frames.compressed[i]!, true);
    await new Promise<void>((resolve) => decoder.whenIdle(resolve));
  }
  decoder.destroy();
  return { count, last };
}

const zlibSync = createRequire(import.meta.url)('zlib-sync') as {
  Inflate: new (o: { chunkSize: number; to: 'string' }) => unknown;
};

/** @discordjs/ws: a shard whose inflater is set up as its connect() does, decoding through unpackMessage. */
function theirShard(transport: Transport): DiscordjsShardInternals {
  const compression =
    transport === 'zlib-sync' ? CompressionMethod.ZlibSync : transport === 'node:zlib' ? CompressionMethod.ZlibNative : null;
  const strategy = { options: { compression } };
  const shard = new WebSocketShard(strategy as never, 0) as unknown as DiscordjsShardInternals;
  if (transport === 'zlib-sync') {
    shard.zLibSyncInflate = new zlibSync.Inflate({ chunkSize: 65535, to: 'string' });
  } else if (transport === 'node:zlib') {
    shard.inflateBuffer = [];
    const inflate = createInflate({ chunkSize: 65535, flush: constants.Z_SYNC_FLUSH });
    inflate.on('data', (chunk: Buffer) => shard.inflateBuffer.push(chunk));
    shard.nativeInflate = inflate;
  }
  return shard;
}

/** What ws does for binaryType 'arraybuffer': the whole backing store when it fits exactly, else a copy. */
function toArrayBuffer(buf: Buffer): ArrayBuffer {
  if (buf.byteOffset === 0 && buf.byteLength === buf.buffer.byteLength) return buf.buffer as ArrayBuffer;
  return buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) as ArrayBuffer;
}

async function runTheirs(transport: Transport, frames: Frames): Promise<{ count: number; last: unknown }> {
  const shard = theirShard(transport);
  let count = 0;
  let last: unknown = null;
  if (transport === 'uncompressed') {
    for (let i = 0; i < frames.text.length; i++) {
      const p = await shard.unpackMessage(frames.text[i]!.toString(), false);
      if (p) {
        count++;
        last = p;
      }
    }
  } else if (transport === 'zlib-sync') {
    for (let i = 0; i < frames.compressed.length; i++) {
      const p = await shard.unpackMessage(toArrayBuffer(frames.compressed[i]!), true);
      if (p) {
        count++;
        last = p;
      }
    }
  } else {
    // Its socket handler does not await one message before the next (`void this.onMessage(...)`).
    const all = frames.compressed.map((buf) => shard.unpackMessage(toArrayBuffer(buf), true));
    for (const p of await Promise.all(all)) {
      if (p) {
        count++;
        last = p;
      }
    }
    (shard.nativeInflate as { destroy(): void }).destroy();
  }
  return { count, last };
}

/**
 * The fastest round: on a shared machine other processes only ever add time, so the minimum is the
 * estimate least distorted by them (the median is reported alongside).
 */
function best(values: number[]): number {
  return Math.min(...values);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export interface DecodeBenchOptions {
  /** Events per workload. Default: steady 20000, startup 1000. */
  events?: Partial<Record<WorkloadMix, number>>;
  /** Measured rounds per subject (after two warm-up rounds). Default 7. */
  rounds?: number;
  /** Stop starting new rounds after this long. Default 120000 ms. */
  budgetMs?: number;
  transports?: Transport[];
  workloads?: WorkloadMix[];
}

export async function runGatewayDecodeBench(options: DecodeBenchOptions = {}): Promise<DecodeBenchResult[]> {
  const rounds = options.rounds ?? 7;
  const deadline = performance.now() + (options.budgetMs ?? 120_000);
  const results: DecodeBenchResult[] = [];
  for (const mix of options.workloads ?? (['steady', 'startup'] as const)) {
    const events = options.events?.[mix] ?? (mix === 'steady' ? 20_000 : 1_000);
    const workload = gatewayWorkload(events, mix);
    const frames: Frames = {
      compressed: await compressStream(workload.messages),
      text: workload.messages.map((m) => Buffer.from(m)),
    };
    for (const transport of options.transports ?? (['zlib-sync', 'node:zlib', 'uncompressed'] as const)) {
      results.push(await measure(mix, transport, frames, events, rounds, deadline));
    }
  }
  return results;
}

async function measure(
  mix: WorkloadMix,
  transport: Transport,
  frames: Frames,
  events: number,
  rounds: number,
  deadline: number,
): Promise<DecodeBenchResult> {
  {
    // Same output from both, or the comparison means nothing.
    const a = await runOurs(transport, frames);
    const b = await runTheirs(transport, frames);
    if (a.count !== events || b.count !== events || JSON.stringify(a.last) !== JSON.stringify(b.last)) {
      throw new Error(`${transport}: decoders disagree (gatehouse ${a.count}, @discordjs/ws ${b.count} of ${events})`);
    }
    const ours: number[] = [];
    const theirs: number[] = [];
    for (let round = 0; round < rounds + 2 && performance.now() < deadline; round++) {
      // Alternate who goes first, and discard two warm-up rounds.
      const order = round % 2 === 0 ? (['ours', 'theirs'] as const) : (['theirs', 'ours'] as const);
      for (const who of order) {
        // Start each run with a clean heap so one side's garbage is not collected on the other's clock.
        (globalThis as { gc?: () => void }).gc?.();
        const t0 = performance.now();
        if (who === 'ours') await runOurs(transport, frames);
        else await runTheirs(transport, frames);
        const dt = performance.now() - t0;
        if (round >= 2) (who === 'ours' ? ours : theirs).push(dt);
      }
    }
    if (ours.length === 0) throw new Error('time budget too small for one measured round');
    const perEvent = (ms: number) => Math.round((ms * 1e6) / events);
    const oursNs = perEvent(best(ours));
    const theirsNs = perEvent(best(theirs));
    return {
      workload: mix,
      transport,
      events,
      gatehouseNsPerEvent: oursNs,
      discordjsNsPerEvent: theirsNs,
      ratio: Math.round((theirsNs / oursNs) * 100) / 100,
      medianRatio: Math.round((median(theirs) / median(ours)) * 100) / 100,
    };
  }
}

function argValue(name: string): number | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : undefined;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const quick = process.argv.includes('--quick');
  const steady = argValue('--events') ?? (quick ? 4_000 : 20_000);
  const startup = quick ? 200 : 1_000;
  const rounds = argValue('--rounds') ?? (quick ? 3 : 7);
  console.log('## Gateway decode: frame -> inflate -> JSON.parse, per event\n');
  console.log('PART benchmark: the decoder alone on frames in memory (no socket, no cache, no plugins); the product path is `npm run bench -- ingest`\n');
  for (const mix of ['steady', 'startup'] as const) {
    const w = gatewayWorkload(mix === 'steady' ? steady : startup, mix);
    console.log(`- ${mix}: ${w.messages.length} events, ${(w.bytes / w.messages.length / 1024).toFixed(1)} KiB of JSON per event`);
  }
  console.log(
    `- node ${process.version}, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}; ` +
      `fastest of ${rounds} rounds after 2 warm-up rounds${(globalThis as { gc?: unknown }).gc ? ', heap collected before each run' : ''}\n`,
  );
  const results = await runGatewayDecodeBench({ events: { steady, startup }, rounds });
  console.log('| workload | transport | gatehouse ns/event | @discordjs/ws ns/event | ratio (theirs / ours) | ratio of medians |');
  console.log('|---|---|---:|---:|---:|---:|');
  for (const r of results) {
    console.log(
      `| ${r.workload} | ${r.transport} | ${r.gatehouseNsPerEvent} | ${r.discordjsNsPerEvent} | ${r.ratio.toFixed(2)} | ${r.medianRatio.toFixed(2)} |`,
    );
  }
  console.log('\nratio > 1: gatehouse decodes faster.');
}
