import { describe, expect, it } from 'vitest';
import { PayloadDecoder } from '../../src/gateway/decoder.js';
import { inflaterFactory } from '../../src/gateway/inflate.js';
import type { ReceivedPayload } from '../../src/gateway/protocol.js';
import type { GatewayDecodeError } from '../../src/gateway/errors.js';
import { ZlibStreamWriter } from './helpers/zlib-stream.js';

function collect() {
  const payloads: ReceivedPayload[] = [];
  const errors: GatewayDecodeError[] = [];
  return { payloads, errors, sink: { payload: (p: ReceivedPayload) => payloads.push(p), error: (e: GatewayDecodeError) => errors.push(e) } };
}

describe('PayloadDecoder', () => {
  it('parses text frames without an inflater', () => {
    const c = collect();
    const decoder = new PayloadDecoder(c.sink, null);
    decoder.push(Buffer.from('{"op":0,"t":"X","s":1,"d":{"a":"é"}}'), false);
    expect(c.payloads).toEqual([{ op: 0, t: 'X', s: 1, d: { a: 'é' } }]);
  });

  it.each(['zlib-sync', 'node:zlib'] as const)('inflates binary frames (%s) and parses text frames on the same connection', async (impl) => {
    const c = collect();
    const decoder = new PayloadDecoder(c.sink, inflaterFactory(impl));
    const writer = new ZlibStreamWriter();
    decoder.push(await writer.message({ op: 10, d: { heartbeat_interval: 1 } }), true);
    await new Promise<void>((r) => decoder.whenIdle(r));
    decoder.push(Buffer.from('{"op":11}'), false);
    expect(c.payloads.map((p) => p.op)).toEqual([10, 11]);
    writer.close();
    decoder.destroy();
  });

  it('reports the first failure once and ignores everything after it', () => {
    const c = collect();
    const decoder = new PayloadDecoder(c.sink, null);
    decoder.push(Buffer.from('{"op":0,"t":"GUILD_CREATE","s":'), false);
    decoder.push(Buffer.from('[1,2]'), false);
    decoder.push(Buffer.from('{"op":11}'), false);
    expect(c.payloads).toEqual([]);
    expect(c.errors.length).toBe(1);
    expect(c.errors[0]!.message).toMatch(/not valid JSON/);
  });

  it('rejects JSON that is not a gateway payload', () => {
    const c = collect();
    new PayloadDecoder(c.sink, null).push(Buffer.from('{"hello":1}'), false);
    expect(c.errors[0]!.message).toMatch(/not a gateway payload/);
  });
});
