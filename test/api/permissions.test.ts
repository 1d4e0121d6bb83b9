/**
 * The permission calculator (src/api/permissions.ts) against the service's documented algorithm (docs/protocol.md
 * §12.6: the owner and administrators, the eight-step order of overwrites, implicit denials, threads, timeouts): a
 * table of cases written from those rules, then a randomized comparison with an independent implementation in this
 * file that decides bit by bit, walking the eight documented steps literally.
 */
import { PermissionFlagsBits as P } from 'discord-api-types/v10';
import { describe, expect, it } from 'vitest';
import { ALL_PERMISSIONS, computePermissions, permissionNames, type PermissionOverwrite, type PermissionSubject } from '../../src/api/permissions.js';

const GUILD = '100000000000000000';
const OWNER = '200000000000000000';
const USER = '300000000000000001';
const OTHER = '300000000000000002';
const R1 = '400000000000000001';
const R2 = '400000000000000002';
const R3 = '400000000000000003';
const NOW = Date.parse('2030-01-01T00:00:00Z');

const EVERYONE = P.ViewChannel | P.SendMessages | P.ReadMessageHistory | P.EmbedLinks | P.AttachFiles | P.AddReactions;
const SENDING = P.MentionEveryone | P.SendTTSMessages | P.AttachFiles | P.EmbedLinks;

interface Case {
  what: string;
  userId?: string;
  everyone?: bigint;
  roles?: Array<[string, bigint]>;
  timeout?: number | null;
  overwrites?: PermissionOverwrite[];
  thread?: boolean;
  /** No channel: guild-level permissions. */
  guildLevel?: boolean;
  want: bigint;
}

const role = (id: string, allow: bigint, deny = 0n): PermissionOverwrite => ({ id, type: 0, allow, deny });
const member = (id: string, allow: bigint, deny = 0n): PermissionOverwrite => ({ id, type: 1, allow, deny });

