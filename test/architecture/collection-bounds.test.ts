/**
 * Issue 33: a process that runs for months keeps nothing that grows with the events it receives. Every Map and
 * Set the runtime keeps beyond one call (a class field, or a module-level one created empty) is listed here with
 * what bounds it; a new one fails this test until it is listed, and a listed one that is gone fails it too. The
 * ones bounded by a count or a time are the ones that events can fill: each names the constant or code that
 * holds the bound (it must be in the file) and has a row in docs/operations.md "Long-running processes".
 * The rest are bounded by the service's own state (what the cache mirrors), by work in flight, or by code and
 * configuration. The sandbox, the CLI and the test kit are not the long-running runtime and are not scanned.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const NOT_RUNTIME = new Set(['sandbox', 'cli', 'testing']);

type Bound =
  /** At most a number of entries; `evidence` is the constant or expression in the file that holds it. */
  | { kind: 'count'; evidence: string; bound: string }
  /** Entries expire; `evidence` as above. */
  | { kind: 'time'; evidence: string; bound: string }
  /** Mirrors what the service holds now (guilds, members, entitlements): removed when the service removes them. */
  | { kind: 'state'; bound: string }
  /** Work under way: removed when it settles. */
  | { kind: 'in-flight'; bound: string }
  /** Keyed by things the code or configuration fixes (shards, plugins, routes, identities, config keys). */
  | { kind: 'fixed'; bound: string };

const c = (evidence: string, bound: string): Bound => ({ kind: 'count', evidence, bound });
const t = (evidence: string, bound: string): Bound => ({ kind: 'time', evidence, bound });
const state = (bound: string): Bound => ({ kind: 'state', bound });
const flight = (bound: string): Bound => ({ kind: 'in-flight', bound });
const fixed = (bound: string): Bound => ({ kind: 'fixed', bound });

