/**
 * An open-addressing hash index from a key of two numbers to a slot of a column table. The keys live
 * in the owner's columns (`keyA[slot]`, `keyB[slot]`), so the index itself is one Int32Array of slots:
 * a few bytes per entry instead of a Map entry plus a key string. Linear probing with backward-shift
 * deletion (no tombstones); resized at 5/8 load.
 *
 * Keys are exact doubles below 2^53 (snowflake halves, or small slot numbers).
 */
export interface KeyColumns {
  readonly keyA: ArrayLike<number>;
  readonly keyB: ArrayLike<number>;
}

const EMPTY = -1;

function mix(a: number, b: number): number {
  // ToUint32 of a double below 2^53 is exact modular arithmetic; fold the high part in as well.
  let h = Math.imul((a >>> 0) ^ ((a / 4294967296) >>> 0), 0x9e3779b1) ^ Math.imul(b >>> 0, 0x85ebca77);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 12;
  return h;
}

export class PairIndex {
  private table: Int32Array;
  private mask: number;
  private used = 0;

  constructor(
    private readonly columns: KeyColumns,
    initialCapacity = 16,
  ) {
    let size = 16;
    while (size * 5 < initialCapacity * 8) size *= 2;
    this.table = new Int32Array(size).fill(EMPTY);
    this.mask = size - 1;
  }

  get size(): number {
    return this.used;
  }

  /** Bytes held by the table (for tests and metrics). */
  get bytes(): number {
    return this.table.byteLength;
  }

  find(a: number, b: number): number {
    const keyA = this.columns.keyA;
    const keyB = this.columns.keyB;
    const table = this.table;
    const mask = this.mask;
    let i = mix(a, b) & mask;
    for (;;) {
      const slot = table[i]!;
      if (slot === EMPTY) return -1;
      if (keyA[slot] === a && keyB[slot] === b) return slot;
      i = (i + 1) & mask;
    }
  }

  /** Record that `slot` (whose keys are already written to the columns) holds (a, b). Not checked for duplicates. */
  insert(a: number, b: number, slot: number): void {
    if ((this.used + 1) * 8 > this.table.length * 5) this.grow();
    const table = this.table;
    const mask = this.mask;
    let i = mix(a, b) & mask;
    while (table[i] !== EMPTY) i = (i + 1) & mask;
    table[i] = slot;
    this.used++;
  }

  /** Forget `slot`, found under (a, b). */
  remove(a: number, b: number, slot: number): void {
    const keyA = this.columns.keyA;
    const keyB = this.columns.keyB;
    const table = this.table;
    const mask = this.mask;
    let i = mix(a, b) & mask;
    for (;;) {
      const s = table[i]!;
      if (s === EMPTY) return;
      if (s === slot) break;
      i = (i + 1) & mask;
    }
    // Backward-shift: pull later entries of the probe run into the hole when their home allows it.
    let hole = i;
    let j = i;
    for (;;) {
      j = (j + 1) & mask;
      const s = table[j]!;
      if (s === EMPTY) break;
      const home = mix(keyA[s]!, keyB[s]!) & mask;
      // Move s if its home is not cyclically within (hole, j].
      const inRange = hole <= j ? home > hole && home <= j : home > hole || home <= j;
      if (!inRange) {
        table[hole] = s;
        hole = j;
      }
    }
    table[hole] = EMPTY;
    this.used--;
  }

  private grow(): void {
    const old = this.table;
    const keyA = this.columns.keyA;
    const keyB = this.columns.keyB;
    const table = new Int32Array(old.length * 2).fill(EMPTY);
    const mask = table.length - 1;
    for (let k = 0; k < old.length; k++) {
      const s = old[k]!;
      if (s === EMPTY) continue;
      let i = mix(keyA[s]!, keyB[s]!) & mask;
      while (table[i] !== EMPTY) i = (i + 1) & mask;
      table[i] = s;
    }
    this.table = table;
    this.mask = mask;
  }
}
