import { describe, expect, it } from 'vitest';
import { Fixture } from '../../src/sandbox/fixture.js';
import { resolveSeed } from '../../src/sandbox/options.js';
import { isoTime, memberJson, userJson } from '../../src/sandbox/state/serialize.js';

describe('fixture', () => {
  const fixture = new Fixture(resolveSeed({ guilds: 30, membersPerGuild: 50, seed: 9 }), null);

  it('serializes fixture users directly exactly as their records serialize', () => {
    for (let i = 0; i < fixture.userCount; i++) {
      const user = fixture.user(i);
      expect(fixture.userJson(i, user.id)).toBe(userJson(user));
      expect(JSON.parse(userJson(user))).toMatchObject({ id: user.id, username: user.username, global_name: user.globalName });
    }
  });

  it('maps user ids back to fixture indexes, and nothing else', () => {
    const big = new Fixture(resolveSeed({ guilds: 200, membersPerGuild: 50 }), null);
    for (const i of [0, 1, 9, 10, 4095, 4096, big.userCount - 1]) expect(big.userIndexOf(big.userId(i))).toBe(i);
    expect(big.userIndexOf(big.userId(big.userCount))).toBe(-1);
    expect(fixture.userIndexOf(fixture.applicationId)).toBe(-1);
    expect(fixture.userIndexOf(fixture.guild(0).guild.id)).toBe(-1);
    expect(fixture.userIndexOf('not-an-id')).toBe(-1);
  });

  it('gives every guild distinct members, shares the first ten users, and puts the bot first', () => {
    const a = [...fixture.members(fixture.guild(0)).keys()];
    const b = [...fixture.members(fixture.guild(1)).keys()];
    expect(a[0]).toBe(fixture.applicationId);
    expect(new Set(a).size).toBe(51);
    expect(a.slice(1, 11)).toEqual(b.slice(1, 11));
    expect(new Set([...a.slice(11), ...b.slice(11)]).size).toBe(80);
  });

  it('formats timestamps like Date#toISOString with microseconds and offset', () => {
    for (const ms of [0, 1_600_000_000_123, Date.UTC(2024, 1, 29, 23, 59, 59, 999), Date.UTC(2025, 11, 31, 0, 0, 0, 7)]) {
      expect(isoTime(ms)).toBe(new Date(ms).toISOString().replace('Z', '000+00:00'));
      expect(Date.parse(isoTime(ms))).toBe(ms);
    }
  });

  it('builds member JSON that parses to the member object', () => {
    const members = fixture.members(fixture.guild(3));
    for (const m of [...members.values()].slice(1, 20)) {
      const parsed = JSON.parse(memberJson(m, fixture.userJson(m.userIndex, m.userId)));
      expect(parsed).toMatchObject({ user: { id: m.userId }, nick: m.nick, roles: m.roles, deaf: false, mute: false, flags: 0 });
    }
  });
});
