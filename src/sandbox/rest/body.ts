/** Request bodies: size cap, JSON / form / multipart parsing with the service's errors. */
import type { IncomingMessage } from 'node:http';
import { requestHasBody } from '../../util/http-body.js';
import { SandboxApiError, Errors } from '../errors.js';
import type { Body } from './types.js';

/** Larger bodies get 413 / 40005 (the service's default upload cap is 10 MiB per file, plus the JSON). */
export const MAX_BODY_BYTES = 26 * 1024 * 1024;

/**
 * Read a request body of at most `limit` bytes. A larger declared Content-Length is refused before a byte is
 * read; a body that grows past the limit stops being read at once. Either way `tooLarge()` is thrown, and the
 * caller answers 413 with `Connection: close` (see `refuseRestOfBody`), so nothing more of it is taken in.
 */
export function readRaw(req: IncomingMessage, limit = MAX_BODY_BYTES, tooLarge: () => Error = restTooLarge): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        req.pause();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (err: Error): void => {
      cleanup();
      reject(err);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

function restTooLarge(): SandboxApiError {
  return new SandboxApiError(413, 40005, 'Request entity too large');
}

/**
 * Headers for an answer given before the request body was read to its end (413, or a route that reads none):
 * the connection closes after the answer instead of swallowing whatever else the client sends.
 */
export function refuseRestOfBody(req: IncomingMessage, headers: Record<string, string>): void {
  if (!req.complete && requestHasBody(req)) headers.connection = 'close';
}

export async function parseBody(raw: Buffer, contentType: string | undefined): Promise<Body> {
  if (raw.length === 0) return { kind: 'none' };
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/json') {
    try {
      return { kind: 'json', value: JSON.parse(raw.toString('utf8')) as unknown };
    } catch {
      throw Errors.invalidJson();
    }
  }
  if (type === 'application/x-www-form-urlencoded') {
    return { kind: 'form', fields: new URLSearchParams(raw.toString('utf8')) };
  }
  if (type === 'multipart/form-data') {
    // undici's Response parses multipart for us.
    let form: FormData;
    try {
      form = await new Response(raw, { headers: { 'content-type': contentType! } }).formData();
    } catch {
      throw new SandboxApiError(400, 50035, 'Invalid Form Body', { _errors: [{ code: 'MULTIPART_INVALID', message: 'Invalid multipart body' }] });
    }
    let value: unknown = undefined;
    const files: Array<{ field: string; filename: string; size: number; contentType: string }> = [];
    const fields = new Map<string, string>();
    for (const [field, entry] of form.entries()) {
      if (typeof entry === 'string') {
        if (field !== 'payload_json') fields.set(field, entry);
        else {
          try {
            value = JSON.parse(entry) as unknown;
          } catch {
            throw Errors.invalidJson();
          }
        }
      } else {
        files.push({ field, filename: entry.name, size: entry.size, contentType: entry.type });
      }
    }
    return { kind: 'multipart', value, files, fields };
  }
  // A body the service cannot read: invalid Content-Type (protocol §2.2).
  throw new SandboxApiError(400, 50035, 'Invalid Form Body', {
    _errors: [{ code: 'CONTENT_TYPE_INVALID', message: `Expected "Content-Type" header to be one of {'application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'}.` }],
  });
}

/** The JSON value of a body (JSON or multipart payload_json); undefined when there is none. */
export function jsonValue(body: Body): unknown {
  if (body.kind === 'json' || body.kind === 'multipart') return body.value;
  return undefined;
}
