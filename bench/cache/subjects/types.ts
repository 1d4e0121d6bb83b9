import type { DispatchPacket } from '../workload.js';

export interface SubjectCounts {
  guilds: number;
  members: number;
  users: number;
  roles: number;
}

/** One cache implementation fed the benchmark workload. */
export interface CacheSubject {
  readonly name: string;
  /** Whether the process heap holds the cache (false for Redis, whose data lives in the server). */
  readonly inProcess: boolean;
  setup(): Promise<void>;
  /** Apply one batch of dispatches; the time spent here (until the promise settles) is what is measured. */
  feed(packets: DispatchPacket[]): void | Promise<void>;
  counts(): Promise<SubjectCounts>;
  /** Extra measurements (e.g. Redis server memory), reported as they are. */
  extra?(): Promise<Record<string, number>>;
  teardown(): Promise<void>;
}
