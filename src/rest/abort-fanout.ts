/**
 * One 'abort' listener per AbortSignal, however many requests or waits hang on it. A caller may pass one
 * signal to many requests (a command handler's, a shutdown's); a listener each would pass the EventTarget's
 * limit of ten and make Node print MaxListenersExceededWarning, and would cost one registration per wait.
 */
const callbacks = new WeakMap<AbortSignal, Set<() => void>>();

/** Call `fn` once when `signal` aborts; the returned function unsubscribes (idempotent). */
export function onAbort(signal: AbortSignal, fn: () => void): () => void {
  let set = callbacks.get(signal);
  if (set === undefined) {
    const fresh = new Set<() => void>();
    set = fresh;
    callbacks.set(signal, fresh);
    signal.addEventListener(
      'abort',
      () => {
        callbacks.delete(signal);
        for (const cb of fresh) cb();
        fresh.clear();
      },
      { once: true },
    );
  }
  const registered = set;
  // A function of its own per subscription, so that the same `fn` twice stays two subscriptions.
  const entry = (): void => fn();
  registered.add(entry);
  return () => {
    registered.delete(entry);
  };
}
