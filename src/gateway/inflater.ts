/** The inflater interface every transport decompression implements (inflate.ts, zstd-inflate.ts). */
import type { GatewayDecodeError } from './errors.js';

export type ZlibInflateImplementation = 'zlib-sync' | 'node:zlib';
export type ZstdInflateImplementation = 'zstd-napi' | 'fzstd';
export type InflateImplementation = ZlibInflateImplementation | ZstdInflateImplementation;
/** An implementation, or 'auto': the native one of the transport when it loads, else its fallback. */
export type InflatePreference = InflateImplementation | 'auto';

/** Where an inflater delivers complete messages (as text) and its one failure. */
export interface InflaterSink {
  message(text: string): void;
  error(error: GatewayDecodeError): void;
}

export interface Inflater {
  readonly implementation: InflateImplementation;
  /** Feed one WebSocket message's bytes (a fragment of a gateway message, or a whole one). */
  push(frame: Buffer): void;
  /** True while a message fed so far has not been delivered yet (node:zlib only). */
  readonly busy: boolean;
  /** Call `fn` once every message fed so far has been delivered, or the inflater failed or was destroyed. */
  whenIdle(fn: () => void): void;
  destroy(): void;
}
