/**
 * Sync plans with the fewest writes, and carrying them out through a port.
 */
import { describe, expect, it } from 'vitest';
import {
  GLOBAL_SCOPE,
  applyPlan,
  describePlan,
  guildScope,
  planScope,
  planSync,
  syncCommands,
  toServerCommand,
  type RegisteredCommand,
  type Scope,
} from '../../src/commands/index.js';
import { FakeService } from './fake-service.js';
import { clone, fixture, prng } from './helpers.js';

type Def = Record<string, unknown>;
const GUILD = guildScope('900000000000000001');

let nextId = 1;
function registered(scope: Scope, defs: readonly unknown[]): RegisteredCommand[] {
  return defs.map((d) =>
    toServerCommand(d, scope.kind, {
      id: String(5000 + nextId++),
      applicationId: '1',
      version: '1',
      guildId: scope.kind === 'guild' ? scope.guildId : undefined,
    }),
  );
}
const launch = (): RegisteredCommand =>
  ({ id: '777', application_id: '1', version: '1', type: 4, name: 'Launch', description: '', handler: 2, default_member_permissions: null, integration_types: [0, 1], contexts: [0, 1, 2], nsfw: false }) as unknown as RegisteredCommand;

const globalDefs = fixture('moderation-global.json') as Def[];
const guildDefs = fixture('moderation-guild.json') as Def[];

