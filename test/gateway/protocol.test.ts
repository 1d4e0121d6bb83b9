import { describe, expect, it } from 'vitest';
import { asReceivedPayload, encodePayload, gatewayConnectUrl } from '../../src/gateway/protocol.js';
import { GatewayPayloadError } from '../../src/gateway/errors.js';

describe('gatewayConnectUrl', () => {
  it('adds v=10, encoding=json and compress=zlib-stream', () => {
    const url = new URL(gatewayConnectUrl('wss://gateway.discord.gg', true));
    expect(url.searchParams.get('v')).toBe('10');
    expect(url.searchParams.get('encoding')).toBe('json');
    expect(url.searchParams.get('compress')).toBe('zlib-stream');
  });

  it('omits compress when compression is off and replaces stale params', () => {
    const url = new URL(gatewayConnectUrl('ws://127.0.0.1:1234/gw?v=6&compress=zlib-stream', false));
    expect(url.searchParams.get('v')).toBe('10');
    expect(url.searchParams.has('compress')).toBe(false);
    expect(url.pathname).toBe('/gw');
  });

  it('rejects non-WebSocket URLs', () => {
    expect(() => gatewayConnectUrl('https://example.com', true)).toThrow(GatewayPayloadError);
    expect(() => gatewayConnectUrl('not a url', true)).toThrow(/not a valid URL/);
  });

  it('names a rejected URL without its credentials', () => {
    expect(() => gatewayConnectUrl('https://bot:gateway-password-123@gateway.example', true)).toThrow(
      'Gateway URL "https://bot:[redacted]@gateway.example" must use ws: or wss:.',
    );
  });
});

describe('encodePayload', () => {
  it('encodes op and d', () => {
    expect(JSON.parse(encodePayload(1, 5))).toEqual({ op: 1, d: 5 });
  });

  it('refuses payloads over 4096 bytes, counting UTF-8 bytes', () => {
    expect(() => encodePayload(3, { s: 'a'.repeat(4000) })).not.toThrow();
    expect(() => encodePayload(3, { s: 'a'.repeat(4100) })).toThrow(/at most 4096/);
    // 1400 three-byte characters: fewer than 4096 UTF-16 units, more than 4096 bytes.
    expect(() => encodePayload(3, { s: '€'.repeat(1400) })).toThrow(GatewayPayloadError);
  });
});

describe('asReceivedPayload', () => {
  it('accepts envelopes and normalizes missing s/t', () => {
    expect(asReceivedPayload({ op: 11 })).toEqual({ op: 11, s: null, t: null });
    expect(asReceivedPayload({ op: 0, t: 'X', s: 3, d: {} })).toMatchObject({ op: 0, t: 'X', s: 3 });
  });

  it('rejects what is not an envelope', () => {
    for (const bad of [null, 1, 'x', [], { d: 1 }, { op: '0' }, { op: 0, t: 5 }]) {
      expect(asReceivedPayload(bad)).toBeNull();
    }
  });

  it('keeps an envelope whose seq is not a number, with a seq no check takes (NaN): the shard reports it once', () => {
    expect(asReceivedPayload({ op: 0, s: '1', t: 'X', d: {} })?.s).toBeNaN();
  });
});
