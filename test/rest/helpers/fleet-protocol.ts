/** What fleet.ts and fleet-child.ts say to each other over the IPC channel. */
import type { HttpMethod } from '../../../src/rest/index.js';

export interface ChildConfig {
  name: string;
  baseUrl: string;
  redisUrl: string;
  namespace: string;
  token: string;
  /** SharedRateLimits options (JSON-safe ones). */
  store?: Record<string, number | string | boolean>;
  /** RestClient options (JSON-safe ones). */
  client?: Record<string, number | string | boolean>;
}

export interface RequestSpec {
  method: HttpMethod;
  route: string;
  params?: Record<string, string>;
}

export type ChildCommand =
  | { op: 'run'; id: number; requests: RequestSpec[]; concurrency?: number; intervalMs?: number }
  | { op: 'stats'; id: number }
  | { op: 'exit' };

export interface StoreCounters {
  reservations: number;
  flushes: number;
  records: number;
  fallbacks: number;
}

export type ChildReport =
  | { ev: 'ready'; ms: number }
  | { ev: 'done'; id: number; ok: number; failures: string[]; ms: number }
  | { ev: 'stats'; id: number; store: StoreCounters; mode: string; processes: number }
  | { ev: 'rl'; route: string; scope: string; global: boolean; retryAfterMs: number };
