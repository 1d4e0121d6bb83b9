/**
 * Everything the sandbox and the runtime's HTTP endpoints read has a size limit: a body over it gets 413 with
 * a JSON body saying so, whether its size was declared (refused before it is read) or only found out while
 * streaming, and the connection closes instead of taking in the rest. Over real sockets.
 */
import { request } from 'node:http';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpsServer } from '../../src/runtime/http-server.js';
import { silentLogger } from '../../src/runtime/logger.js';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { MAX_ADMIN_BODY_BYTES } from '../../src/sandbox/admin/api.js';
import { MAX_BODY_BYTES } from '../../src/sandbox/rest/body.js';

interface Answer {
  status: number;
  connection: string | undefined;
  body: Record<string, unknown> | undefined;
}

/** Send `bytes` of body (in 64 KiB chunks; chunked unless `declare`), and take the answer whenever it comes. */
function send(url: string, method: string, bytes: number, options: { declare?: number; headers?: Record<string, string> } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const headers: Record<string, string> = { 'content-type': 'application/json', ...options.headers };
    if (options.declare !== undefined) headers['content-length'] = String(options.declare);
    const req = request({ host: u.hostname, port: u.port, path: `${u.pathname}${u.search}`, method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined }));
    });
    // The server may stop reading and close while this side still writes: only a missing answer is a failure.
    req.on('error', (err) => setTimeout(() => reject(err), 2_000).unref());
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let sent = 0;
    const pump = (): void => {
      while (sent < bytes) {
        const part = chunk.subarray(0, Math.min(chunk.length, bytes - sent));
        sent += part.length;
        if (!req.write(part)) {
          req.once('drain', pump);
          return;
        }
      }
      req.end();
    };
    if (bytes === 0) req.end();
    else pump();
  });
}

let sb: Sandbox;
let ops: OpsServer;
let opsBase: string;

beforeAll(async () => {
  sb = await createSandbox({ seed: { guilds: 1, membersPerGuild: 2 } });
  ops = new OpsServer({ host: '127.0.0.1', port: 0, registry: new Registry(), readiness: () => ({ ready: true, detail: {} }), log: silentLogger() });
  const { port } = await ops.listen();
  opsBase = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  await ops?.close();
  await sb?.close();
});

describe('sandbox REST', () => {
  const path = () => `${sb.restUrl}/applications/${sb.applicationId}/commands`;
  const auth = () => ({ authorization: `Bot ${sb.botToken}` });

  it('refuses a declared body over the cap before reading it: 413 / 40005, connection closed', async () => {
    const r = await send(path(), 'POST', 1024, { declare: MAX_BODY_BYTES + 1, headers: auth() });
    expect(r).toEqual({ status: 413, connection: 'close', body: { message: 'Request entity too large', code: 40005 } });
  });

  it('stops reading a streamed body at the cap', async () => {
    const r = await send(path(), 'POST', MAX_BODY_BYTES + 256 * 1024, { headers: auth() });
    expect(r).toEqual({ status: 413, connection: 'close', body: { message: 'Request entity too large', code: 40005 } });
  });

  it('a body at the cap is read and answered as usual, and an early answer (401) does not leave a body unread', async () => {
    const ok = await send(path(), 'POST', 0, { headers: auth() });
    expect(ok.status).toBe(400);
    const unauthorized = await send(path(), 'POST', 1024 * 1024);
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.connection).not.toBe('close');
  });

  it('a path outside the API reads no body and closes rather than swallow one (and keeps bodiless requests alive)', async () => {
    const elsewhere = `${sb.restUrl.replace(/\/api\/v10$/, '')}/elsewhere`;
    const r = await send(elsewhere, 'POST', 256 * 1024);
    expect(r.status).toBe(404);
    expect(r.connection).toBe('close');
    const bodiless = await send(elsewhere, 'GET', 0);
    expect(bodiless.status).toBe(404);
    expect(bodiless.connection).not.toBe('close');
  });
});

describe('sandbox admin API', () => {
  it('refuses a body over 1 MiB with 413 and a JSON error, declared or streamed', async () => {
    const expected = { error: 'PAYLOAD_TOO_LARGE', message: `the request body is larger than ${MAX_ADMIN_BODY_BYTES} bytes (1 MiB), the limit of the admin API` };
    const declared = await send(`${sb.adminUrl}/invoke`, 'POST', 16, { declare: MAX_ADMIN_BODY_BYTES + 1 });
    expect(declared).toEqual({ status: 413, connection: 'close', body: expected });
    const streamed = await send(`${sb.adminUrl}/invoke`, 'POST', MAX_ADMIN_BODY_BYTES + 64 * 1024);
    expect(streamed).toEqual({ status: 413, connection: 'close', body: expected });
    // Still serving.
    expect((await send(`${sb.adminUrl}/counters`, 'GET', 0)).status).toBe(200);
  });
});

describe('runtime ops endpoints', () => {
  it('take no body: any request with one gets 413 with a JSON body and the connection closes', async () => {
    // Node sends a GET body chunked only when told to.
    const chunked = { 'transfer-encoding': 'chunked' };
    for (const [method, path, bytes, options] of [
      ['GET', '/healthz', 10, { declare: 10 }],
      ['POST', '/metrics', 64 * 1024, {}],
      ['GET', '/readyz', 4 * 1024 * 1024, { headers: chunked }],
    ] as const) {
      const r = await send(`${opsBase}${path}`, method, bytes, options);
      expect(r.status, `${method} ${path}`).toBe(413);
      expect(r.connection).toBe('close');
      expect(String(r.body?.message)).toContain('these endpoints take no body');
    }
    expect((await send(`${opsBase}/healthz`, 'GET', 0)).status).toBe(200);
  });
});
