import type { RestFile } from './types.js';

/**
 * A multipart/form-data body. Messages and the like send their JSON as `payload_json` and each file as
 * `files[n]`; a few endpoints (sticker upload, invite target users) name their file part otherwise
 * (`RestFile.key`) and take plain text fields instead of JSON (`fields`).
 */
export async function encodeMultipart(
  body: unknown,
  files: readonly RestFile[],
  fields?: Readonly<Record<string, string | undefined>>,
): Promise<{ body: Buffer; contentType: string }> {
  const form = new FormData();
  if (fields !== undefined) {
    for (const [name, value] of Object.entries(fields)) if (value !== undefined) form.append(name, value);
  }
  if (body !== undefined) form.append('payload_json', JSON.stringify(body));
  files.forEach((file, i) => {
    const blob =
      file.data instanceof Blob
        ? file.data
        : new Blob([file.data], file.contentType ? { type: file.contentType } : undefined);
    form.append(file.key ?? `files[${i}]`, blob, file.name);
  });
  const encoded = new Response(form);
  const contentType = encoded.headers.get('content-type') ?? 'multipart/form-data';
  return { body: Buffer.from(await encoded.arrayBuffer()), contentType };
}
