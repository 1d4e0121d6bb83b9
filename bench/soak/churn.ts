/**
 * The churn of the soak (issue 33), shared by the bench (bench/soak/memory.bench.ts: millions of events, the bot
 * in a child process so that its heap is measured alone) and the test (test/runtime/soak.test.ts: thousands, in
 * CI). Each cycle: members join, leave and change; entitlements are granted and deleted (3% of the events are
 * deletions, so the cache keeps tombstones); roles are created, changed and deleted by the bot over REST; 1% are
 * commands the bot answers over REST; one in 2,000 is the bot leaving a guild or joining it again. A cycle ends with a RESUME, every third with a fresh IDENTIFY, and then the
 * bot's cache must equal the sandbox's state: the guilds the bot is in, every guild's member ids and role ids
 * (none of a guild it left), and the number of live entitlements.
 */
import type { CacheReader } from '../../src/cache/types.js';
import { RestClient, createRole, deleteRole, editRole, listRoles } from '../../src/rest/index.js';
import type { Sandbox, SandboxOptions } from '../../src/sandbox/index.js';
import { Prng } from '../lib/prng.js';

/**
 * Guilds stay at most 45 members, under large_threshold (50): with GUILD_PRESENCES (the bot must ask for it) every
 * GUILD_CREATE lists all members, so a fresh IDENTIFY tells the bot the whole truth (without it, only the bot's own).
 */
const GUILDS = 10;
const MEMBERS = 30;
const MAX_MEMBERS = 45;
/** Churned roles kept per guild: with the seed's, far under the service's 250. */
const ROLES_KEPT = 5;
const MANAGE_ROLES = 1n << 28n;
/**
 * Live entitlements the churn grants up to: deletions (3%) and grants (3%) alone would wander like a random walk
 * (about 600 after 1.4 M events), and the cache's rightful growth with them would read as a slope.
 */
const LIVE_MAX = 100;
/** One event in this many is the bot leaving a guild or joining the one it left again. */
const GUILD_FLIP_ODDS = 2_000;

/** What the bot's cache holds, as the churn compares it with the sandbox. */
export interface CacheView {
  /** The guilds (of those asked about) the cache holds. */
  readonly guilds: readonly string[];
  /** guild id -> member ids, and guild id -> role ids (null-prototype records: ids come from outside). */
  readonly members: Readonly<Record<string, readonly string[]>>;
  readonly roles: Readonly<Record<string, readonly string[]>>;
  readonly entitlements: number;
}

/** The bot under soak (intents GUILDS, GUILD_MEMBERS and GUILD_PRESENCES): asked for its cache's view at each cycle's end. */
export interface SoakBot {
  view(): Promise<CacheView>;
}

export interface CycleEnd {
  readonly cycle: number;
  /** Events caused so far. */
  readonly events: number;
  /** Differences between the cache and the sandbox once settled (0 when equal within 60 s). */
  readonly mismatches: number;
  /** The first few of them, one line each. */
  readonly mismatched: readonly string[];
  readonly liveEntitlements: number;
}

export interface ChurnOptions {
  readonly sandbox: Sandbox;
  readonly bot: SoakBot;
  readonly cycles: number;
  readonly eventsPerCycle: number;
  readonly seed?: number;
  /** Called once the cache has settled at a cycle's end (the bench samples the heap here). */
  readonly onCycleEnd?: (end: CycleEnd) => Promise<void> | void;
}

export interface ChurnResult {
  readonly cycles: readonly CycleEnd[];
  readonly invoked: number;
  readonly answered: number;
  /** Times the bot left a guild or joined it again. */
  readonly guildFlips: number;
  /** Why commands went unanswered (the first few). */
  readonly unanswered: readonly string[];
}

