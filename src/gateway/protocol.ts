/**
 * Wire constants and payload encoding for the gateway (protocol §5, §6). Outbound payloads are JSON text,
 * capped at 4096 bytes by the service (larger ones close the connection with 4002), so the cap is checked
 * here, where the caller still gets a clear error instead of a reconnect.
 */
import { GatewayOpcodes } from 'discord-api-types/v10';
import { redact } from '../util/redact.js';
import { GatewayPayloadError } from './errors.js';

export const GATEWAY_VERSION = 10;

/** Gateway opcodes, from the wire-types dependency (`Op` is the short name the shard code reads). */
export const Op = GatewayOpcodes;

export const MAX_OUTBOUND_PAYLOAD_BYTES = 4096;

/**
 * The connection URL: the base from GET /gateway/bot (or resume_gateway_url) with v, encoding and compress
 * (`true` means zlib-stream, `false` or null none).
 */
export function gatewayConnectUrl(base: string, compress: boolean | 'zlib-stream' | 'zstd-stream' | null): string {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new GatewayPayloadError(redact(`Gateway URL "${base}" is not a valid URL.`));
  }
  if (url.protocol !== 'ws:' && url.protocol !== 'wss:') {
    throw new GatewayPayloadError(redact(`Gateway URL "${base}" must use ws: or wss:.`));
  }
  url.searchParams.set('v', String(GATEWAY_VERSION));
  url.searchParams.set('encoding', 'json');
  if (compress) url.searchParams.set('compress', compress === true ? 'zlib-stream' : compress);
  else url.searchParams.delete('compress');
  return url.toString();
}

/** JSON text of `{op, d}`, refusing what the service would reject for size. */
export function encodePayload(op: number, d: unknown): string {
  const text = JSON.stringify({ op, d });
  // UTF-8 needs at most 3 bytes per UTF-16 unit, so short strings skip the exact count.
  if (text.length * 3 > MAX_OUTBOUND_PAYLOAD_BYTES) {
    const bytes = Buffer.byteLength(text, 'utf8');
    if (bytes > MAX_OUTBOUND_PAYLOAD_BYTES) {
      throw new GatewayPayloadError(
        `Gateway payload for op ${op} is ${bytes} bytes; the gateway accepts at most ${MAX_OUTBOUND_PAYLOAD_BYTES}.`,
      );
    }
  }
  return text;
}

/** Envelope of every received payload. `d` is untrusted until narrowed by its opcode. */
export interface ReceivedPayload {
  op: number;
  d: unknown;
  /** Any JSON number: whether it is a usable seq (a non-negative safe integer) is the shard's check. */
  s: number | null;
  t: string | null;
}

/** Narrow a parsed JSON value to the envelope, or null when it is not one. */
export function asReceivedPayload(value: unknown): ReceivedPayload | null {
  if (typeof value !== 'object' || value === null) return null;
  const p = value as { op?: unknown; s?: unknown; t?: unknown };
  if (typeof p.op !== 'number') return null;
  if (p.s === undefined) (p as { s: null }).s = null;
  if (p.t === undefined) (p as { t: null }).t = null;
  // A seq that is not a number at all is as unusable as 1e300: the shard delivers the payload without moving
  // its seq and reports it once (NaN fails its check), instead of dropping the connection over it.
  if (p.s !== null && typeof p.s !== 'number') (p as { s: number }).s = Number.NaN;
  if (p.t !== null && typeof p.t !== 'string') return null;
  return value as ReceivedPayload;
}
