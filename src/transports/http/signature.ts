/**
 * Request signatures of the service's outgoing webhooks (interactions and webhook events alike).
 *
 * discord-api-docs, "Overview of Interactions" > "Validating Security Request Headers" and "Webhook Events" >
 * "Validating Security Request Headers": every request carries `X-Signature-Ed25519` (the signature, hex) and
 * `X-Signature-Timestamp`; the signed message is the timestamp followed by the raw body, checked against the
 * application's Ed25519 public key (its `verify_key`, hex); a request that fails the check must get a 401.
 *
 * Verification uses Node's own crypto (no extra dependency) on the exact bytes received, before anything is
 * parsed. The timestamp is unix seconds; checking its age (see `timestampAge`) turns a captured request into
 * one that can be replayed only inside that window, where the interaction-id and event dedupe catch it.
 */
import { createPublicKey, verify, type KeyObject } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-signature-ed25519';
export const TIMESTAMP_HEADER = 'x-signature-timestamp';

const PUBLIC_KEY_HEX = /^[0-9a-fA-F]{64}$/;
const SIGNATURE_HEX = /^[0-9a-fA-F]{128}$/;
/** Unix seconds; twelve digits reach the year 33658, so anything longer is not a timestamp. */
const TIMESTAMP = /^\d{1,12}$/;

export class PublicKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PublicKeyError';
  }
}

/** True when `hex` has the shape of an Ed25519 public key in hex (32 bytes). */
export function isPublicKeyHex(hex: string): boolean {
  return PUBLIC_KEY_HEX.test(hex);
}

/**
 * The application's public key (64 hex characters) as a key object. The raw 32 bytes are wrapped as a JWK
 * (`OKP` / `Ed25519`), which Node imports without an ASN.1 prefix of our own making.
 */
export function ed25519PublicKey(hex: string): KeyObject {
  if (!isPublicKeyHex(hex)) {
    throw new PublicKeyError('expected the application\'s public key ("verify_key"): 64 hexadecimal characters');
  }
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(hex, 'hex').toString('base64url') }, format: 'jwk' });
}

/** The raw 32-byte public key of a key object, in hex (what the service publishes as `verify_key`). */
export function publicKeyHex(key: KeyObject): string {
  const jwk = key.export({ format: 'jwk' });
  if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.x !== 'string') throw new PublicKeyError('not an Ed25519 key');
  return Buffer.from(jwk.x, 'base64url').toString('hex');
}

export type SignatureCheck = 'valid' | 'missing' | 'malformed' | 'invalid';

/**
 * Check one request's signature. `signature` and `timestamp` are the header values as received (undefined
 * when absent); `body` is the raw body. Never throws for any input.
 */
export function checkSignature(key: KeyObject, signature: string | undefined, timestamp: string | undefined, body: Buffer): SignatureCheck {
  if (signature === undefined || timestamp === undefined) return 'missing';
  if (!SIGNATURE_HEX.test(signature) || !TIMESTAMP.test(timestamp)) return 'malformed';
  const message = Buffer.allocUnsafe(timestamp.length + body.length);
  message.write(timestamp, 0, 'latin1');
  body.copy(message, timestamp.length);
  try {
    return verify(null, message, key, Buffer.from(signature, 'hex')) ? 'valid' : 'invalid';
  } catch {
    return 'invalid';
  }
}

/**
 * Seconds between a well-formed signature timestamp and `nowMs` (positive: the request was signed in the
 * past). Null when the timestamp is not unix seconds.
 */
export function timestampAge(timestamp: string | undefined, nowMs: number): number | null {
  if (timestamp === undefined || !TIMESTAMP.test(timestamp)) return null;
  return nowMs / 1000 - Number(timestamp);
}
