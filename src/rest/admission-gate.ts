/**
 * The order in which the requests of one identity ask for a global slot. While the global window has room,
 * requests ask the store as they come (as many at once as the store's last answer said there is room for);
 * once the store says the window is full, the others wait here in their order and one timer lets them ask
 * again, one at a time, when the store said it would have room. Without it every bucket's head would wait and
 * ask on its own: with a hundred buckets waiting, a hundred timers firing together, a hundred questions (each a
 * Redis round trip for a shared store) for the one slot that freed.
 */

export interface GateWaiter {
  /** Lower asks first: the order in which requests first asked, kept when one is sent back to wait. */
  readonly order: number;
  /** Called once, when the waiter may ask (it counts as asking then). */
  readonly admit: () => void;
}

/** What an answer of the store said of the global window. */
export interface GateVerdict {
  /** Full: nobody asks again before this many ms. */
  readonly closedForMs?: number;
  /** Room for this many asks at once. */
  readonly parallel?: number;
}

export class AdmissionGate {
  private waiters: GateWaiter[] = [];
  private asking = 0;
  private allowed = 1;
  private openAt = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** Requests waiting to ask. */
  get waiting(): number {
    return this.waiters.length;
  }

  /** True when a request may ask now: it counts as asking until `leave`. False: it must `wait`. */
  tryEnter(): boolean {
    if (this.waiters.length > 0 || this.asking >= this.allowed || this.now() < this.openAt) return false;
    this.asking++;
    return true;
  }

  /** Wait for a turn; `waiter.admit` is called when it comes. */
  wait(waiter: GateWaiter): void {
    let i = this.waiters.length;
    while (i > 0 && this.waiters[i - 1]!.order > waiter.order) i--;
    this.waiters.splice(i, 0, waiter);
    this.pump();
  }

  /** A waiter that will not ask after all (aborted, client closed). */
  cancel(waiter: GateWaiter): void {
    const i = this.waiters.indexOf(waiter);
    if (i !== -1) this.waiters.splice(i, 1);
  }

  /** An ask is over; the store's answer may close the gate or open it wider. */
  leave(verdict: GateVerdict): void {
    this.asking = Math.max(0, this.asking - 1);
    if (verdict.closedForMs !== undefined) {
      this.openAt = Math.max(this.openAt, this.now() + verdict.closedForMs);
      this.allowed = 1;
    } else if (verdict.parallel !== undefined) {
      this.allowed = Math.max(1, verdict.parallel);
    }
    this.pump();
  }

  /** Nothing waits any more; the timer goes. */
  close(): void {
    this.waiters = [];
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  private pump(): void {
    if (this.waiters.length === 0) return;
    const wait = this.openAt - this.now();
    if (wait > 0) {
      if (this.timer === null) {
        this.timer = setTimeout(() => {
          this.timer = null;
          this.pump();
        }, Math.ceil(wait));
      }
      return;
    }
    while (this.waiters.length > 0 && this.asking < this.allowed) {
      const next = this.waiters.shift()!;
      this.asking++;
      next.admit();
    }
  }
}