/** The sandbox of a soak: 10 guilds of 30, limits out of the way (the soak measures memory, not waiting). */
export function soakSandboxOptions(): SandboxOptions {
  return {
    activities: true,
    seed: { guilds: GUILDS, membersPerGuild: MEMBERS, seed: 33 },
    gateway: { identifyWindowMs: 50, heartbeatIntervalMs: 20_000 },
    rest: {
      // The service's 3 s to answer is the answers bench's matter (bench/soak/answers.bench.ts); here a shared
      // machine starving the bot of CPU made 6 of 38,511 answers late (10062) while a test run took both cores.
      interactionResponseMs: 30_000,
      globalPerSecond: 1_000_000,
      buckets: {
        'guilds.roles.edit': { limit: 1_000_000, windowMs: 1_000 },
        'interaction.callback': { limit: 1_000_000, windowMs: 1_000 },
      },
    },
  };
}

/** The cache's view for the comparison (every member page of every guild). */
export async function cacheView(cache: CacheReader, guildIds: readonly string[]): Promise<CacheView> {
  const members = Object.create(null) as Record<string, string[]>;
  const roles = Object.create(null) as Record<string, string[]>;
  const guilds: string[] = [];
  for (const guildId of guildIds) {
    if ((await cache.getGuild(guildId)) !== undefined) guilds.push(guildId);
    const ids: string[] = [];
    let after: string | undefined;
    for (let page = 0; page < 1_000; page++) {
      const got = await cache.getMembers(guildId, { limit: 1_000, ...(after !== undefined ? { after } : {}) });
      for (const m of got.members) ids.push(m.userId);
      if (got.next === null) break;
      after = got.next;
    }
    members[guildId] = ids;
    roles[guildId] = (await cache.getRoles(guildId)).map((r) => r.id);
  }
  return { guilds, members, roles, entitlements: (await cache.sizes()).entitlements };
}

/** Ids in one list and not the other, both ways, each named in `into` as `what +id` (missing) or `what -id` (extra). */
function difference(what: string, truth: readonly string[], cached: readonly string[], into: string[]): void {
  const inTruth = new Set(truth);
  const inCache = new Set(cached);
  for (const id of cached) if (!inTruth.has(id)) into.push(`${what} extra ${id}`);
  for (const id of truth) if (!inCache.has(id)) into.push(`${what} missing ${id}`);
}

/** Every difference between the cache's view and the sandbox's state, one line each. */
function mismatchesOf(sandbox: Sandbox, allGuilds: readonly string[], view: CacheView, liveEntitlements: number): string[] {
  const out: string[] = [];
  for (let n = view.entitlements - liveEntitlements; n !== 0; n -= Math.sign(n)) out.push(`entitlements ${view.entitlements} for ${liveEntitlements}`);
  const left = new Set(sandbox.state.leftGuildIds);
  difference('guild', allGuilds.filter((g) => !left.has(g)), view.guilds, out);
  for (const guildId of allGuilds) {
    // A guild the bot left: nothing of it stays in the cache.
    difference(`guild ${guildId} member`, left.has(guildId) ? [] : sandbox.state.memberIds(guildId), view.members[guildId] ?? [], out);
    difference(`guild ${guildId} role`, left.has(guildId) ? [] : sandbox.state.roleIds(guildId), view.roles[guildId] ?? [], out);
  }
  return out;
}

/** The bot may manage roles: its own role (the highest) gets MANAGE_ROLES. */
async function letTheBotManageRoles(sandbox: Sandbox, rest: RestClient): Promise<void> {
  for (const g of sandbox.state.guildIds) {
    const own = (await listRoles(rest, g)).find((role) => role.tags?.bot_id === sandbox.applicationId);
    if (own === undefined) throw new Error(`the bot has no role of its own in guild ${g}`);
    sandbox.state.channels.updateRole(g, own.id, { permissions: (BigInt(own.permissions) | MANAGE_ROLES).toString() });
  }
}