const CASES: Case[] = [
  // Owner
  { what: 'the owner has every permission (guild level)', userId: OWNER, everyone: 0n, guildLevel: true, want: ALL_PERMISSIONS },
  { what: 'the owner ignores overwrites that deny everything', userId: OWNER, overwrites: [role(GUILD, 0n, ALL_PERMISSIONS), member(OWNER, 0n, ALL_PERMISSIONS)], want: ALL_PERMISSIONS },
  { what: 'the owner is exempt from a timeout', userId: OWNER, timeout: NOW + 60_000, want: ALL_PERMISSIONS },
  // Administrator
  { what: 'ADMINISTRATOR from a role gives every permission', roles: [[R1, P.Administrator]], guildLevel: true, want: ALL_PERMISSIONS },
  { what: 'ADMINISTRATOR bypasses a member overwrite denying VIEW_CHANNEL', roles: [[R1, P.Administrator]], overwrites: [member(USER, 0n, P.ViewChannel)], want: ALL_PERMISSIONS },
  { what: 'ADMINISTRATOR on @everyone gives everyone every permission', everyone: P.Administrator, overwrites: [role(GUILD, 0n, P.SendMessages)], want: ALL_PERMISSIONS },
  { what: 'an administrator is exempt from a timeout', roles: [[R1, P.Administrator]], timeout: NOW + 60_000, want: ALL_PERMISSIONS },
  { what: 'an overwrite denying ADMINISTRATOR changes nothing (it is decided at guild level)', roles: [[R1, P.Administrator]], overwrites: [role(R1, 0n, P.Administrator)], want: ALL_PERMISSIONS },
  // Base permissions
  { what: 'no roles: the @everyone role', guildLevel: true, want: EVERYONE },
  { what: 'roles are ORed onto @everyone', roles: [[R1, P.ManageMessages], [R2, P.KickMembers]], guildLevel: true, want: EVERYONE | P.ManageMessages | P.KickMembers },
  { what: 'PIN_MESSAGES (1 << 51) from a role is exact', roles: [[R1, P.PinMessages]], guildLevel: true, want: EVERYONE | P.PinMessages },
  { what: 'BYPASS_SLOWMODE (1 << 52) from a role is exact', roles: [[R1, P.BypassSlowmode]], guildLevel: true, want: EVERYONE | P.BypassSlowmode },
  { what: 'a bit above 53 (1 << 60) is kept', roles: [[R1, 1n << 60n]], guildLevel: true, want: EVERYONE | (1n << 60n) },
  { what: 'bit 63 is kept', roles: [[R1, 1n << 63n]], guildLevel: true, want: EVERYONE | (1n << 63n) },
  { what: 'guild level: no implicit denial without VIEW_CHANNEL', everyone: P.SendMessages | P.EmbedLinks, guildLevel: true, want: P.SendMessages | P.EmbedLinks },
  // @everyone overwrite
  { what: '@everyone deny removes a bit (and SEND_MESSAGES takes the sending bits)', overwrites: [role(GUILD, 0n, P.SendMessages)], want: EVERYONE & ~P.SendMessages & ~SENDING },
  { what: '@everyone allow adds a bit', overwrites: [role(GUILD, P.ManageMessages)], want: EVERYONE | P.ManageMessages },
  { what: '@everyone deny and allow of one bit: allow applies after deny', overwrites: [role(GUILD, P.AddReactions, P.AddReactions)], want: EVERYONE },
  // Role overwrites
  { what: 'a role overwrite allows', roles: [[R1, 0n]], overwrites: [role(R1, P.ManageThreads)], want: EVERYONE | P.ManageThreads },
  { what: 'a role overwrite denies', roles: [[R1, 0n]], overwrites: [role(R1, 0n, P.AddReactions)], want: EVERYONE & ~P.AddReactions },
  { what: 'two roles, one denies and one allows a bit: allowed (all denies, then all allows)', roles: [[R1, 0n], [R2, 0n]], overwrites: [role(R1, 0n, P.AddReactions), role(R2, P.AddReactions)], want: EVERYONE },
  { what: 'a role allow overrides the @everyone deny', roles: [[R1, 0n]], overwrites: [role(GUILD, 0n, P.SendMessages), role(R1, P.SendMessages)], want: EVERYONE },
  { what: 'a role deny overrides the @everyone allow', roles: [[R1, 0n]], overwrites: [role(GUILD, P.ManageMessages), role(R1, 0n, P.ManageMessages)], want: EVERYONE },
  { what: "an overwrite of a role the member lacks does nothing", roles: [[R1, 0n]], overwrites: [role(R2, 0n, P.ViewChannel), role(R3, P.BanMembers)], want: EVERYONE },
  { what: 'a role overwrite typed as a member does not apply to the role', roles: [[R1, 0n]], overwrites: [member(R1, 0n, P.AddReactions)], want: EVERYONE },
  { what: 'PIN_MESSAGES through a role overwrite', roles: [[R1, 0n]], overwrites: [role(R1, P.PinMessages)], want: EVERYONE | P.PinMessages },
  // Member overwrite
  { what: "the member's deny overrides a role allow", roles: [[R1, 0n]], overwrites: [role(R1, P.ManageMessages), member(USER, 0n, P.ManageMessages)], want: EVERYONE },
  { what: "the member's allow overrides a role deny", roles: [[R1, 0n]], overwrites: [role(R1, 0n, P.AddReactions), member(USER, P.AddReactions)], want: EVERYONE },
  { what: "the member's allow overrides the @everyone deny", overwrites: [role(GUILD, 0n, P.ViewChannel), member(USER, P.ViewChannel)], want: EVERYONE },
  { what: "another member's overwrite does nothing", overwrites: [member(OTHER, 0n, P.ViewChannel)], want: EVERYONE },
  { what: 'a member overwrite typed as a role does not apply to the member', overwrites: [role(USER, 0n, P.ViewChannel)], want: EVERYONE },
  { what: "the member's deny of BYPASS_SLOWMODE overrides the role's grant", roles: [[R1, P.BypassSlowmode]], overwrites: [member(USER, 0n, P.BypassSlowmode)], want: EVERYONE },
  // Threads
  { what: "a thread uses its parent's overwrites: no VIEW_CHANNEL there, nothing in the thread", thread: true, overwrites: [role(GUILD, 0n, P.ViewChannel)], want: 0n },
  { what: 'in a thread SEND_MESSAGES_IN_THREADS is what sending takes: the sending bits stay without SEND_MESSAGES', thread: true, everyone: (EVERYONE & ~P.SendMessages) | P.SendMessagesInThreads, want: (EVERYONE & ~P.SendMessages) | P.SendMessagesInThreads },
  { what: 'in a thread without SEND_MESSAGES_IN_THREADS the sending bits go (SEND_MESSAGES itself stays)', thread: true, want: EVERYONE & ~SENDING },
  { what: 'outside threads SEND_MESSAGES_IN_THREADS does not matter for the sending bits', everyone: EVERYONE | P.MentionEveryone, want: EVERYONE | P.MentionEveryone },
  // Implicit denials
  { what: 'no VIEW_CHANNEL (@everyone deny): nothing at all', roles: [[R1, P.ManageMessages]], overwrites: [role(GUILD, 0n, P.ViewChannel)], want: 0n },
  { what: 'no VIEW_CHANNEL (member deny) despite role allows: nothing', roles: [[R1, 0n]], overwrites: [role(R1, P.ManageMessages), member(USER, 0n, P.ViewChannel)], want: 0n },
  { what: 'no SEND_MESSAGES: exactly MENTION_EVERYONE, SEND_TTS_MESSAGES, ATTACH_FILES, EMBED_LINKS go with it', everyone: EVERYONE | P.MentionEveryone | P.SendTTSMessages | P.SendPolls | P.SendVoiceMessages, overwrites: [role(GUILD, 0n, P.SendMessages)], want: (EVERYONE & ~P.SendMessages & ~SENDING) | P.SendPolls | P.SendVoiceMessages },
  { what: 'no SEND_MESSAGES keeps bits 51 and 52', roles: [[R1, P.PinMessages | P.BypassSlowmode]], overwrites: [role(GUILD, 0n, P.SendMessages)], want: (EVERYONE & ~P.SendMessages & ~SENDING) | P.PinMessages | P.BypassSlowmode },
  { what: 'no SEND_MESSAGES keeps READ_MESSAGE_HISTORY and ADD_REACTIONS', everyone: P.ViewChannel | P.ReadMessageHistory | P.AddReactions | P.EmbedLinks, want: P.ViewChannel | P.ReadMessageHistory | P.AddReactions },
  // Timeouts
  { what: 'timed out (guild level): only VIEW_CHANNEL and READ_MESSAGE_HISTORY', roles: [[R1, P.ManageMessages | P.PinMessages]], timeout: NOW + 1, guildLevel: true, want: P.ViewChannel | P.ReadMessageHistory },
  { what: 'timed out in a channel they cannot view: nothing', timeout: NOW + 60_000, overwrites: [role(GUILD, 0n, P.ViewChannel)], want: 0n },
  { what: 'timed out in a channel: only VIEW_CHANNEL and READ_MESSAGE_HISTORY, overwrite allows included', timeout: NOW + 60_000, overwrites: [member(USER, P.ManageMessages | P.BypassSlowmode)], want: P.ViewChannel | P.ReadMessageHistory },
  { what: 'a timeout in the past is none', timeout: NOW - 1, want: EVERYONE },
  { what: 'a timeout ending right now is over', timeout: NOW, want: EVERYONE },
  { what: 'timed out without READ_MESSAGE_HISTORY: only VIEW_CHANNEL', everyone: P.ViewChannel | P.SendMessages, timeout: NOW + 60_000, want: P.ViewChannel },
];

