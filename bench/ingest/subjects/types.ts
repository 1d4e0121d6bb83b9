import type { EventCounts, StateMessage, VerifyRequest } from '../protocol.js';

/** One client under test, driven by child.ts in its own process. */
export interface IngestSubject {
  /** Log in (or, for the floor, decode the startup bytes); resolves once every guild is cached. */
  start(): Promise<void>;
  /** Resolves once every live event was seen and every interaction answered. */
  eventsDone(): Promise<EventCounts>;
  /** Wait for writes the subject still has in flight (the Redis cache's pipeline). */
  settle(): Promise<void>;
  members(): Promise<number>;
  verify(request: VerifyRequest): Promise<Omit<StateMessage, 'type'>>;
  stop(): Promise<void>;
}

/** Resolves when `check` first returns true after a count (checked at once, too). */
export function whenCounted(setHook: (hook: () => void) => void, check: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    if (check()) {
      resolve();
      return;
    }
    setHook(() => {
      if (check()) {
        setHook(() => {});
        resolve();
      }
    });
  });
}
