/** Entitlements and SKUs (protocol §13.2, §13.3). */
import type { SandboxCore } from '../../core.js';
import { addTreeError, emptyErrorTree, Errors, formError, invalidFormBody, type ErrorTree } from '../../errors.js';
import type { EntitlementRecord } from '../../state/model.js';
import { entitlementObject, skuObject } from '../../state/serialize.js';
import { jsonValue } from '../body.js';
import type { RestContext, RouteDef } from '../types.js';
import { queryBool } from './commands.js';
import { isSnowflake } from '../params.js';

function appCheck(core: SandboxCore, ctx: RestContext): void {
  if (ctx.params.applicationId !== core.store.applicationId) throw Errors.notAuthorizedForApplication();
}

function snowflakeParam(ctx: RestContext, name: string, tree: ErrorTree): string | null {
  const v = ctx.query.get(name);
  if (v === null || v === '') return null;
  if (!isSnowflake(v)) addTreeError(tree, [name], { code: 'NUMBER_TYPE_COERCE', message: `Value "${v}" is not snowflake.` });
  return v;
}

function cmp(a: string, b: string): number {
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

export function monetizationRoutes(core: SandboxCore): RouteDef[] {
  const store = core.store;
  const view = (e: EntitlementRecord): Record<string, unknown> => entitlementObject(e, store.applicationId);
  const find = (id: string): EntitlementRecord => {
    const e = store.entitlements.get(id);
    if (!e) throw Errors.unknownEntitlement();
    return e;
  };
  const base = '/applications/:applicationId/entitlements';
  return [
    {
      method: 'GET',
      path: base,
      bucket: 'entitlements',
      auth: 'bot-or-bearer',
      handler: (ctx) => {
        appCheck(core, ctx);
        const tree = emptyErrorTree();
        const userId = snowflakeParam(ctx, 'user_id', tree);
        const guildId = snowflakeParam(ctx, 'guild_id', tree);
        const before = snowflakeParam(ctx, 'before', tree);
        const after = snowflakeParam(ctx, 'after', tree);
        const skuIds = (ctx.query.get('sku_ids') ?? '').split(',').filter((s) => s.length > 0);
        const limitRaw = ctx.query.get('limit');
        const limit = limitRaw === null ? 100 : Number(limitRaw);
        if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
          addTreeError(tree, ['limit'], { code: 'NUMBER_TYPE_MAX', message: 'Must be between 1 and 100.' });
        }
        if (Object.keys(tree).length > 0) throw invalidFormBody(tree);
        const excludeEnded = queryBool(ctx.query.get('exclude_ended'));
        const excludeDeleted = ctx.query.get('exclude_deleted') === null ? true : queryBool(ctx.query.get('exclude_deleted'));
        const now = Date.now();
        let list = [...store.entitlements.values()].filter((e) => {
          if (userId !== null && e.userId !== userId) return false;
          if (guildId !== null && e.guildId !== guildId) return false;
          if (skuIds.length > 0 && !skuIds.includes(e.skuId)) return false;
          if (excludeDeleted && e.deleted) return false;
          if (excludeEnded && e.endsAt !== null && Date.parse(e.endsAt) <= now) return false;
          if (before !== null && cmp(e.id, before) >= 0) return false;
          if (after !== null && cmp(e.id, after) <= 0) return false;
          return true;
        });
        list.sort((a, b) => cmp(a.id, b.id));
        // Paging backwards with `before` keeps the newest page.
        list = before !== null && after === null ? list.slice(-limit) : list.slice(0, limit);
        return { status: 200, body: list.map(view) };
      },
    },
    {
      method: 'GET',
      path: `${base}/:entitlementId`,
      bucket: 'entitlements',
      auth: 'bot-or-bearer',
      handler: (ctx) => {
        appCheck(core, ctx);
        return { status: 200, body: view(find(ctx.params.entitlementId!)) };
      },
    },
    {
      method: 'POST',
      path: `${base}/:entitlementId/consume`,
      bucket: 'entitlements',
      auth: 'bot',
      handler: (ctx) => {
        appCheck(core, ctx);
        const e = find(ctx.params.entitlementId!);
        if (store.sku(e.skuId)?.type !== 3) throw Errors.notConsumable();
        e.consumed = true;
        return { status: 204 };
      },
    },
    {
      method: 'POST',
      path: base,
      bucket: 'entitlements',
      auth: 'bot',
      handler: (ctx) => {
        appCheck(core, ctx);
        const body = jsonValue(ctx.body);
        const o = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : null;
        if (!o) throw formError([], 'MODEL_TYPE_CONVERT', 'Expected an object/dictionary.');
        const tree = emptyErrorTree();
        for (const k of ['sku_id', 'owner_id', 'owner_type'] as const) {
          if (o[k] === undefined || o[k] === null) addTreeError(tree, [k], { code: 'BASE_TYPE_REQUIRED', message: 'This field is required' });
        }
        if (o.owner_type !== undefined && o.owner_type !== 1 && o.owner_type !== 2) {
          addTreeError(tree, ['owner_type'], { code: 'ENUM_TYPE_COERCE', message: `Value "${String(o.owner_type)}" is not a valid enum value.` });
        }
        if (Object.keys(tree).length > 0) throw invalidFormBody(tree);
        const skuId = String(o.sku_id);
        const ownerId = String(o.owner_id);
        if (!store.sku(skuId)) throw Errors.unknownSku();
        const isGuild = o.owner_type === 1;
        if (isGuild && !store.guild(ownerId)) throw Errors.unknownGuild();
        if (!isGuild && !store.user(ownerId)) throw Errors.unknownUser();
        const active = [...store.entitlements.values()].some(
          (e) => e.skuId === skuId && !e.deleted && !e.consumed && (isGuild ? e.guildId === ownerId : e.userId === ownerId) && (e.endsAt === null || Date.parse(e.endsAt) > Date.now()),
        );
        if (active) throw Errors.entitlementAlreadyGranted();
        const e = store.grantEntitlement({ skuId, ...(isGuild ? { guildId: ownerId } : { userId: ownerId }), test: true });
        // The partial entitlement of a test create: no subscription_id / starts_at / ends_at.
        const { starts_at: _s, ends_at: _e, subscription_id: _sub, ...partial } = view(e);
        return { status: 200, body: partial };
      },
    },
    {
      method: 'DELETE',
      path: `${base}/:entitlementId`,
      bucket: 'entitlements',
      auth: 'bot',
      handler: (ctx) => {
        appCheck(core, ctx);
        const e = find(ctx.params.entitlementId!);
        if (!e.test) throw Errors.notTestEntitlement();
        if (e.deleted) throw Errors.unknownEntitlement();
        store.deleteEntitlement(e.id);
        return { status: 204 };
      },
    },
    {
      method: 'GET',
      path: '/applications/:applicationId/skus',
      bucket: 'skus',
      auth: 'bot-or-bearer',
      handler: (ctx) => {
        appCheck(core, ctx);
        const out: Array<Record<string, unknown>> = [];
        for (const sku of store.skus) {
          out.push(skuObject(sku, store.applicationId));
          // Each subscription SKU has a system-made SUBSCRIPTION_GROUP companion (protocol §13.3).
          if (sku.type === 5) {
            const group = skuObject({ ...sku, id: (BigInt(sku.id) + 1n).toString(), type: 6, slug: `${sku.slug}-group` }, store.applicationId);
            out.push(group);
          }
        }
        return { status: 200, body: out };
      },
    },
  ];
}