function subjectOf(c: Case): PermissionSubject {
  const roles = c.roles ?? [];
  return {
    guildId: GUILD,
    ownerId: OWNER,
    userId: c.userId ?? USER,
    everyone: c.everyone ?? EVERYONE,
    rolePermissions: roles.map(([, p]) => p),
    roleIds: roles.map(([id]) => id),
    timedOutUntil: c.timeout ?? null,
    now: NOW,
  };
}

describe('permission calculator: the documented algorithm, case by case', () => {
  it('has at least 40 cases', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(40);
  });
  for (const c of CASES) {
    it(c.what, () => {
      const got = computePermissions(subjectOf(c), c.guildLevel === true ? undefined : { overwrites: c.overwrites ?? [], thread: c.thread === true });
      expect(permissionNames(got)).toEqual(permissionNames(c.want));
      expect(got).toBe(c.want);
    });
  }
});

/**
 * The reference: each bit decided on its own by walking the documented hierarchy in order (each step sets or
 * clears the bit), then the implicit rules and the timeout, with no bit masks over whole sets.
 */
function reference(s: PermissionSubject, channel: { overwrites: readonly PermissionOverwrite[]; thread: boolean } | undefined): bigint {
  const has = (set: bigint, bit: bigint): boolean => (set & bit) === bit;
  const bits: bigint[] = [];
  for (let n = 0n; n < 64n; n++) bits.push(1n << n);
  const owner = s.ownerId === s.userId;
  const adminRole = has(s.everyone, P.Administrator) || s.rolePermissions.some((p) => has(p, P.Administrator));
  const all = new Set(Object.values(P));
  if (owner || adminRole) return bits.filter((b) => all.has(b)).reduce((a, b) => a + b, 0n);
  const decided = new Map<bigint, boolean>();
  for (const bit of bits) {
    // 1. @everyone at guild level; 2. allowed by one of the member's roles.
    let on = has(s.everyone, bit) || s.rolePermissions.some((p) => has(p, bit));
    if (channel !== undefined) {
      const everyone = channel.overwrites.filter((o) => o.type === 0 && o.id === s.guildId);
      // 3. @everyone denies; 4. @everyone allows.
      if (everyone.some((o) => has(o.deny, bit))) on = false;
      if (everyone.some((o) => has(o.allow, bit))) on = true;
      const mine = channel.overwrites.filter((o) => o.type === 0 && o.id !== s.guildId && s.roleIds.includes(o.id));
      // 5. role denies; 6. role allows.
      if (mine.some((o) => has(o.deny, bit))) on = false;
      if (mine.some((o) => has(o.allow, bit))) on = true;
      const own = channel.overwrites.filter((o) => o.type === 1 && o.id === s.userId);
      // 7. member denies; 8. member allows.
      if (own.some((o) => has(o.deny, bit))) on = false;
      if (own.some((o) => has(o.allow, bit))) on = true;
    }
    decided.set(bit, on);
  }
  if (channel !== undefined) {
    if (!decided.get(P.ViewChannel)) return 0n;
    const sendBit = channel.thread ? P.SendMessagesInThreads : P.SendMessages;
    if (!decided.get(sendBit)) for (const b of [P.MentionEveryone, P.SendTTSMessages, P.AttachFiles, P.EmbedLinks]) decided.set(b, false);
  }
  const timedOut = s.timedOutUntil !== null && s.timedOutUntil > (s.now ?? Date.now());
  let out = 0n;
  for (const [bit, on] of decided) {
    if (!on) continue;
    if (timedOut && bit !== P.ViewChannel && bit !== P.ReadMessageHistory) continue;
    out += bit;
  }
  return out;
}