describe('planScope', () => {
  it('unchanged commands need no write at all', () => {
    const plan = planScope({ scope: GLOBAL_SCOPE, desired: globalDefs, registered: registered(GLOBAL_SCOPE, globalDefs) });
    expect(plan.strategy).toBe('none');
    expect(plan.requests).toBe(0);
    expect(plan.unchanged).toHaveLength(20);
    expect([plan.creates, plan.edits, plan.deletes]).toEqual([[], [], []]);
  });

  it('one changed description is one edit carrying only that field', () => {
    const reg = registered(GUILD, guildDefs);
    const desired = clone(guildDefs);
    desired[4]!.description = 'Bulk-delete recent messages';
    const plan = planScope({ scope: GUILD, desired, registered: reg });
    expect(plan.strategy).toBe('single');
    expect(plan.requests).toBe(1);
    expect(plan.creates).toEqual([]);
    expect(plan.deletes).toEqual([]);
    expect(plan.edits).toHaveLength(1);
    expect(plan.edits[0]).toMatchObject({ id: reg[4]!.id, name: 'purge', fields: ['description'], body: { description: 'Bulk-delete recent messages' } });
    expect(Object.keys(plan.edits[0]!.body)).toEqual(['description']);
  });

  it('an option change sends all options (a given field replaces the old value whole)', () => {
    const reg = registered(GUILD, guildDefs);
    const desired = clone(guildDefs);
    ((desired[2]!.options as Def[])[1]!.choices as Def[]).pop();
    const plan = planScope({ scope: GUILD, desired, registered: reg });
    const body = plan.edits[0]!.body as Def;
    expect(plan.edits[0]!.fields).toEqual(['options']);
    expect(plan.edits[0]!.changes.map((c) => c.path)).toEqual(['options[1].choices[4]']);
    expect((body.options as Def[]).length).toBe(3);
    expect(((body.options as Def[])[1]!.choices as Def[]).length).toBe(4);
  });

  it('a cleared options list is sent as []', () => {
    const reg = registered(GUILD, [{ name: 'x', description: 'y', options: [{ type: 3, name: 'a', description: 'b' }] }]);
    const plan = planScope({ scope: GUILD, desired: [{ name: 'x', description: 'y' }], registered: reg });
    expect(plan.edits[0]!.body).toEqual({ options: [] });
  });

  it('new -> create, gone -> delete, matched by (type, name)', () => {
    const reg = registered(GUILD, [
      { name: 'report', description: 'Report' },
      { type: 2, name: 'report' },
      { name: 'old', description: 'Old' },
    ]);
    const desired = [{ type: 3, name: 'report' }, { name: 'report', description: 'Report' }, { type: 2, name: 'report' }];
    const plan = planScope({ scope: GUILD, desired, registered: reg }, { strategy: 'single' });
    expect(plan.creates.map((c) => [c.type, c.name])).toEqual([[3, 'report']]);
    expect(plan.deletes.map((d) => [d.type, d.name, d.id])).toEqual([[1, 'old', reg[2]!.id]]);
    expect(plan.unchanged.map((u) => u.id)).toEqual([reg[0]!.id, reg[1]!.id]);
    expect(plan.edits).toEqual([]);
    expect(plan.newCommands).toBe(1);
  });

  it('never deletes and recreates a command that only changed (any change, any strategy)', () => {
    const rand = prng(7);
    const mutations: Array<(d: Def) => void> = [
      (d) => void (d.description = `${String(d.description)}!`),
      (d) => void (d.nsfw = true),
      (d) => void (d.default_member_permissions = '0'),
      (d) => void (d.name_localizations = { it: String(d.name).toLowerCase().replace(/ /g, '-') }),
      (d) => void (d.contexts = [0, 1]),
      (d) => void (d.integration_types = [0, 1]),
      (d) => void (d.options = [...((d.options as Def[] | undefined) ?? []), { type: 5, name: 'zz-extra', description: 'Extra' }]),
      (d) => void (d.options = ((d.options as Def[] | undefined) ?? []).slice(1)),
    ];
    const reg = registered(GLOBAL_SCOPE, globalDefs);
    const deadline = Date.now() + 5000;
    for (let n = 0; n < 300 && Date.now() < deadline; n++) {
      const desired = clone(globalDefs);
      const i = Math.floor(rand() * desired.length);
      const m = mutations[Math.floor(rand() * mutations.length)]!;
      if ((desired[i]!.type ?? 1) !== 1 && m === mutations[6]) continue;
      m(desired[i]!);
      for (const strategy of ['single', 'bulk', 'auto'] as const) {
        const plan = planScope({ scope: GLOBAL_SCOPE, desired, registered: reg }, { strategy });
        expect(plan.creates, `${strategy} mutation ${mutations.indexOf(m)} on [${i}]`).toEqual([]);
        expect(plan.deletes).toEqual([]);
        expect(plan.newCommands).toBe(0);
        if (plan.strategy === 'single') expect(plan.edits.map((e) => e.id)).toEqual([reg[i]!.id]);
        if (plan.strategy === 'bulk') expect(plan.bulkBody!.map((b) => b.id)).toEqual(reg.map((r) => r.id));
      }
    }
  });

  it('keeps the entry point the service created when no plugin defines one', () => {
    const reg = [...registered(GLOBAL_SCOPE, globalDefs.slice(0, 3)), launch()];
    const plan = planScope({ scope: GLOBAL_SCOPE, desired: globalDefs.slice(0, 3), registered: reg });
    expect(plan.strategy).toBe('none');
    expect(plan.deletes).toEqual([]);
    expect(plan.kept.map((k) => [k.id, k.name])).toEqual([['777', 'Launch']]);
  });

  it("replaces it by an edit when a plugin defines its own entry point, whatever the name", () => {
    const reg = [...registered(GLOBAL_SCOPE, globalDefs.slice(0, 3)), launch()];
    const desired = [...globalDefs.slice(0, 3), { type: 4, name: 'Play', description: 'Start a game', handler: 1 }];
    const plan = planScope({ scope: GLOBAL_SCOPE, desired, registered: reg });
    expect(plan.creates).toEqual([]);
    expect(plan.deletes).toEqual([]);
    expect(plan.kept).toEqual([]);
    expect(plan.edits).toHaveLength(1);
    expect(plan.edits[0]).toMatchObject({ id: '777', name: 'Play', previousName: 'Launch', fields: ['name', 'description', 'handler'] });
    expect(plan.edits[0]!.body).toEqual({ name: 'Play', description: 'Start a game', handler: 1 });
  });

  it('a defined "Launch" that equals the registered one is unchanged', () => {
    const plan = planScope({ scope: GLOBAL_SCOPE, desired: [{ type: 4, name: 'Launch', handler: 2 }], registered: [launch()] });
    expect(plan.strategy).toBe('none');
    expect(plan.unchanged.map((u) => u.id)).toEqual(['777']);
  });

  it('turns a rename into one edit of the name (not delete + create), unless disabled', () => {
    const reg = registered(GUILD, [{ name: 'kick', description: 'Kick a member', options: [{ type: 6, name: 'user', description: 'Who', required: true }] }]);
    const desired = [{ name: 'boot', description: 'Kick a member', options: [{ type: 6, name: 'user', description: 'Who', required: true }] }];
    const plan = planScope({ scope: GUILD, desired, registered: reg });
    expect(plan.creates).toEqual([]);
    expect(plan.deletes).toEqual([]);
    expect(plan.edits).toMatchObject([{ id: reg[0]!.id, name: 'boot', previousName: 'kick', body: { name: 'boot' } }]);
    const off = planScope({ scope: GUILD, desired, registered: reg }, { detectRenames: false, strategy: 'single' });
    expect([off.creates.length, off.deletes.length, off.edits.length]).toEqual([1, 1, 0]);
    // A different body is not a rename.
    const other = planScope({ scope: GUILD, desired: [{ ...desired[0], description: 'Other' }], registered: reg }, { strategy: 'single' });
    expect([other.creates.length, other.deletes.length, other.edits.length]).toEqual([1, 1, 0]);
  });

  it('uses one bulk overwrite from 2 writes on: ids kept, new ones without id, Launch sent back', () => {
    const reg = [...registered(GLOBAL_SCOPE, globalDefs.slice(0, 5)), launch()];
    const desired = clone(globalDefs.slice(0, 6)); // [5] is new
    desired[0]!.description = 'Ban someone'; // changed
    delete desired[1]!.contexts; // left to the service: its registered value is kept in the PUT
    const plan = planScope({ scope: GLOBAL_SCOPE, desired, registered: reg });
    expect(plan.strategy).toBe('bulk');
    expect(plan.writes).toBe(2);
    expect(plan.requests).toBe(1);
    expect(plan.newCommands).toBe(1);
    const body = plan.bulkBody!;
    expect(body.map((b) => [b.id, b.name])).toEqual([
      [reg[0]!.id, 'ban'],
      [reg[1]!.id, 'kick'],
      [reg[2]!.id, 'timeout'],
      [reg[3]!.id, 'warn'],
      [reg[4]!.id, 'purge'],
      [undefined, 'slowmode'],
      ['777', 'Launch'],
    ]);
    expect((body[0] as unknown as Def).description).toBe('Ban someone');
    expect(body[1]!.contexts).toEqual([0]);
    expect(body[6]).toMatchObject({ type: 4, handler: 2, integration_types: [0, 1], contexts: [0, 1, 2] });
  });

  it('in a bulk overwrite, contexts and dm_permission go together: setting one leaves the registered other behind', () => {
    const reg = registered(GLOBAL_SCOPE, [
      { name: 'a', description: 'A' },
      { name: 'b', description: 'B', dm_permission: false },
      { name: 'c', description: 'C' },
    ]);
    expect(reg[0]).toMatchObject({ contexts: null, dm_permission: true });
    const desired = [
      { name: 'a', description: 'A', contexts: [0] }, // BOT_DM dropped: the registered dm_permission true must not come back
      { name: 'b', description: 'B', dm_permission: true }, // the registered contexts (null) is not sent along
      { name: 'c', description: 'C2' }, // neither set: both stay as registered
    ];
    const plan = planScope({ scope: GLOBAL_SCOPE, desired, registered: reg }, { strategy: 'bulk' });
    const body = plan.bulkBody!.map((b) => b as unknown as Def);
    expect(body[0]).toMatchObject({ contexts: [0] });
    expect(body[0]).not.toHaveProperty('dm_permission');
    expect(body[1]).toMatchObject({ dm_permission: true });
    expect(body[1]).not.toHaveProperty('contexts');
    expect(body[2]).toMatchObject({ contexts: null, dm_permission: true, integration_types: [0] });
  });

  it('respects a forced strategy and a threshold', () => {
    const reg = registered(GUILD, guildDefs.slice(0, 3));
    const desired: Def[] = guildDefs.slice(0, 3).map((d) => ({ ...d, nsfw: true }));
    expect(planScope({ scope: GUILD, desired, registered: reg }, { strategy: 'single' })).toMatchObject({ strategy: 'single', requests: 3 });
    expect(planScope({ scope: GUILD, desired, registered: reg }, { bulkThreshold: 4 })).toMatchObject({ strategy: 'single', requests: 3 });
    expect(planScope({ scope: GUILD, desired: desired.slice(0, 1).concat(guildDefs.slice(1, 3)), registered: reg }, { strategy: 'bulk' })).toMatchObject({ strategy: 'bulk', requests: 1 });
  });

  it('ignores the global-only fields a guild command returns', () => {
    const reg = registered(GUILD, guildDefs).map((r) => ({ ...r, contexts: [0, 1, 2], integration_types: [0] }) as RegisteredCommand);
    expect(planScope({ scope: GUILD, desired: guildDefs, registered: reg }).strategy).toBe('none');
  });
});

