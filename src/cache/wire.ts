/**
 * Allocation-free conversions between wire values and the compact forms the cache stores:
 * snowflakes as two numbers, ISO8601 timestamps as milliseconds, asset hashes as 16 bytes.
 */
import { readSnowflake, type SnowflakeHalves } from '../api/snowflake.js';

/**
 * A snowflake split in decimal: `hi` = every digit but the last nine, `lo` = the last nine. Both are
 * exact doubles (a 64-bit id has at most 20 digits, so hi < 2^35), ordering is (hi, lo), and no BigInt
 * or substring is made. Each reader owns the halves it splits into, named for the id they hold (the user id
 * of the member being applied, the channel being stored, ...), so that no value passes between modules
 * unseen.
 */
export type IdHalves = SnowflakeHalves;

/** Halves to split into, owned by one reader. */
export function idHalves(): IdHalves {
  return { hi: 0, lo: 0 };
}

/** Split a snowflake into `out`; false for anything the one id rule (api/snowflake.ts) refuses. */
export function splitSnowflake(s: unknown, out: IdHalves): boolean {
  return readSnowflake(s, out);
}

/** Where isSnowflake's split goes: it only checks, nobody reads these. */
const checkedOnly = idHalves();

export function joinSnowflake(hi: number, lo: number): string {
  return hi === 0 ? String(lo) : `${hi}${String(lo).padStart(9, '0')}`;
}

/** A snowflake's 20-digit zero-padded form, whose lexicographic order is numeric order. */
export function padSnowflake(id: string): string {
  return id.length >= 20 ? id : '00000000000000000000'.slice(id.length) + id;
}

/** The one id rule, as a check only (splitSnowflake keeps the halves). */
export function isSnowflake(s: unknown): s is string {
  return readSnowflake(s, checkedOnly);
}

function digits(s: string, at: number, n: number): number {
  let v = 0;
  for (let i = at; i < at + n; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    v = v * 10 + d;
  }
  return v;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil), integer math only. */
function daysFromCivil(y: number, m: number, d: number): number {
  if (m <= 2) y -= 1;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

function daysInMonth(y: number, m: number): number {
  if (m === 2) return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28;
  return m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31;
}

/**
 * Milliseconds of an ISO8601 timestamp as the service writes them ("2017-03-13T19:19:14.040000+00:00",
 * also "Z" and no fraction). Other forms go through Date.parse. NaN when unparseable.
 */
export function parseTimestamp(s: string): number {
  const len = s.length;
  if (len >= 20 && s.charCodeAt(4) === 45 && s.charCodeAt(7) === 45 && s.charCodeAt(10) === 84 &&
      s.charCodeAt(13) === 58 && s.charCodeAt(16) === 58) {
    const year = digits(s, 0, 4);
    const month = digits(s, 5, 2);
    const day = digits(s, 8, 2);
    const hour = digits(s, 11, 2);
    const minute = digits(s, 14, 2);
    const second = digits(s, 17, 2);
    if (year >= 0 && month >= 1 && month <= 12 && day >= 1 && day <= 31 && hour >= 0 && hour <= 23 &&
        minute >= 0 && minute <= 59 && second >= 0 && second <= 59) {
      let i = 19;
      let ms = 0;
      if (s.charCodeAt(i) === 46) {
        i++;
        let scale = 100;
        let any = false;
        for (; i < len; i++) {
          const d = s.charCodeAt(i) - 48;
          if (d < 0 || d > 9) break;
          any = true;
          ms += d * scale;
          scale /= 10;
        }
        if (!any) return Date.parse(s);
        ms = Math.floor(ms);
      }
      let offset = 0;
      const c = s.charCodeAt(i);
      if (c === 90 && i + 1 === len) {
        offset = 0;
      } else if ((c === 43 || c === 45) && i + 6 === len && s.charCodeAt(i + 3) === 58) {
        const oh = digits(s, i + 1, 2);
        const om = digits(s, i + 4, 2);
        if (oh < 0 || om < 0) return Date.parse(s);
        offset = (oh * 60 + om) * 60_000 * (c === 43 ? 1 : -1);
      } else {
        return Date.parse(s);
      }
      if (day > 28 && day > daysInMonth(year, month)) return NaN;
      return (daysFromCivil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second) * 1000 + ms - offset;
    }
  }
  return Date.parse(s);
}

/** A nullable timestamp field: null/absent -> NaN (the stored "null"), string -> ms (NaN if bad). */
export function timestampOrNaN(v: unknown): number {
  return typeof v === 'string' ? parseTimestamp(v) : NaN;
}

export function nanToNull(v: number): number | null {
  return v === v ? v : null;
}

/** Hash kinds as stored next to the packed bytes. */
export const HASH_NONE = 0;
export const HASH_STATIC = 1;
export const HASH_ANIMATED = 2;
/** Not 32 lowercase hex digits: kept as a string on the side. */
export const HASH_OTHER = 3;

function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  return -1;
}

/**
 * Pack an asset hash ("a_"? + 32 lowercase hex digits) into 16 bytes at `offset`; returns its kind.
 * HASH_OTHER leaves the bytes untouched: the caller keeps such a string itself.
 */
export function packHash(v: unknown, bytes: Uint8Array, offset: number): number {
  if (typeof v !== 'string') return HASH_NONE;
  let start = 0;
  let kind = HASH_STATIC;
  if (v.length === 34 && v.charCodeAt(0) === 97 && v.charCodeAt(1) === 95) {
    start = 2;
    kind = HASH_ANIMATED;
  } else if (v.length !== 32) {
    return HASH_OTHER;
  }
  // One pass: a bad digit half-way leaves the bytes dirty, which HASH_OTHER makes irrelevant.
  for (let i = 0; i < 16; i++) {
    const h = hexValue(v.charCodeAt(start + 2 * i));
    const l = hexValue(v.charCodeAt(start + 2 * i + 1));
    if (h < 0 || l < 0) return HASH_OTHER;
    bytes[offset + i] = (h << 4) | l;
  }
  return kind;
}

/** Whether `v` is the hash packed at `offset` with `kind` (HASH_NONE: v is not a string); never for HASH_OTHER. */
export function sameHash(v: unknown, bytes: Uint8Array, offset: number, kind: number): boolean {
  if (typeof v !== 'string') return kind === HASH_NONE;
  let start = 0;
  if (kind === HASH_ANIMATED) {
    if (v.length !== 34 || v.charCodeAt(0) !== 97 || v.charCodeAt(1) !== 95) return false;
    start = 2;
  } else if (kind !== HASH_STATIC || v.length !== 32) {
    return false;
  }
  for (let i = 0; i < 16; i++) {
    const h = hexValue(v.charCodeAt(start + 2 * i));
    const l = hexValue(v.charCodeAt(start + 2 * i + 1));
    if (h < 0 || l < 0 || bytes[offset + i] !== ((h << 4) | l)) return false;
  }
  return true;
}

const HEX = '0123456789abcdef';

export function unpackHash(bytes: Uint8Array, offset: number, kind: number): string {
  let out = kind === HASH_ANIMATED ? 'a_' : '';
  for (let i = 0; i < 16; i++) {
    const b = bytes[offset + i]!;
    out += HEX[b >> 4]! + HEX[b & 15]!;
  }
  return out;
}
