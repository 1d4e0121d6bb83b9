/**
 * Growth helpers for column tables: typed arrays are copied into larger ones, 1.25x at a time (a copy
 * is a memcpy; the unused tail it leaves is on average an eighth of the table, not a quarter).
 */

export function nextCapacity(current: number, needed: number): number {
  let cap = Math.max(64, current);
  while (cap < needed) cap = Math.ceil(cap * 1.25);
  return cap;
}

type Typed = Float64Array | Int32Array | Uint32Array | Uint16Array | Uint8Array;

export function grown<T extends Typed>(old: T, length: number, fill?: number): T {
  const next = new (old.constructor as new (n: number) => T)(length);
  next.set(old);
  if (fill !== undefined && fill !== 0) next.fill(fill, old.length);
  return next;
}

/** A stack of free slot numbers. */
export class FreeList {
  private items: number[] = [];

  get size(): number {
    return this.items.length;
  }

  push(slot: number): void {
    this.items.push(slot);
  }

  /** A free slot, or -1. */
  pop(): number {
    return this.items.length > 0 ? this.items.pop()! : -1;
  }

  clear(): void {
    this.items = [];
  }
}