/** Runs the churn; resolves when every cycle has ended and every command is answered or given up. */
export async function runChurn(options: ChurnOptions): Promise<ChurnResult> {
  const { sandbox, bot } = options;
  const rest = new RestClient({ baseUrl: sandbox.restUrl, token: sandbox.botToken });
  try {
    await letTheBotManageRoles(sandbox, rest);
    return await new Churn(options, rest, (await bot.view()).entitlements).run();
  } finally {
    await rest.close();
  }
}

class Churn {
  private readonly sandbox: Sandbox;
  /** Every guild of the seed, the ones the bot has left included. */
  private readonly guilds: readonly string[];
  private readonly skus: readonly string[];
  private readonly prng: Prng;
  /** Entitlements granted and not deleted, oldest first: deletions take the oldest, so the set stays near its start. */
  private readonly live = new Set<string>();
  /** Roles the churn created per guild, oldest first. */
  private readonly churnRoles = new Map<string, string[]>();
  private events = 0;
  private guildFlips = 0;
  private invoked = 0;
  private answered = 0;
  private readonly unanswered: string[] = [];

  constructor(
    private readonly options: ChurnOptions,
    private readonly rest: RestClient,
    /** The entitlements alive before the churn (the seed's), which the cache holds too. */
    private readonly seededEntitlements: number,
  ) {
    this.sandbox = options.sandbox;
    this.guilds = options.sandbox.state.guildIds;
    this.skus = options.sandbox.state.skuIds;
    this.prng = new Prng(options.seed ?? 33);
    for (const g of this.guilds) this.churnRoles.set(g, []);
  }

  async run(): Promise<ChurnResult> {
    const cycles: CycleEnd[] = [];
    for (let cycle = 0; cycle < this.options.cycles; cycle++) {
      const answers: Array<Promise<unknown>> = [];
      for (let i = 0; i < this.options.eventsPerCycle; i++) {
        await this.oneEvent(answers);
        this.events++;
        // Let the sockets drain now and then, so the sandbox's send buffers stay small.
        if (i % 500 === 499) await new Promise((res) => setImmediate(res));
      }
      await Promise.all(answers);
      // Every other cycle ends with a guild left, so that what a departure leaves behind is compared too.
      if (cycle % 2 === 0 && this.sandbox.state.leftGuildIds.length === 0) this.flipGuild();
      await this.sessionEnds(cycle % 3 === 2);
      const mismatched = await this.settledMismatches();
      const end: CycleEnd = { cycle, events: this.events, mismatches: mismatched.length, mismatched: mismatched.slice(0, 10), liveEntitlements: this.live.size };
      cycles.push(end);
      await this.options.onCycleEnd?.(end);
    }
    return { cycles, invoked: this.invoked, answered: this.answered, guildFlips: this.guildFlips, unanswered: this.unanswered.slice(0, 5) };
  }

  /**
   * A RESUME (the connection drops), or a fresh IDENTIFY (the session is invalidated); resolves once the bot's
   * session is back (RESUMED or READY dispatched), since commands sent before would have nobody to receive them.
   */
  private async sessionEnds(fresh: boolean): Promise<void> {
    const events = this.sandbox.gatewayEvents;
    const expected = fresh ? 'READY' : 'RESUMED';
    let onDispatch = (_: { t: string }): void => undefined;
    let timer: NodeJS.Timeout | undefined;
    const back = new Promise<void>((resolve, reject) => {
      onDispatch = (d) => {
        if (d.t === expected) resolve();
      };
      timer = setTimeout(() => reject(new Error(`no ${expected} within 60 s after the session ended (${this.events} events in)`)), 60_000);
    });
    events.on('dispatch', onDispatch);
    try {
      if (fresh) this.sandbox.faults.invalidateSession(0, false);
      else this.sandbox.faults.reconnect(0);
      await back;
    } finally {
      clearTimeout(timer);
      events.off('dispatch', onDispatch);
    }
  }

