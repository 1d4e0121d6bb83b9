import type { IncomingMessage } from 'node:http';

/** Whether a request announces a body (a non-zero Content-Length, or a Transfer-Encoding). */
export function requestHasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  if (length !== undefined) return !/^\s*0+\s*$/.test(length);
  return req.headers['transfer-encoding'] !== undefined;
}
