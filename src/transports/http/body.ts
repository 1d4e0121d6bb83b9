/**
 * Reading a request body with a size bound, before anything else looks at it: a declared Content-Length over
 * the limit is refused without reading a byte, and a chunked body is refused as soon as it passes the limit
 * (the rest is never buffered).
 */
import type { IncomingMessage } from 'node:http';

export type BodyResult = { kind: 'body'; body: Buffer } | { kind: 'too-large' } | { kind: 'aborted' };

export function readBoundedBody(req: IncomingMessage, limit: number): Promise<BodyResult> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) return Promise.resolve({ kind: 'too-large' });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (result: BodyResult): void => {
      if (done) return;
      done = true;
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onAbort);
      req.off('close', onClose);
      resolve(result);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        // Stop reading; the caller answers 413 and closes the connection.
        req.pause();
        finish({ kind: 'too-large' });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => finish({ kind: 'body', body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size) });
    const onAbort = (): void => finish({ kind: 'aborted' });
    const onClose = (): void => {
      if (!req.complete) finish({ kind: 'aborted' });
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onAbort);
    req.on('close', onClose);
  });
}
