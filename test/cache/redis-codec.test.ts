/**
 * The Redis backend's member encodings, compared with plain reference versions: the role field (one join in
 * the common case, a walk otherwise) and the field list a member record carries (set fields, then deleted ones).
 */
import { describe, expect, it } from 'vitest';
import { encodeRoles, MEMBER_FIELDS, pushMemberFields } from '../../src/cache/redis/codec.js';
import type { MemberPayload } from '../../src/cache/reducer.js';
import { isSnowflake } from '../../src/cache/wire.js';

const GUILD = '100000000000000001';

/** The rule in one obvious walk: snowflakes other than the guild's own id, first occurrence only. */
function referenceRoles(roles: unknown, guildId: string): string {
  if (!Array.isArray(roles)) return ',';
  const kept: string[] = [];
  for (const id of roles as unknown[]) if (isSnowflake(id) && id !== guildId && !kept.includes(id)) kept.push(id);
  return `,${kept.map((id) => `${id},`).join('')}`;
}

function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('encodeRoles', () => {
  it('matches the reference on random role lists, clean and hostile', () => {
    const pool: unknown[] = ['200000000000000001', '200000000000000002', '200000000000000003', '300000000000000004', GUILD, '12', 'x', 7, null, ''];
    for (let seed = 1; seed <= 400; seed++) {
      const rnd = seeded(seed);
      const n = Math.floor(rnd() * 8);
      const clean = rnd() < 0.5;
      const roles = Array.from({ length: n }, (_, i) => (clean ? String(400000000000000000n + BigInt(i)) : pool[Math.floor(rnd() * pool.length)]));
      expect(encodeRoles(roles, GUILD), JSON.stringify(roles)).toBe(referenceRoles(roles, GUILD));
    }
  });

  it('drops duplicates, @everyone and non-snowflakes, and keeps order', () => {
    expect(encodeRoles(['200000000000000002', GUILD, '200000000000000001', '200000000000000002'], GUILD)).toBe(',200000000000000002,200000000000000001,');
    expect(encodeRoles([], GUILD)).toBe(',');
    expect(encodeRoles('200000000000000001', GUILD)).toBe(',');
    expect(encodeRoles(['__proto__', 'constructor'], GUILD)).toBe(',');
  });

  it('a hostile list of 200,000 ids (one duplicate, so not the join) takes linear time: no timeout', () => {
    // Searching the growing string took about 87 s for this on the 2-core machine; a Set takes milliseconds.
    const roles = Array.from({ length: 200_000 }, (_, i) => String(800000000000000000n + BigInt(i)));
    roles.push(roles[0]!);
    const out = encodeRoles(roles, GUILD);
    expect(out.split(',').length - 2).toBe(200_000);
  });

  it('long lists take the walk and agree', () => {
    const roles = Array.from({ length: 100 }, (_, i) => String(500000000000000000n + BigInt(i % 70)));
    expect(encodeRoles(roles, GUILD)).toBe(referenceRoles(roles, GUILD));
  });
});

describe('pushMemberFields', () => {
  const user = { id: '600000000000000001', username: 'u' };

  it('appends set fields, then deleted ones, after what is already there', () => {
    const out: (string | number)[] = ['head'];
    const m = { user, nick: null, roles: ['200000000000000001'], avatar: null, flags: 2 } as unknown as MemberPayload;
    pushMemberFields(out, m, GUILD, true);
    expect(out).toEqual(['head', 2, 'r', ',200000000000000001,', 'f', '2', 2, 'n', 'a']);
  });

  it('a full payload sets what it has and deletes nothing', () => {
    const out: (string | number)[] = [];
    const m = { user, nick: 'nick', roles: [], joined_at: '2020-01-01T00:00:00.000Z', pending: true } as unknown as MemberPayload;
    pushMemberFields(out, m, GUILD, false);
    expect(out).toEqual([4, 'n', 'nick', 'r', ',', 'j', String(Date.UTC(2020, 0, 1)), 'p', '1', 0]);
  });

  it('MEMBER_FIELDS lists every field a member record can set (the MEMBERS script deletes the rest)', () => {
    const out: (string | number)[] = [];
    const m = {
      user,
      nick: 'n',
      roles: ['200000000000000001'],
      joined_at: '2020-01-01T00:00:00.000Z',
      communication_disabled_until: '2030-01-01T00:00:00.000Z',
      flags: 2,
      pending: true,
      avatar: 'a',
      banner: 'b',
    } as unknown as MemberPayload;
    pushMemberFields(out, m, GUILD, false);
    const set = out[0] as number;
    const fields = Array.from({ length: set }, (_, i) => out[1 + 2 * i]);
    expect([...fields].sort()).toEqual([...MEMBER_FIELDS].sort());
  });

  it('deleted fields of one record do not leak into the next', () => {
    const out: (string | number)[] = [];
    pushMemberFields(out, { user, nick: null, banner: null } as unknown as MemberPayload, GUILD, true);
    pushMemberFields(out, { user, nick: 'n' } as unknown as MemberPayload, GUILD, true);
    expect(out).toEqual([0, 2, 'n', 'b', 1, 'n', 'n', 0]);
  });
});
