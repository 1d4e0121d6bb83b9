/**
 * Short strings (names, nicknames, tags) packed into one byte buffer instead of one heap string each:
 * a 9-character name costs 9 bytes plus its 1-byte length, where a JS string costs a 16-byte header,
 * 8-byte alignment and an 8-byte pointer to it. Strings whose characters all fit in a byte are stored
 * one byte per character, others as UTF-16 code units (two bytes each).
 *
 * A string is addressed by (offset, length byte). The length byte holds the number of code units in
 * bits 0-6 and the encoding in bit 7, so a string of up to 127 code units fits; longer ones are the
 * caller's to keep elsewhere (the service's names are at most 32 characters).
 *
 * Space is handed out at the end; a record that grows gets new space and its old space counts as
 * waste. When the buffer is full and at least a third of it is waste, the owner's `relocate` callback
 * moves every live record into a fresh buffer (compaction); otherwise the buffer grows.
 */
export const MAX_ARENA_STRING = 127;
const TWO_BYTE = 0x80;

export type Relocate = (move: (offset: number, bytes: number) => number) => void;

export class StringArena {
  bytes: Uint8Array;
  private end = 0;
  private waste = 0;

  constructor(
    private readonly relocate: Relocate,
    initialBytes = 4096,
  ) {
    this.bytes = new Uint8Array(initialBytes);
  }

  get usedBytes(): number {
    return this.end - this.waste;
  }

  /** Bytes a string takes, or -1 when it is too long for the arena. */
  static sizeOf(s: string): number {
    const n = s.length;
    if (n > MAX_ARENA_STRING) return -1;
    for (let i = 0; i < n; i++) if (s.charCodeAt(i) > 0xff) return 2 * n;
    return n;
  }

  /** Bytes taken by a string with this length byte. */
  static bytesOf(lengthByte: number): number {
    const n = lengthByte & 0x7f;
    return (lengthByte & TWO_BYTE) !== 0 ? 2 * n : n;
  }

  /** Space for `n` bytes; may compact (moving other records) or grow first. */
  reserve(n: number): number {
    if (this.end + n > this.bytes.length) this.makeRoom(n);
    const at = this.end;
    this.end += n;
    return at;
  }

  /** Space that no record uses any more. */
  release(n: number): void {
    this.waste += n;
  }

  /** Write a string sized by sizeOf (`size` bytes) at `offset`; returns its length byte. */
  write(offset: number, s: string, size: number): number {
    const bytes = this.bytes;
    const n = s.length;
    if (size === n) {
      for (let i = 0; i < n; i++) bytes[offset + i] = s.charCodeAt(i);
      return n;
    }
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      bytes[offset + 2 * i] = c & 0xff;
      bytes[offset + 2 * i + 1] = c >> 8;
    }
    return n | TWO_BYTE;
  }

  read(offset: number, lengthByte: number): string {
    const n = lengthByte & 0x7f;
    const bytes = this.bytes;
    if ((lengthByte & TWO_BYTE) === 0) return String.fromCharCode(...bytes.subarray(offset, offset + n));
    const units: number[] = [];
    for (let i = 0; i < n; i++) units.push(bytes[offset + 2 * i]! | (bytes[offset + 2 * i + 1]! << 8));
    return String.fromCharCode(...units);
  }

  /** Whether `s` is stored at (offset, lengthByte) already (lets writers skip unchanged strings). */
  equals(offset: number, lengthByte: number, s: string): boolean {
    const n = lengthByte & 0x7f;
    if (s.length !== n) return false;
    const bytes = this.bytes;
    if ((lengthByte & TWO_BYTE) === 0) {
      for (let i = 0; i < n; i++) if (bytes[offset + i] !== s.charCodeAt(i)) return false;
      return true;
    }
    for (let i = 0; i < n; i++) if ((bytes[offset + 2 * i]! | (bytes[offset + 2 * i + 1]! << 8)) !== s.charCodeAt(i)) return false;
    return true;
  }

  private makeRoom(n: number): void {
    const live = this.end - this.waste;
    if (this.waste * 3 >= this.bytes.length) {
      const old = this.bytes;
      const next = new Uint8Array(Math.max(4096, Math.ceil((live + n) * 1.25)));
      let end = 0;
      this.relocate((offset, size) => {
        next.set(old.subarray(offset, offset + size), end);
        const at = end;
        end += size;
        return at;
      });
      this.bytes = next;
      this.end = end;
      this.waste = 0;
      if (this.end + n <= this.bytes.length) return;
    }
    const grown = new Uint8Array(Math.max(this.bytes.length + n, Math.ceil(this.bytes.length * 1.25)));
    grown.set(this.bytes.subarray(0, this.end));
    this.bytes = grown;
  }
}