describe('planSync and describePlan', () => {
  it('plans each scope and sums requests and creates', () => {
    const other = guildScope('900000000000000002');
    const plan = planSync([
      { scope: GLOBAL_SCOPE, desired: globalDefs, registered: [...registered(GLOBAL_SCOPE, globalDefs), launch()] },
      { scope: GUILD, desired: guildDefs.slice(0, 2), registered: [] },
      { scope: other, desired: [], registered: registered(other, guildDefs.slice(0, 1)) },
    ]);
    expect(plan.scopes.map((s) => [s.key, s.strategy, s.requests])).toEqual([
      ['global', 'none', 0],
      ['guild:900000000000000001', 'bulk', 1],
      ['guild:900000000000000002', 'single', 1],
    ]);
    expect(plan.requests).toBe(2);
    expect(plan.newCommands).toBe(2);
    expect(describePlan(plan)).toEqual([
      'global: up to date (20 unchanged, 0 new)',
      '  keep   Launch (PRIMARY_ENTRY_POINT): the entry point the service created for Activities; kept while no plugin defines one',
      'guild:900000000000000001: 2 changes in one bulk overwrite (0 unchanged, 2 new)',
      '  create /ban',
      '  create /kick',
      'guild:900000000000000002: 1 request (0 unchanged, 0 new)',
      '  delete /ban (its permissions are lost)',
    ]);
  });
});

