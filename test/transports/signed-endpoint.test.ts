/**
 * The signature gate of the HTTP endpoint over a real socket with real Ed25519 keys: valid requests reach the
 * route; a tampered body, a tampered or stale timestamp, a foreign key, missing headers and oversize bodies are
 * refused before any route runs; PING is answered with PONG.
 */
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SigningKey } from '../../src/sandbox/delivery/signing.js';
import {
  checkSignature,
  ed25519PublicKey,
  InitialResponses,
  interactionsRoute,
  PublicKeyError,
  SignedEndpoint,
  type RequestOutcome,
  type SignedRequest,
  type SignedRoute,
} from '../../src/transports/http/index.js';
import { silentLogger } from '../../src/runtime/logger.js';

const key = SigningKey.generate();
const stranger = SigningKey.generate();
const LIMIT = 4 * 1024;

interface Reply {
  status: number;
  body: string;
}

function post(port: number, path: string, body: string | Buffer, headers: Record<string, string>): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('signed endpoint', () => {
  let endpoint: SignedEndpoint;
  let port: number;
  const seen: SignedRequest[] = [];
  const outcomes: RequestOutcome[] = [];

  beforeAll(async () => {
    const routes = new Map<string, SignedRoute>([
      [
        '/events',
        (r: SignedRequest) => {
          seen.push(r);
          return { status: 204 };
        },
      ],
      [
        '/interactions',
        interactionsRoute({
          responses: new InitialResponses(),
          deadlineMs: 1_000,
          intake: {
            take: (i) => {
              seen.push({ path: '/interactions', json: i, size: 0 });
              return Promise.resolve();
            },
          },
        }),
      ],
    ]);
    endpoint = new SignedEndpoint({
      host: '127.0.0.1',
      port: 0,
      publicKey: ed25519PublicKey(key.publicKeyHex),
      maxBodyBytes: LIMIT,
      timestampWindowSeconds: 5,
      routes,
      log: silentLogger(),
      onOutcome: (_path, outcome) => outcomes.push(outcome),
    });
    ({ port } = await endpoint.listen());
  });
  afterAll(async () => {
    await endpoint.close();
  });

  const body = JSON.stringify({ version: 1, application_id: '1', type: 1, event: { type: 'X', timestamp: 't' } });

  it('passes a validly signed request to its route', async () => {
    seen.length = 0;
    const r = await post(port, '/events', body, { ...key.headers(body) });
    expect(r.status).toBe(204);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.json).toEqual(JSON.parse(body));
  });

  it('refuses a tampered body, a tampered timestamp, another key and missing or malformed headers with 401', async () => {
    seen.length = 0;
    const headers = key.headers(body);
    const tamperedBody = body.replace('"X"', '"Y"');
    expect((await post(port, '/events', tamperedBody, { ...headers })).status).toBe(401);
    const shifted = String(Number(headers['x-signature-timestamp']) - 1);
    expect((await post(port, '/events', body, { ...headers, 'x-signature-timestamp': shifted })).status).toBe(401);
    expect((await post(port, '/events', body, { ...stranger.headers(body) })).status).toBe(401);
    expect((await post(port, '/events', body, {})).status).toBe(401);
    expect((await post(port, '/events', body, { 'x-signature-timestamp': headers['x-signature-timestamp'] })).status).toBe(401);
    expect((await post(port, '/events', body, { ...headers, 'x-signature-ed25519': 'zz'.repeat(64) })).status).toBe(401);
    expect(seen).toHaveLength(0);
  });

  it('refuses a validly signed request whose timestamp is outside the window, either way', async () => {
    seen.length = 0;
    const now = Math.floor(Date.now() / 1000);
    const stale = await post(port, '/events', body, { ...key.headers(body, now - 60) });
    expect(stale.status).toBe(401);
    expect(stale.body).toMatch(/timestamp/);
    expect((await post(port, '/events', body, { ...key.headers(body, now + 60) })).status).toBe(401);
    expect(seen).toHaveLength(0);
    expect(outcomes.slice(-2)).toEqual(['stale', 'stale']);
  });

  it('refuses a body over the limit with 413, declared or chunked, before checking anything', async () => {
    seen.length = 0;
    const big = JSON.stringify({ pad: 'x'.repeat(LIMIT) });
    expect((await post(port, '/events', big, { ...key.headers(big) })).status).toBe(413);
    // Chunked: no Content-Length; the server stops reading past the limit.
    const chunked = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        { host: '127.0.0.1', port, path: '/events', method: 'POST', headers: { 'transfer-encoding': 'chunked', ...key.headers(big) } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      for (let i = 0; i < 8; i++) req.write('x'.repeat(1024));
      req.end();
    });
    expect(chunked).toBe(413);
    expect(seen).toHaveLength(0);
  });

  it('answers PING with PONG', async () => {
    const ping = JSON.stringify({ type: 1, id: '1', application_id: '1', version: 1 });
    const r = await post(port, '/interactions', ping, { ...key.headers(ping) });
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toEqual({ type: 1 });
    // An unsigned PING is refused like anything else (the service probes with bad signatures).
    expect((await post(port, '/interactions', ping, {})).status).toBe(401);
  });

  it('answers 404 for other paths and 405 for other methods', async () => {
    expect((await post(port, '/nope', body, { ...key.headers(body) })).status).toBe(404);
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, path: '/events', method: 'GET' }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(405);
  });

  it('closes the connection after refusing a body it did not read', async () => {
    // Declared oversize: nothing more is served on that connection (its body is neither buffered nor parsed).
    const big = 'y'.repeat(LIMIT + 10);
    const smuggled = `POST /events HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}`;
    const text = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      let out = '';
      socket.on('data', (c: Buffer) => (out += c.toString()));
      socket.on('close', () => resolve(out));
      socket.on('error', reject);
      socket.write(`POST /events HTTP/1.1\r\nHost: x\r\nContent-Length: ${big.length}\r\n\r\n`);
      socket.write(big + smuggled);
      setTimeout(() => socket.end(), 500).unref();
    });
    expect(text.match(/HTTP\/1\.1 \d+/g)).toEqual(['HTTP/1.1 413']);
  });
});

describe('checkSignature', () => {
  const pub = ed25519PublicKey(key.publicKeyHex);
  it('accepts exactly the signed timestamp and bytes', () => {
    const bytes = Buffer.from('{"a":1}');
    const h = key.headers(bytes, 1_700_000_000);
    expect(checkSignature(pub, h['x-signature-ed25519'], h['x-signature-timestamp'], bytes)).toBe('valid');
    expect(checkSignature(pub, h['x-signature-ed25519'], h['x-signature-timestamp'], Buffer.from('{"a":2}'))).toBe('invalid');
    expect(checkSignature(pub, h['x-signature-ed25519'].toUpperCase(), h['x-signature-timestamp'], bytes)).toBe('valid');
    expect(checkSignature(pub, undefined, h['x-signature-timestamp'], bytes)).toBe('missing');
    expect(checkSignature(pub, h['x-signature-ed25519'], '17e8', bytes)).toBe('malformed');
  });
  it('refuses a public key that is not 32 bytes of hex, naming what is expected', () => {
    expect(() => ed25519PublicKey('abc')).toThrow(PublicKeyError);
    expect(() => ed25519PublicKey('g'.repeat(64))).toThrow(/64 hexadecimal characters/);
  });
});