/** mulberry32. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('permission calculator: randomized against an independent implementation', () => {
  it('agrees on 5,000 random members, roles and overwrites (every bit up to 63)', () => {
    const rand = prng(0x5eed);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
    // Bits that matter most, plus any bit 0-63.
    const interesting = [P.ViewChannel, P.SendMessages, P.SendMessagesInThreads, P.EmbedLinks, P.AttachFiles, P.MentionEveryone, P.SendTTSMessages, P.ReadMessageHistory, P.PinMessages, P.BypassSlowmode, P.ManageMessages];
    const bitsOf = (density: number): bigint => {
      let v = 0n;
      for (const b of interesting) if (rand() < density) v |= b;
      for (let i = 0; i < 4; i++) if (rand() < density) v |= 1n << BigInt(Math.floor(rand() * 64));
      if (rand() < 0.04) v |= P.Administrator;
      return v;
    };
    const roleIds = [R1, R2, R3, '400000000000000004', '400000000000000005'];
    let differences = 0;
    const first: string[] = [];
    for (let i = 0; i < 5000; i++) {
      const userId = rand() < 0.05 ? OWNER : pick([USER, OTHER]);
      const memberRoles = roleIds.filter(() => rand() < 0.4);
      const subject: PermissionSubject = {
        guildId: GUILD,
        ownerId: OWNER,
        userId,
        everyone: bitsOf(0.5),
        rolePermissions: memberRoles.map(() => bitsOf(0.2)),
        roleIds: memberRoles,
        timedOutUntil: rand() < 0.15 ? NOW + (rand() < 0.5 ? 1000 : -1000) : null,
        now: NOW,
      };
      const overwrites: PermissionOverwrite[] = [];
      const count = Math.floor(rand() * 6);
      // A channel has at most one overwrite per target (the service keeps them by id).
      const targets = [GUILD, ...roleIds, USER, OTHER, OWNER].sort(() => rand() - 0.5).slice(0, count);
      for (const target of targets) {
        overwrites.push({ id: target, type: rand() < 0.85 ? (target.startsWith('3') || target === OWNER ? 1 : 0) : rand() < 0.5 ? 0 : 1, allow: bitsOf(0.15), deny: bitsOf(0.15) });
      }
      const channel = rand() < 0.15 ? undefined : { overwrites, thread: rand() < 0.3 };
      const got = computePermissions(subject, channel);
      const want = reference(subject, channel);
      if (got !== want) {
        differences++;
        if (first.length < 3) first.push(JSON.stringify({ subject, channel, got: got.toString(), want: want.toString() }, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)));
      }
    }
    expect(first).toEqual([]);
    expect(differences).toBe(0);
  });
});
