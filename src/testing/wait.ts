/**
 * Bounded waits. Every action of the kit settles on something the sandbox recorded (a callback, an edit, a
 * dispatch the bot handled); when that does not come, the test fails with an error naming what it waited for and
 * what was seen instead, never with a bare "timeout".
 */

/** Subscribes a listener to some source of change; returns the unsubscribe function. */
export type ChangeSource = (listener: () => void) => () => void;

/** A wait of the test kit ran out of time. `what` says what was awaited; the message adds what was seen. */
export class KitTimeoutError extends Error {
  constructor(
    readonly what: string,
    readonly timeoutMs: number,
    detail?: string,
  ) {
    super(`timed out after ${timeoutMs} ms waiting for ${what}${detail !== undefined && detail !== '' ? `\n${detail}` : ''}`);
    this.name = 'KitTimeoutError';
  }
}

export interface WaitOptions {
  /** What is awaited, as the error will say it ("the bot's answer to /roll"). */
  what: string;
  timeoutMs: number;
  /** Sources whose changes may make `check` succeed; it runs again on each. */
  sources: readonly ChangeSource[];
  /** More to say when the wait times out (what the sandbox saw meanwhile). */
  detail?: () => string;
  /** Also check this often, in case a change came by a way no source reports. Default 100 ms. */
  pollMs?: number;
}

/**
 * Resolve with the first value `check` returns that is not undefined. `check` runs at once, on every change of a
 * source and every `pollMs`; when it throws, the wait rejects with that error.
 */
export function waitFor<T>(check: () => T | undefined, options: WaitOptions): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const offs: Array<() => void> = [];
    let done = false;
    let poll: NodeJS.Timeout | undefined;
    let timer: NodeJS.Timeout | undefined;
    const finish = (): void => {
      done = true;
      clearInterval(poll);
      clearTimeout(timer);
      for (const off of offs.splice(0)) off();
    };
    const run = (): void => {
      if (done) return;
      let value: T | undefined;
      try {
        value = check();
      } catch (err) {
        finish();
        reject(err instanceof Error ? err : new Error(String(err)));
        return;
      }
      if (value !== undefined) {
        finish();
        resolve(value);
      }
    };
    run();
    if (done) return;
    for (const source of options.sources) offs.push(source(run));
    poll = setInterval(run, options.pollMs ?? 100);
    timer = setTimeout(() => {
      if (done) return;
      finish();
      let detail: string | undefined;
      try {
        detail = options.detail?.();
      } catch {
        detail = undefined;
      }
      reject(new KitTimeoutError(options.what, options.timeoutMs, detail));
    }, options.timeoutMs);
  });
}
