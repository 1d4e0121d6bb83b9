/**
 * The optional native zstd binding (the `zstd-napi` package, compiled from its bundled zstd sources at install
 * time) and the pure-JS streaming decoder (`fzstd`), loaded once, typed to the few calls gatehouse makes.
 *
 * zstd-napi is an optional dependency: where it cannot build, `loadZstdNapi()` is null and zstd-stream decodes
 * with fzstd; only compression (the sandbox's side of zstd-stream) has no fallback.
 */
import { createRequire } from 'node:module';

/** `[bound on bytes left to flush, bytes written to dst, bytes consumed from src]` */
export type ZstdStreamResult = [number, number, number];

export interface ZstdDecompressionContext {
  decompressStream(dst: Uint8Array, src: Uint8Array): ZstdStreamResult;
}

export interface ZstdCompressionContext {
  setParameter(param: number, value: number): void;
  compressStream2(dst: Uint8Array, src: Uint8Array, endOp: number): ZstdStreamResult;
}

export interface ZstdNapiBinding {
  DCtx: new () => ZstdDecompressionContext;
  CCtx: new () => ZstdCompressionContext;
  CParameter: { compressionLevel: number };
  EndDirective: { continue: number; flush: number; end: number };
  cStreamOutSize(): number;
  dStreamOutSize(): number;
}

/** fzstd's streaming decoder: `push` calls `ondata` synchronously for every block it completes. */
export interface FzstdDecompress {
  ondata: (chunk: Uint8Array, final: boolean) => void;
  push(chunk: Uint8Array, final?: boolean): void;
}

export interface FzstdModule {
  Decompress: new (ondata?: (chunk: Uint8Array, final: boolean) => void) => FzstdDecompress;
}

const require = createRequire(import.meta.url);
let napi: ZstdNapiBinding | null | undefined;
let fzstd: FzstdModule | null | undefined;

/** zstd-napi's native binding if it is installed and loads, else null. Looked up once. */
export function loadZstdNapi(): ZstdNapiBinding | null {
  if (napi === undefined) {
    try {
      const binding: unknown = require('zstd-napi/binding');
      napi = isNapiBinding(binding) ? binding : null;
    } catch {
      napi = null;
    }
  }
  return napi;
}

/** fzstd if it is installed (it is a regular dependency, so normally always), else null. */
export function loadFzstd(): FzstdModule | null {
  if (fzstd === undefined) {
    try {
      const mod: unknown = require('fzstd');
      fzstd = typeof mod === 'object' && mod !== null && typeof (mod as { Decompress?: unknown }).Decompress === 'function' ? (mod as FzstdModule) : null;
    } catch {
      fzstd = null;
    }
  }
  return fzstd;
}

function isNapiBinding(value: unknown): value is ZstdNapiBinding {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Partial<Record<keyof ZstdNapiBinding, unknown>>;
  return (
    typeof v.DCtx === 'function' &&
    typeof v.CCtx === 'function' &&
    typeof (v.EndDirective as { flush?: unknown } | undefined)?.flush === 'number' &&
    typeof (v.CParameter as { compressionLevel?: unknown } | undefined)?.compressionLevel === 'number'
  );
}