  /** Differences left once the cache reaches the sandbox's truth (none), or after 60 s of trying. */
  private async settledMismatches(): Promise<string[]> {
    let mismatched: string[] = [];
    for (let tries = 0; tries < 300; tries++) {
      await new Promise((res) => setTimeout(res, 100));
      mismatched = mismatchesOf(this.sandbox, this.guilds, await this.options.bot.view(), this.live.size + this.seededEntitlements);
      if (mismatched.length === 0) break;
    }
    return mismatched;
  }

  private rand(n: number): number {
    return this.prng.int(n);
  }

  private otherMembers(g: string): string[] {
    return this.sandbox.state.memberIds(g).filter((u) => u !== this.sandbox.applicationId);
  }

  private async oneEvent(answers: Array<Promise<unknown>>): Promise<void> {
    if (this.rand(GUILD_FLIP_ODDS) === 0) return this.flipGuild();
    const current = this.sandbox.state.guildIds;
    const g = current[this.rand(current.length)]!;
    const r = this.rand(100);
    if (r < 3) this.deleteEntitlement(g);
    else if (r < 6) {
      if (this.live.size < LIVE_MAX) this.grant(g);
      else this.rename(g);
    }
    else if (r < 7) await this.changeRoles(g);
    else if (r < 35) this.join(g);
    else if (r < 63) this.leave(g);
    else if (r < 99) this.rename(g);
    else answers.push(this.invoke(g));
  }

  /** The bot leaves a guild (GUILD_DELETE), or joins the one it left again (GUILD_CREATE). */
  private flipGuild(): void {
    this.guildFlips++;
    const left = this.sandbox.state.leftGuildIds;
    if (left.length > 0) this.sandbox.state.joinGuild(left[0]!);
    else {
      const current = this.sandbox.state.guildIds;
      this.sandbox.state.leaveGuild(current[this.rand(current.length)]!);
    }
  }

  private grant(g: string): void {
    const users = this.otherMembers(g);
    this.live.add(this.sandbox.state.grantEntitlement({ skuId: this.skus[this.rand(this.skus.length)]!, userId: users[this.rand(users.length)]! }));
  }

  /** ENTITLEMENT_DELETE: the cache keeps a tombstone of it. */
  private deleteEntitlement(g: string): void {
    if (this.live.size === 0) this.grant(g);
    const id = this.live.values().next().value!;
    this.live.delete(id);
    this.sandbox.state.deleteEntitlement(id);
  }

  /** A role created, or one of the churned ones changed or the oldest deleted (GUILD_ROLE_*). */
  private async changeRoles(g: string): Promise<void> {
    const mine = this.churnRoles.get(g)!;
    if (mine.length < ROLES_KEPT) mine.push(String((await createRole(this.rest, g, { name: `r${this.events}` })).id));
    else if (this.rand(2) === 0) await editRole(this.rest, g, mine[this.rand(mine.length)]!, { name: `e${this.events}` });
    else await deleteRole(this.rest, g, mine.shift()!);
  }

  private join(g: string): void {
    if (this.sandbox.state.memberIds(g).length < MAX_MEMBERS) this.sandbox.state.addMember(g);
  }

  private leave(g: string): void {
    const users = this.otherMembers(g);
    if (users.length > MEMBERS / 2) this.sandbox.state.removeMember(g, users[this.rand(users.length)]!);
  }

  private rename(g: string): void {
    const users = this.otherMembers(g);
    this.sandbox.state.updateMember(g, users[this.rand(users.length)]!, { nick: `n${this.events}` });
  }

  private invoke(g: string): Promise<void> {
    this.invoked++;
    const users = this.otherMembers(g);
    return this.sandbox
      .invoke({ name: 'dice', subcommand: ['flip'], guildId: g, userId: users[this.rand(users.length)]! })
      .then((rec) => rec.firstResponse(30_000))
      .then(
        () => void this.answered++,
        (err: unknown) => void this.unanswered.push(String(err)),
      );
  }
}