describe('applyPlan and syncCommands through a port', () => {
  it('first sync creates everything in one request; the next sync writes nothing; one change is one PATCH', async () => {
    const svc = new FakeService();
    svc.seed(GLOBAL_SCOPE, { type: 4, name: 'Launch', description: '', handler: 2 });
    const desired = [{ scope: GLOBAL_SCOPE, commands: globalDefs }, { scope: GUILD, commands: guildDefs.slice(0, 4) }];

    const first = await syncCommands(desired, svc);
    expect(first.summary).toMatchObject({ ok: true, created: 24, updated: 0, deleted: 0, requests: 2 });
    expect(svc.creates).toBe(24);
    expect(svc.scopes.get('global')!.map((c) => c.name)).toContain('Launch');

    const writesBefore = svc.writes().length;
    const second = await syncCommands(desired, svc);
    expect(second.summary).toMatchObject({ ok: true, created: 0, updated: 0, deleted: 0, unchanged: 24, requests: 0 });
    expect(svc.writes().length).toBe(writesBefore);

    const changed = clone(globalDefs);
    changed[13]!.description = 'Who is this?';
    const third = await syncCommands([{ scope: GLOBAL_SCOPE, commands: changed }, desired[1]!], svc);
    expect(third.summary).toMatchObject({ ok: true, updated: 1, requests: 1 });
    expect(svc.writes().slice(writesBefore)).toMatchObject([{ method: 'edit', scope: 'global', body: { description: 'Who is this?' } }]);
    expect(svc.creates).toBe(24);
    expect(third.summary!.scopes[0]!.registered).toHaveLength(21);
  });

  it('single calls run deletes, then edits, then creates', async () => {
    const svc = new FakeService();
    for (const d of guildDefs.slice(0, 3)) svc.seed(GUILD, d);
    const desired = [{ ...guildDefs[0]!, nsfw: true }, guildDefs[1]!, guildDefs[5]!];
    const { summary } = await syncCommands([{ scope: GUILD, commands: desired }], svc, { strategy: 'single' });
    expect(svc.writes().map((c) => c.method)).toEqual(['delete', 'edit', 'create']);
    expect(summary).toMatchObject({ ok: true, created: 1, updated: 1, deleted: 1, unchanged: 1, requests: 3 });
    const after = await svc.list(GUILD);
    expect(after.map((c) => c.name).sort()).toEqual(['ban', 'kick', 'slowmode']);
  });

  it('a bulk overwrite keeps ids (no extra creates) and Launch', async () => {
    const svc = new FakeService();
    const launchCmd = svc.seed(GLOBAL_SCOPE, { type: 4, name: 'Launch', description: '', handler: 2 });
    const seeded = globalDefs.slice(0, 5).map((d) => svc.seed(GLOBAL_SCOPE, d));
    const desired = clone(globalDefs.slice(0, 5));
    desired[0]!.description = 'x';
    desired[1]!.description = 'y';
    const { plan, summary } = await syncCommands([{ scope: GLOBAL_SCOPE, commands: desired }], svc);
    expect(plan.scopes[0]!.strategy).toBe('bulk');
    expect(summary).toMatchObject({ ok: true, updated: 2, created: 0, requests: 1 });
    expect(svc.creates).toBe(0);
    const after = await svc.list(GLOBAL_SCOPE);
    expect(after.map((c) => c.id).sort()).toEqual([launchCmd.id, ...seeded.map((s) => s.id)].sort());
  });

  it('dry run plans without writing; alsoCheck clears a guild no definition names any more', async () => {
    const svc = new FakeService();
    const gone = guildScope('900000000000000009');
    svc.seed(gone, guildDefs[0]!);
    const dry = await syncCommands([], svc, { alsoCheck: [gone], dryRun: true });
    expect(dry.summary).toBeNull();
    expect(dry.plan.scopes[0]!.deletes.map((d) => d.name)).toEqual(['ban']);
    expect(svc.writes()).toEqual([]);
    const real = await syncCommands([], svc, { alsoCheck: [gone] });
    expect(real.summary).toMatchObject({ deleted: 1, ok: true });
    expect(await svc.list(gone)).toEqual([]);
  });

  it('a failing scope is reported and the other scopes still sync', async () => {
    const svc = new FakeService();
    svc.failNextWrite.add('global');
    const plan = planSync([
      { scope: GLOBAL_SCOPE, desired: globalDefs.slice(0, 1), registered: [] },
      { scope: GUILD, desired: guildDefs.slice(0, 1), registered: [] },
    ]);
    const summary = await applyPlan(plan, svc);
    expect(summary.ok).toBe(false);
    expect(summary.scopes[0]!.error).toBeInstanceOf(Error);
    expect(summary.scopes[0]!.created).toBe(0);
    expect(summary.scopes[1]).toMatchObject({ created: 1, requests: 1 });
    expect(summary.created).toBe(1);
  });
});
