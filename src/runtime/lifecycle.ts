/**
 * One lifecycle for every part of the runtime: a service starts (given an AbortSignal that a stop aborts) and
 * stops (given how long it may take). The runtime lists its services in the order they start; they stop in the
 * reverse order, so a part is always stopped before the parts it was built on.
 *
 * Rules every service keeps:
 * - `start(signal)` looks at `signal` after each wait and goes no further once it aborted (a stop came while
 *   starting). The lifecycle does not wait for it: a start cut short counts as over at the abort.
 * - `stop()` is called for every service whose `start()` was called, whether that start finished, failed or was
 *   cut short, so it undoes whatever part of the start happened (and is a no-op when nothing did).
 * - A service can be started ahead of the others (`ensure`, for `runtime.syncCommands()` without a start); the
 *   lifecycle starts each service once and stops them in reverse list order, which is the reverse of the order
 *   they started in, since every start goes down the list.
 */
import type { Logger } from 'pino';

export interface StopOptions {
  /** How long handlers still running may take to answer. */
  readonly graceMs: number;
  /** Close the shards so that another process can resume their sessions. */
  readonly resumable: boolean;
  /** How long the HTTP endpoint keeps answering after the stop began (a load balancer moves traffic meanwhile). */
  readonly drainMs: number;
  /** When the stop began (performance.now()): windows are counted from there, not from each service's turn. */
  readonly since: number;
}

export interface Service {
  readonly name: string;
  start(signal: AbortSignal): Promise<void> | void;
  stop(options: StopOptions): Promise<void> | void;
}

/** What happened to a service, in order (tests and the debug log). */
export interface LifecycleEvent {
  readonly service: string;
  readonly phase: 'start' | 'started' | 'start-failed' | 'stopped' | 'stop-failed';
}

export class Lifecycle {
  private readonly starts = new Map<Service, Promise<void>>();
  private readonly listeners: Array<(event: LifecycleEvent) => void> = [];

  constructor(
    readonly services: readonly Service[],
    private readonly log: Logger,
  ) {}

  /** Told of every start and stop (tests check the order). */
  onEvent(listener: (event: LifecycleEvent) => void): void {
    this.listeners.push(listener);
  }

  /** Start every service in order; the first failure (or the abort) rejects and starts nothing more. */
  async start(signal: AbortSignal): Promise<void> {
    for (const service of this.services) await this.ensure(service, signal);
  }

  /** Start the services up to and including `service` that have not started (each once). */
  async ensure(service: Service, signal: AbortSignal, skip: ReadonlySet<Service> = new Set()): Promise<void> {
    const at = this.services.indexOf(service);
    if (at === -1) throw new Error(`lifecycle: ${service.name} is not one of its services`);
    for (let i = 0; i <= at; i++) {
      const s = this.services[i]!;
      if (!skip.has(s) || s === service) await this.startOne(s, signal);
    }
  }

  /** Whether a service's start was called (it is stopped at `stop()`). */
  started(service: Service): boolean {
    return this.starts.has(service);
  }

  private startOne(service: Service, signal: AbortSignal): Promise<void> {
    const known = this.starts.get(service);
    if (known !== undefined) return known;
    if (signal.aborted) return Promise.reject(abortError(signal));
    this.emit(service, 'start');
    const run = (async () => {
      try {
        // Cut short at the abort even when the service's own work goes on: stop() then undoes that work.
        await untilAborted(Promise.resolve().then(() => service.start(signal)), signal);
      } catch (err) {
        this.emit(service, 'start-failed');
        throw signal.aborted ? abortError(signal) : err;
      }
      // A start that finished after the abort still counts as cut short: nothing after it starts.
      if (signal.aborted) throw abortError(signal);
      this.emit(service, 'started');
    })();
    this.starts.set(service, run);
    return run;
  }

  /** Stop every service whose start was called, in reverse order; a failure is logged and the next one stops. */
  async stop(options: StopOptions): Promise<void> {
    for (let i = this.services.length - 1; i >= 0; i--) {
      const service = this.services[i]!;
      const started = this.starts.get(service);
      if (started === undefined) continue;
      this.starts.delete(service);
      // A start under way is over (finished, failed or cut short at the abort) before its service stops.
      await started.catch(() => undefined);
      try {
        await service.stop(options);
        this.emit(service, 'stopped');
      } catch (err) {
        this.emit(service, 'stop-failed');
        this.log.warn({ err, component: service.name }, 'error while stopping');
      }
    }
  }

  private emit(service: Service, phase: LifecycleEvent['phase']): void {
    this.log.debug({ service: service.name }, `service ${phase}`);
    for (const listener of this.listeners) listener({ service: service.name, phase });
  }
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('runtime stopped while starting');
}

/** `promise`, or a rejection with the signal's reason once it aborts (the promise's own work goes on). */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(abortError(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}
