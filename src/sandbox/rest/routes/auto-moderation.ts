/**
 * Auto moderation rules (discord-api-docs "Auto Moderation"): list, get, create, modify, delete. Every route
 * needs MANAGE_GUILD. Bodies are checked as the service checks them: trigger types and their metadata limits,
 * action types and the triggers each one is for, exempt roles and channels of the guild, and the rules per
 * guild of a trigger type (50035 AUTO_MODERATION_MAX_RULES_OF_TYPE_EXCEEDED on `trigger_type`, the shape the
 * service answers). A TIMEOUT action needs MODERATE_MEMBERS too. Dispatches AUTO_MODERATION_RULE_CREATE /
 * _UPDATE / _DELETE with the rule (intent AUTO_MODERATION_CONFIGURATION). Rules are not enforced on messages.
 */
import type { SandboxCore } from '../../core.js';
import { Errors } from '../../errors.js';
import { ACTION, AutomodRules, EVENT, fullTriggerMetadata, LIMITS, RULES_PER_GUILD, ruleObject, TRIGGER, type AutomodAction, type AutomodRule } from '../../state/automod.js';
import type { GuildRecord } from '../../state/model.js';
import { P } from '../../state/permissions.js';
import type { SandboxStore } from '../../state/store.js';
import type { RestContext, RouteDef } from '../types.js';
import { FormErrors, guildOf, objectBody, requireGuildPermission, type Json } from './guild-access.js';
import { isObject } from '../../../util/is-object.js';

const PRESETS = [1, 2, 3];

/** A list of strings at `path`, at most `max` of at most `length` characters each (undefined when absent). */
function stringList(form: FormErrors, v: unknown, path: ReadonlyArray<string | number>, max: number, length: number): string[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v)) return form.add(path, 'LIST_TYPE_CONVERT', 'Only iterables may be used in a ListType'), undefined;
  if (v.length > max) form.add(path, 'BASE_TYPE_MAX_LENGTH', `Must be ${max} or fewer in length.`);
  v.forEach((s: unknown, i) => {
    if (typeof s !== 'string') form.add([...path, i], 'STRING_TYPE_CONVERT', 'Could not interpret the value as string.');
    else if ([...s].length > length) form.add([...path, i], 'BASE_TYPE_MAX_LENGTH', `Must be ${length} or fewer in length.`);
  });
  return v.filter((s): s is string => typeof s === 'string');
}

/** The metadata a trigger type takes, checked against its limits. */
function triggerMetadata(form: FormErrors, triggerType: number, v: unknown): Json {
  const path = ['trigger_metadata'];
  if (v === undefined || v === null) return fullTriggerMetadata(triggerType, {});
  if (!isObject(v)) return form.add(path, 'MODEL_TYPE_CONVERT', 'Expected an object/dictionary.'), {};
  const keywordLike = triggerType === TRIGGER.KEYWORD || triggerType === TRIGGER.MEMBER_PROFILE;
  if (keywordLike) {
    stringList(form, v.keyword_filter, [...path, 'keyword_filter'], LIMITS.keywords, LIMITS.keywordLength);
    stringList(form, v.regex_patterns, [...path, 'regex_patterns'], LIMITS.regexPatterns, LIMITS.regexLength);
  }
  if (keywordLike || triggerType === TRIGGER.KEYWORD_PRESET) {
    stringList(form, v.allow_list, [...path, 'allow_list'], keywordLike ? LIMITS.allowListKeyword : LIMITS.allowListPreset, LIMITS.allowLength);
  }
  if (triggerType === TRIGGER.KEYWORD_PRESET && v.presets !== undefined && v.presets !== null) {
    if (!Array.isArray(v.presets)) form.add([...path, 'presets'], 'LIST_TYPE_CONVERT', 'Only iterables may be used in a ListType');
    else v.presets.forEach((p: unknown, i) => {
      if (typeof p !== 'number' || !PRESETS.includes(p)) form.add([...path, 'presets', i], 'BASE_TYPE_CHOICES', `Value must be one of (${PRESETS.join(', ')}).`);
    });
  }
  if (triggerType === TRIGGER.MENTION_SPAM) {
    form.int(v, 'mention_total_limit', 0, LIMITS.mentionTotal);
    form.bool(v, 'mention_raid_protection_enabled');
  }
  return fullTriggerMetadata(triggerType, v);
}