const BOUNDS: ReadonlyMap<string, Bound> = new Map([
  ['src/cluster/cooldowns.ts#windows', t('SWEEP_EVERY', 'cooldown windows of users (or members, guilds, channels) with a use in their window')],
  ['src/cache/memory/channels.ts#longNames', state('cached channels with a long name')],
  ['src/cache/memory/channels.ts#manyOverwrites', state('cached channels with many overwrites')],
  ['src/cache/memory/channels.ts#threads', state('cached threads')],
  ['src/cache/memory/guilds.ts#roles', state("the guild's roles")],
  ['src/cache/memory/guilds.ts#roleSlots', state("the guild's roles")],
  ['src/cache/memory/members.ts#longNicks', state('cached members with a long nick')],
  ['src/cache/memory/members.ts#wideFlags', state('cached members with wide flags')],
  ['src/cache/memory/members.ts#oddJoined', state('cached members with an odd joined_at')],
  ['src/cache/memory/members.ts#timeouts', state('cached members timed out')],
  ['src/cache/memory/members.ts#avatars', state('cached members with a guild avatar')],
  ['src/cache/memory/members.ts#banners', state('cached members with a guild banner')],
  ['src/cache/memory/members.ts#overflowRoles', state('cached members with many roles')],
  ['src/cache/memory/memory-cache.ts#guilds', state('guilds the bot is in')],
  ['src/cache/memory/memory-cache.ts#entitlements', state('live entitlements')],
  ['src/cache/memory/memory-cache.ts#entitlementsByUser', state('owners of live entitlements')],
  ['src/cache/memory/memory-cache.ts#entitlementsByGuild', state('owners of live entitlements')],
  ['src/cache/memory/memory-cache.ts#entitlementStamps', state('live entitlements and the tombstones (entitlementTombstones)')],
  ['src/cache/memory/memory-cache.ts#entitlementTombstones', t('ENTITLEMENT_TOMBSTONE_MS', '15 min and at most MAX_ENTITLEMENT_TOMBSTONES (10,000)')],
  ['src/cache/memory/users.ts#moreRefs', state('users of cached members')],
  ['src/cache/memory/users.ts#odd', state('users of cached members')],
  ['src/cache/recovery.ts#pending', flight('stale scopes being recovered')],
  ['src/cache/recovery.ts#elsewhere', state("guilds another process runs, cleared by resume()")],
  ['src/cache/recovery.ts#timers', flight('recoveries waiting to retry')],
  ['src/cache/redis/jobs.ts#readyJobs', flight('READY reconciliations under way')],
  ['src/cache/redis/jobs.ts#work', flight('background batches under way')],
  ['src/cache/redis/redis-cache.ts#listTokens', flight('member list syncs under way')],
  ['src/cache/redis/redis-cache.ts#listed', flight('member list syncs under way')],
  ['src/cache/redis/stale-marks.ts#known', flight('stale scopes not recovered yet')],
  ['src/cache/redis/stale-marks.ts#pending', flight('stale marks not in Redis yet')],
  ['src/cache/redis/stale-marks.ts#failureCounts', flight('stale marks not in Redis yet')],
  ['src/cache/redis/write-queue.ts#inflight', flight('pipelines on the wire')],
  ['src/cluster/coordinator.ts#owned', fixed('shards')],
  ['src/cluster/coordinator.ts#stopping', fixed('shards')],
  ['src/cluster/coordinator.ts#starting', fixed('shards')],
  ['src/cluster/coordinator.ts#cooldown', fixed('shards')],
  ['src/cluster/coordinator.ts#pendingFenced', fixed('shards')],
  ['src/cluster/coordinator.ts#reportedHeld', fixed('shards')],
  ['src/cluster/redis-identify-queue.ts#tails', fixed('identify buckets (max_concurrency)')],
  ['src/cluster/redis-reshard-coordination.ts#pending', flight('reshard plans under way')],
  ['src/cluster/redis-reshard-coordination.ts#seen', flight('reshard plans under way (removed at their end)')],
  ['src/cluster/session-store.ts#written', fixed('shards')],
  ['src/gateway/cutover.ts#shards', fixed('shards')],
  ['src/gateway/identify-queue.ts#buckets', fixed('identify buckets (max_concurrency)')],
  ['src/gateway/manager.ts#shards', fixed('shards')],
  ['src/gateway/manager.ts#adding', fixed('shards')],
  ['src/gateway/member-requests.ts#pending', flight('member requests awaiting their chunks')],
  ['src/interactions/custom-id.ts#exactRoutes', fixed("plugins' component routes")],
  ['src/interactions/router.ts#routes', fixed("plugins' commands")],
  ['src/plugins/command-access.ts#loads', flight('command permission loads under way')],
  ['src/plugins/command-access.ts#lists', t('MAX_LISTS', 'past MAX_LISTS (1,024) guilds the expired lists are swept: the rest were asked for within the ttl')],
  ['src/plugins/fresh-import.ts#versions (module)', fixed('plugin versions loaded by the dev watcher (dev only)')],
  ['src/plugins/host.ts#refusedNames', fixed('plugins')],
  ['src/plugins/host.ts#listeners', fixed("plugins' event listeners")],
  ['src/plugins/host.ts#disabledNames', fixed('plugins')],
  ['src/rest/client.ts#hashes', fixed('route templates')],
  ['src/rest/client.ts#queues', t('sweepTimer', 'idle bucket queues swept')],
  ['src/rest/client.ts#discovering', flight('queues learning their bucket')],
  ['src/rest/client.ts#gates', fixed('token identities')],
  ['src/rest/client.ts#parked', flight('requests waiting')],
  ['src/rest/global-limiter.ts#states', c('this.states.size >= 512', 'idle identities pruned past 512')],
  ['src/rest/local-rate-limits.ts#states', fixed('token identities')],
  ['src/rest/redis/shared-rate-limits.ts#views', c('VIEW_CAP', '4,096 bucket views')],
  ['src/rest/redis/shared-rate-limits.ts#pausedUntil', c('VIEW_CAP', '4,096 identities')],
  ['src/rest/redis/shared-rate-limits.ts#pendingCalls', flight('Redis calls on the wire')],
  ['src/rest/redis/shared-rate-limits.ts#locks', flight('bucket discoveries under way')],
  ['src/rest/redis/wake.ts#waiters', flight('requests waiting for a wake-up')],
  ['src/rest/redis/wake.ts#recent', c('RECENT_CAP', '4,096 notifications')],
  ['src/rest/redis/wake.ts#set', flight('requests waiting for a wake-up')],
  ['src/rest/route.ts#compiled (module)', c('MAX_CACHED_ROUTES', '2,000 route templates')],
  ['src/runtime/dev-reloader.ts#toCheck', fixed('plugin source files (dev only)')],
  ['src/runtime/dev-reloader.ts#withTypeErrors', fixed('plugin source files (dev only)')],
  ['src/runtime/dir-watcher.ts#watches', c('maxDirs', 'watched folders under plugins/, 2,000 by default (dev only)')],
  ['src/runtime/dev-reloader.ts#known', fixed('plugin source files (dev only)')],
  ['src/runtime/intake/counters.ts#denials', fixed('preconditions times commands and handlers')],
  ['src/runtime/intake/counters.ts#inFlight', flight('interactions being handled')],
  ['src/runtime/intake/counters.ts#unhandled', fixed('kinds of interaction (command, component, modal, autocomplete)')],
  ['src/runtime/intake/counters.ts#readyShards', fixed('shards')],
  ['src/runtime/intake/webhook-receipt.ts#pending', flight('webhook events being handled')],
  ['src/runtime/lifecycle.ts#starts', fixed('services')],
  ['src/runtime/services/endpoint-service.ts#requests', fixed('endpoint paths x outcomes x statuses')],
  ['src/transports/http/initial-responses.ts#open', flight('HTTP interactions awaiting their answer')],
  ['src/transports/http/recent-keys.ts#keys', t('ttlMs', 'keys expire; at most maxKeys')],
  ['src/transports/http/server.ts#open', flight('open connections')],
  ['src/util/rate-limited-warner.ts#keys', c('maxKeys', '1,000 keys plus one overflow key; one line per key per minute')],
  ['src/util/redact.ts#pinned (module)', fixed('long-lived secrets (token, client secret)')],
  ['src/util/redact.ts#transient (module)', c('transient', 'the most recent OAuth tokens')],
]);

