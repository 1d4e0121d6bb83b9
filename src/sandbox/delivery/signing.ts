/**
 * The sandbox application's Ed25519 key pair: it signs every request the sandbox sends to the app's
 * interactions endpoint and webhook events URL, as the service does (discord-api-docs, "Overview of
 * Interactions" > "Validating Security Request Headers": X-Signature-Ed25519 over X-Signature-Timestamp + raw
 * body), and its public half is the application's `verify_key`.
 */
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { publicKeyHex } from '../../transports/http/signature.js';

export interface SignedHeaders {
  'x-signature-ed25519': string;
  'x-signature-timestamp': string;
}

export class SigningKey {
  readonly publicKeyHex: string;

  constructor(
    private readonly privateKey: KeyObject,
    readonly publicKey: KeyObject,
  ) {
    this.publicKeyHex = publicKeyHex(publicKey);
  }

  static generate(): SigningKey {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    return new SigningKey(privateKey, publicKey);
  }

  /** The signature (hex) of timestamp + body. */
  sign(timestamp: string, body: string | Buffer): string {
    const message = Buffer.concat([Buffer.from(timestamp, 'latin1'), typeof body === 'string' ? Buffer.from(body) : body]);
    return sign(null, message, this.privateKey).toString('hex');
  }

  /** Headers for a request signed now (or at `atSeconds`, unix seconds). */
  headers(body: string | Buffer, atSeconds: number = Math.floor(Date.now() / 1000)): SignedHeaders {
    const timestamp = String(atSeconds);
    return { 'x-signature-ed25519': this.sign(timestamp, body), 'x-signature-timestamp': timestamp };
  }
}