/** One action: its type allowed for the trigger, its metadata as the type needs it. */
function action(form: FormErrors, guild: GuildRecord, triggerType: number, a: unknown, i: number): AutomodAction | undefined {
  const path = ['actions', i];
  if (!isObject(a)) return form.add(path, 'MODEL_TYPE_CONVERT', 'Expected an object/dictionary.'), undefined;
  const types: number[] = Object.values(ACTION);
  if (typeof a.type !== 'number' || !types.includes(a.type)) return form.add([...path, 'type'], 'BASE_TYPE_CHOICES', `Value must be one of (${types.join(', ')}).`), undefined;
  const profile = triggerType === TRIGGER.MEMBER_PROFILE;
  const allowed = a.type === ACTION.BLOCK_MEMBER_INTERACTION ? profile : a.type === ACTION.TIMEOUT ? triggerType === TRIGGER.KEYWORD || triggerType === TRIGGER.MENTION_SPAM : !profile || a.type === ACTION.SEND_ALERT_MESSAGE;
  // Code coined by the sandbox: the service's for an action a trigger does not take is not public.
  if (!allowed) return form.add([...path, 'type'], 'AUTO_MODERATION_INVALID_ACTION', 'This action is not allowed for this trigger type.'), undefined;
  const meta: Json = isObject(a.metadata) ? a.metadata : {};
  if (a.type === ACTION.BLOCK_MESSAGE) {
    const m = form.string(meta, 'custom_message', 0, LIMITS.customMessage);
    return { type: a.type, metadata: typeof m === 'string' ? { custom_message: m } : {} };
  }
  if (a.type === ACTION.SEND_ALERT_MESSAGE) {
    const channel = guild.channels.find((c) => c.id === meta.channel_id && (c.type === 0 || c.type === 5));
    if (channel === undefined) return form.add([...path, 'metadata', 'channel_id'], 'CHANNEL_INVALID', 'Not a text channel of this guild.'), undefined;
    return { type: a.type, metadata: { channel_id: channel.id } };
  }
  if (a.type === ACTION.TIMEOUT) {
    if (meta.duration_seconds === undefined) return form.add([...path, 'metadata', 'duration_seconds'], 'BASE_TYPE_REQUIRED', 'This field is required'), undefined;
    const d = form.int(meta, 'duration_seconds', 0, LIMITS.timeoutSeconds);
    return d === undefined ? undefined : { type: a.type, metadata: { duration_seconds: d } };
  }
  return { type: a.type, metadata: {} };
}

/** Ids of the guild's roles or channels (at most `max`), for exempt_roles / exempt_channels. */
function exemptIds(form: FormErrors, field: string, v: unknown, known: ReadonlySet<string>, max: number): string[] | undefined {
  const ids = stringList(form, v, [field], max, 20);
  ids?.forEach((id, i) => {
    if (!known.has(id)) form.add([field, i], 'BASE_TYPE_CHOICES', `Not a ${field === 'exempt_roles' ? 'role' : 'channel'} of this guild.`);
  });
  return ids === undefined ? undefined : [...new Set(ids)];
}

type RuleFields = Partial<Omit<AutomodRule, 'id' | 'guildId' | 'creatorId'>>;

/** The fields of a create (`existing` null: name, event_type and trigger_type required) or a modify. */
function ruleFields(guild: GuildRecord, body: Json, existing: AutomodRule | null): RuleFields {
  const form = new FormErrors();
  const out: RuleFields = {};
  for (const field of existing === null ? ['name', 'event_type', 'trigger_type'] : []) {
    if (body[field] === undefined || body[field] === null) form.add([field], 'BASE_TYPE_REQUIRED', 'This field is required');
  }
  const name = form.string(body, 'name', 1, LIMITS.name);
  if (typeof name === 'string') out.name = name;
  let triggerType = existing?.triggerType;
  if (existing === null && body.trigger_type !== undefined && body.trigger_type !== null) {
    if (typeof body.trigger_type !== 'number' || !RULES_PER_GUILD.has(body.trigger_type)) form.add(['trigger_type'], 'BASE_TYPE_CHOICES', `Value must be one of (${[...RULES_PER_GUILD.keys()].join(', ')}).`);
    else triggerType = out.triggerType = body.trigger_type;
  }
  const eventType = form.int(body, 'event_type', 1, 2);
  if (eventType !== undefined && triggerType !== undefined) {
    // Member profiles are checked when members join or update; everything else when a message is sent.
    if ((eventType === EVENT.MEMBER_UPDATE) !== (triggerType === TRIGGER.MEMBER_PROFILE)) form.add(['event_type'], 'BASE_TYPE_CHOICES', 'This event type is not allowed for this trigger type.');
    else out.eventType = eventType;
  }
  if (triggerType !== undefined && (existing === null || body.trigger_metadata !== undefined)) out.triggerMetadata = triggerMetadata(form, triggerType, body.trigger_metadata);
  if (Array.isArray(body.actions) && triggerType !== undefined) {
    const actions = body.actions.map((a: unknown, i) => action(form, guild, triggerType, a, i));
    out.actions = actions.filter((a): a is AutomodAction => a !== undefined);
  } else if (body.actions !== undefined && body.actions !== null) form.add(['actions'], 'LIST_TYPE_CONVERT', 'Only iterables may be used in a ListType');
  const enabled = form.bool(body, 'enabled');
  if (enabled !== undefined) out.enabled = enabled;
  const roles = exemptIds(form, 'exempt_roles', body.exempt_roles, new Set(guild.roles.map((r) => r.id)), LIMITS.exemptRoles);
  if (roles !== undefined) out.exemptRoles = roles;
  const channels = exemptIds(form, 'exempt_channels', body.exempt_channels, new Set(guild.channels.map((c) => c.id)), LIMITS.exemptChannels);
  if (channels !== undefined) out.exemptChannels = channels;
  form.throwIfAny();
  return out;
}

