/** Request bodies: size cap, JSON / form / multipart parsing with the service's errors. */
import type { IncomingMessage } from 'node:http';
import { ApiError, Errors } from '../errors.js';
import type { Body } from './types.js';

/** Larger bodies get 413 / 40005 (the service's default upload cap is 10 MiB per file, plus the JSON). */
export const MAX_BODY_BYTES = 26 * 1024 * 1024;

export async function readRaw(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > MAX_BODY_BYTES) throw new ApiError(413, 40005, 'Request entity too large');
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
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
      throw new ApiError(400, 50035, 'Invalid Form Body', { _errors: [{ code: 'MULTIPART_INVALID', message: 'Invalid multipart body' }] });
    }
    let value: unknown = undefined;
    const files: Array<{ field: string; filename: string; size: number; contentType: string }> = [];
    for (const [field, entry] of form.entries()) {
      if (typeof entry === 'string') {
        if (field === 'payload_json') {
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
    return { kind: 'multipart', value, files };
  }
  // A body the service cannot read: invalid Content-Type (reference §2.2).
  throw new ApiError(400, 50035, 'Invalid Form Body', {
    _errors: [{ code: 'CONTENT_TYPE_INVALID', message: `Expected "Content-Type" header to be one of {'application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'}.` }],
  });
}

/** The JSON value of a body (JSON or multipart payload_json); undefined when there is none. */
export function jsonValue(body: Body): unknown {
  if (body.kind === 'json' || body.kind === 'multipart') return body.value;
  return undefined;
}
