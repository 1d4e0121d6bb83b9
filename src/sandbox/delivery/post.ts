/**
 * One signed POST to an app's URL. node:http(s) rather than fetch: the response is handled in the socket's own
 * callbacks, so an inline interaction response is applied before a request the app sends right after it (an
 * edit of @original on another connection) can reach the sandbox's REST routes.
 */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface PostResult {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

const USER_AGENT = 'Discord-Interactions/1.0 (+https://discord.com) gatehouse-sandbox';
/** Larger responses are cut off: an interaction response is a few KiB at most. */
const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

export function signedPost(url: URL, body: string, headers: Record<string, string>, timeoutMs: number): Promise<PostResult> {
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const payload = Buffer.from(body);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': String(payload.length), 'user-agent': USER_AGENT, ...headers },
        // A fresh connection per delivery, as an outside service would open; nothing lingers after close().
        agent: false,
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_RESPONSE_BYTES) {
            req.destroy(new Error(`the response is larger than ${MAX_RESPONSE_BYTES} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) });
        });
        res.on('error', (err) => {
          clearTimeout(timer);
          reject(err);
        });
      },
    );
    // `timeout` covers idle sockets only; the deadline covers the whole exchange.
    const timer = setTimeout(() => req.destroy(new Error(`no response within ${timeoutMs} ms`)), timeoutMs);
    timer.unref();
    req.on('timeout', () => req.destroy(new Error(`no response within ${timeoutMs} ms`)));
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.end(payload);
  });
}