/** MANAGE_GUILD always; MODERATE_MEMBERS for a rule that times members out. */
function requireRulePermissions(store: SandboxStore, guild: GuildRecord, actions: readonly AutomodAction[] | undefined): void {
  requireGuildPermission(store, guild, P.MANAGE_GUILD);
  if (actions?.some((a) => a.type === ACTION.TIMEOUT) === true) requireGuildPermission(store, guild, P.MODERATE_MEMBERS);
}

export function autoModerationRoutes(core: SandboxCore): RouteDef[] {
  const store = core.store;
  const rules = new AutomodRules();

  const emit = (guild: GuildRecord, t: string, rule: AutomodRule): Json => {
    const body = ruleObject(rule);
    store.emit(guild.id, t, JSON.stringify(body));
    return body;
  };

  /** The rule of the route; its code for an unknown rule is not documented, so the plain 404 of the service. */
  const ruleOf = (ctx: RestContext): { guild: GuildRecord; rule: AutomodRule } => {
    const guild = guildOf(store, ctx, { ruleId: 'rule_id' });
    requireGuildPermission(store, guild, P.MANAGE_GUILD);
    const rule = rules.of(guild.id).get(ctx.params.ruleId!);
    if (rule === undefined) throw Errors.notFound();
    return { guild, rule };
  };

  const create = (ctx: RestContext): Json => {
    const guild = guildOf(store, ctx);
    requireGuildPermission(store, guild, P.MANAGE_GUILD);
    const fields = ruleFields(guild, objectBody(ctx), null);
    requireRulePermissions(store, guild, fields.actions);
    const max = RULES_PER_GUILD.get(fields.triggerType!)!;
    if (rules.countOf(guild.id, fields.triggerType!) >= max) {
      const form = new FormErrors();
      form.add(['trigger_type'], 'AUTO_MODERATION_MAX_RULES_OF_TYPE_EXCEEDED', `Maximum number of rules of this type reached (${max}).`);
      form.throwIfAny();
    }
    const rule: AutomodRule = { id: store.ids.next(), guildId: guild.id, creatorId: store.applicationId, name: '', eventType: 1, triggerType: 1, triggerMetadata: {}, actions: [], enabled: false, exemptRoles: [], exemptChannels: [], ...fields };
    rules.of(guild.id).set(rule.id, rule);
    return emit(guild, 'AUTO_MODERATION_RULE_CREATE', rule);
  };

  const modify = (ctx: RestContext): Json => {
    const { guild, rule } = ruleOf(ctx);
    const fields = ruleFields(guild, objectBody(ctx), rule);
    requireRulePermissions(store, guild, fields.actions);
    Object.assign(rule, fields);
    return emit(guild, 'AUTO_MODERATION_RULE_UPDATE', rule);
  };

  const remove = (ctx: RestContext): void => {
    const { guild, rule } = ruleOf(ctx);
    rules.of(guild.id).delete(rule.id);
    emit(guild, 'AUTO_MODERATION_RULE_DELETE', rule);
  };

  const list = (ctx: RestContext): Json[] => {
    const guild = guildOf(store, ctx);
    requireGuildPermission(store, guild, P.MANAGE_GUILD);
    return [...rules.of(guild.id).values()].map(ruleObject);
  };

  const base = { major: 'guildId', auth: 'bot' } as const;
  const one = '/guilds/:guildId/auto-moderation/rules/:ruleId';
  return [
    { ...base, method: 'GET', path: '/guilds/:guildId/auto-moderation/rules', bucket: 'automod.read', handler: (ctx) => ({ status: 200, body: list(ctx) }) },
    { ...base, method: 'POST', path: '/guilds/:guildId/auto-moderation/rules', bucket: 'automod.edit', handler: (ctx) => ({ status: 200, body: create(ctx) }) },
    { ...base, method: 'GET', path: one, bucket: 'automod.read', handler: (ctx) => ({ status: 200, body: ruleObject(ruleOf(ctx).rule) }) },
    { ...base, method: 'PATCH', path: one, bucket: 'automod.edit', handler: (ctx) => ({ status: 200, body: modify(ctx) }) },
    { ...base, method: 'DELETE', path: one, bucket: 'automod.edit', handler: (ctx) => (remove(ctx), { status: 204 }) },
  ];
}
