import { describe, expect, it } from 'vitest';
import {
  HASH_ANIMATED,
  HASH_NONE,
  HASH_OTHER,
  HASH_STATIC,
  joinSnowflake,
  packHash,
  padSnowflake,
  parseTimestamp,
  idHalves,
  sameHash,
  splitSnowflake,
  unpackHash,
} from '../../src/cache/wire.js';

describe('snowflakes as two numbers', () => {
  it('round-trips ids of every length up to the largest 64-bit value', () => {
    const halves = idHalves();
    for (const id of ['0', '7', '123456789', '1234567890', '81384788765712384', '1000000000000000003', '18446744073709551615']) {
      expect(splitSnowflake(id, halves)).toBe(true);
      expect(joinSnowflake(halves.hi, halves.lo)).toBe(id);
      expect(Number.isSafeInteger(halves.hi)).toBe(true);
    }
  });

  it('keeps the numeric order in (hi, lo) and in the padded form', () => {
    const ids = ['81384788765712384', '300000000000000002', '1000000000000000003', '999999999', '1000000000'];
    const byNumber = [...ids].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
    const [ha, hb] = [idHalves(), idHalves()];
    const byPair = [...ids].sort((a, b) => {
      splitSnowflake(a, ha);
      splitSnowflake(b, hb);
      return ha.hi - hb.hi || ha.lo - hb.lo;
    });
    expect(byPair).toEqual(byNumber);
    expect([...ids].sort((a, b) => (padSnowflake(a) < padSnowflake(b) ? -1 : 1))).toEqual(byNumber);
    expect(padSnowflake('42')).toHaveLength(20);
  });

  it('rejects anything but 1-20 digits without a leading zero', () => {
    for (const bad of ['', '012', 'abc', '12a4', '123456789012345678901', ' 123', '-1', '1.5', 123, null, undefined]) {
      expect(splitSnowflake(bad, idHalves())).toBe(false);
    }
  });
});

describe('parseTimestamp', () => {
  it('reads the service format and other ISO forms exactly like Date.parse', () => {
    for (const s of [
      '2017-03-13T19:19:14.040000+00:00',
      '2021-03-13T19:19:14+00:00',
      '2021-03-13T19:19:14.123Z',
      '2021-03-13T19:19:14Z',
      '2024-02-29T23:59:59.999999+05:30',
      '2024-02-29T00:00:00.5-08:00',
      '1999-12-31T23:59:59.000000+00:00',
    ]) {
      expect(parseTimestamp(s)).toBe(Date.parse(s));
    }
  });

  it('agrees with Date.parse on a day every five from 1900 to 2100', () => {
    for (let t = Date.UTC(1900, 0, 1), n = 0; t < Date.UTC(2100, 11, 31) && n < 80_000; t += 5 * 86_400_000 + 3_723_456, n++) {
      const iso = new Date(t).toISOString();
      const service = `${iso.slice(0, 23)}000+00:00`;
      expect(parseTimestamp(service)).toBe(t);
      expect(parseTimestamp(iso)).toBe(t);
    }
  });

  it('gives NaN for what is not a timestamp', () => {
    expect(parseTimestamp('2023-02-29T00:00:00+00:00')).toBeNaN();
    expect(parseTimestamp('2023-04-31T00:00:00.000000+00:00')).toBeNaN();
    expect(parseTimestamp('yesterday')).toBeNaN();
    expect(parseTimestamp('2021-13-13T19:19:14+00:00')).toBeNaN();
  });
});

describe('asset hashes in 16 bytes', () => {
  const hash = '8342729096ea3675442027381ff50dfe';

  it('packs static and animated hashes and unpacks them unchanged', () => {
    const bytes = new Uint8Array(48);
    expect(packHash(hash, bytes, 16)).toBe(HASH_STATIC);
    expect(unpackHash(bytes, 16, HASH_STATIC)).toBe(hash);
    expect(packHash(`a_${hash}`, bytes, 32)).toBe(HASH_ANIMATED);
    expect(unpackHash(bytes, 32, HASH_ANIMATED)).toBe(`a_${hash}`);
    expect(unpackHash(bytes, 16, HASH_STATIC)).toBe(hash);
  });

  it('compares a hash with the packed one without writing', () => {
    const bytes = new Uint8Array(32);
    packHash(hash, bytes, 0);
    packHash(`a_${hash}`, bytes, 16);
    expect(sameHash(hash, bytes, 0, HASH_STATIC)).toBe(true);
    expect(sameHash(`a_${hash}`, bytes, 0, HASH_STATIC)).toBe(false);
    expect(sameHash(`${hash.slice(0, 31)}0`, bytes, 0, HASH_STATIC)).toBe(false);
    expect(sameHash(hash.toUpperCase(), bytes, 0, HASH_STATIC)).toBe(false);
    expect(sameHash(`a_${hash}`, bytes, 16, HASH_ANIMATED)).toBe(true);
    expect(sameHash(hash, bytes, 16, HASH_ANIMATED)).toBe(false);
    expect(sameHash(null, bytes, 0, HASH_NONE)).toBe(true);
    expect(sameHash(null, bytes, 0, HASH_STATIC)).toBe(false);
    expect(sameHash(hash, bytes, 0, HASH_NONE)).toBe(false);
    expect(sameHash('abc', bytes, 0, HASH_OTHER)).toBe(false);
  });

  it('leaves other strings to the caller and reports null as none', () => {
    const bytes = new Uint8Array(16);
    expect(packHash(hash.toUpperCase(), bytes, 0)).toBe(HASH_OTHER);
    expect(packHash('abc', bytes, 0)).toBe(HASH_OTHER);
    expect(packHash(`b_${hash}`, bytes, 0)).toBe(HASH_OTHER);
    expect(packHash(null, bytes, 0)).toBe(HASH_NONE);
    expect(packHash(undefined, bytes, 0)).toBe(HASH_NONE);
  });
});
