import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A capturing server on 127.0.0.1 for the route-helper conformance test: it records what arrives (method,
 * path, query, headers, raw body) and answers every request 200 with `{}` (or a scripted answer), so each
 * helper's request goes out through the real client and is seen exactly as the service would see it.
 */

export interface CapturedPart {
  name: string;
  /** Set for file parts. */
  filename: string | null;
  contentType: string | null;
  text: string;
}

export interface Captured {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export interface ScriptedAnswer {
  status: number;
  body?: unknown;
  headers?: Readonly<Record<string, string>>;
}

export interface CaptureServer {
  readonly baseUrl: string;
  readonly requests: Captured[];
  /** Answer the next request with this (queued in order) instead of 200 `{}`. */
  enqueue(answer: ScriptedAnswer): void;
  close(): Promise<void>;
}

/** Bounds what one test may send, so a runaway helper cannot fill memory. */
const MAX_BODY = 16 * 1024 * 1024;

export async function startCaptureServer(): Promise<CaptureServer> {
  const requests: Captured[] = [];
  const sockets = new Set<Socket>();
  const queue: ScriptedAnswer[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY) chunks.push(c);
    });
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      requests.push({
        method: req.method ?? '',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks),
      });
      const answer = queue.shift() ?? { status: 200, body: {} };
      if (answer.status === 204 || answer.body === undefined) {
        res.writeHead(answer.status, { ...answer.headers }).end();
      } else {
        res
          .writeHead(answer.status, { ...answer.headers, 'content-type': 'application/json' })
          .end(JSON.stringify(answer.body));
      }
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    enqueue(answer) {
      queue.push(answer);
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The body's parts, read by the platform's own multipart parser (undici's), not by code of ours. */
export async function multipartParts(captured: Captured): Promise<CapturedPart[]> {
  const type = captured.headers['content-type'] ?? '';
  const form = await new Response(captured.body, { headers: { 'content-type': type } }).formData();
  const parts: CapturedPart[] = [];
  for (const [name, value] of form.entries()) {
    if (typeof value === 'string') parts.push({ name, filename: null, contentType: null, text: value });
    else parts.push({ name, filename: value.name, contentType: value.type || null, text: await value.text() });
  }
  return parts;
}