const FIELD = /^\s+(?:private |protected |public )?(?:readonly )?(?:static )?(#?[A-Za-z_$][\w$]*)\??(?::[^=;]+)? = new (?:Map|Set)\b/;
const MODULE = /^(?:export )?(?:const|let) ([A-Za-z_$][\w$]*)(?::[^=]+)? = new (?:Map|Set)(?:<[^()]*>)?\(\)/;

function sources(dir: string, depth = 0): string[] {
  if (depth > 6) return [];
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (depth === 0 && NOT_RUNTIME.has(name)) continue;
      out.push(...sources(path, depth + 1));
    } else if (name.endsWith('.ts')) out.push(path);
  }
  return out;
}

function longLivedCollections(): string[] {
  const found: string[] = [];
  for (const file of sources(join(ROOT, 'src'))) {
    const rel = relative(ROOT, file).split('\\').join('/');
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      const field = FIELD.exec(line);
      if (field !== null) found.push(`${rel}#${field[1]}`);
      else {
        const mod = MODULE.exec(line);
        if (mod !== null) found.push(`${rel}#${mod[1]} (module)`);
      }
    }
  }
  return found;
}

describe("the runtime's long-lived collections", () => {
  it('are each listed with their bound (a new Map or Set needs one; a listed one that is gone is removed)', () => {
    const found = longLivedCollections();
    expect(found.filter((k) => !BOUNDS.has(k))).toEqual([]);
    expect([...BOUNDS.keys()].filter((k) => !found.includes(k))).toEqual([]);
  });

  it('that events can fill are bounded by a count or a time the file holds, and documented', () => {
    const operations = readFileSync(join(ROOT, 'docs', 'operations.md'), 'utf8');
    const problems: string[] = [];
    for (const [key, bound] of BOUNDS) {
      if (bound.kind !== 'count' && bound.kind !== 'time') continue;
      const [file, rest] = key.split('#') as [string, string];
      const name = rest.replace(' (module)', '');
      if (!readFileSync(join(ROOT, file), 'utf8').includes(bound.evidence)) problems.push(`${key}: ${bound.evidence} is not in ${file}`);
      if (!operations.includes(`\`${file}\` \`${name}\``)) problems.push(`${key}: no row in docs/operations.md`);
    }
    expect(problems).toEqual([]);
  });
});
