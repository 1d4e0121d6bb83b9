/**
 * Auto moderation rules through gatehouse's REST client against the sandbox: MANAGE_GUILD, the rule as the
 * service answers it, trigger metadata limits, actions per trigger, the per-guild count of a trigger type, and
 * AUTO_MODERATION_RULE_* only to sessions with AUTO_MODERATION_CONFIGURATION.
 */
import { AutoModerationActionType, AutoModerationRuleEventType, AutoModerationRuleTriggerType, type RESTPostAPIAutoModerationRuleJSONBody } from 'discord-api-types/v10';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ApiError,
  RestClient,
  createAutoModerationRule,
  deleteAutoModerationRule,
  editAutoModerationRule,
  getAutoModerationRule,
  listAutoModerationRules,
} from '../../src/rest/index.js';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { identified, type RawGatewayClient } from './helpers.js';

const GUILDS = 1;
const AUTO_MODERATION_CONFIGURATION = 1 << 20;

const sandboxes: Sandbox[] = [];
const clients: RawGatewayClient[] = [];
const rests: RestClient[] = [];

afterEach(async () => {
  for (const r of rests.splice(0)) r.close();
  for (const c of clients.splice(0)) c.terminate();
  for (const sb of sandboxes.splice(0)) await sb.close();
});

async function start(opts: { moderator?: boolean } = {}) {
  const sb = await createSandbox({ seed: { guilds: 1, membersPerGuild: 4 }, gateway: { identifyWindowMs: 0 }, rest: { buckets: { 'automod.edit': { limit: 50, windowMs: 1_000 } } } });
  sandboxes.push(sb);
  const rest = new RestClient({ baseUrl: sb.restUrl, token: sb.botToken, retries: 0 });
  rests.push(rest);
  const g = sb.state.guildIds[0]!;
  const roles = sb.state.roleIds(g);
  if (opts.moderator !== false) sb.state.updateMember(g, sb.applicationId, { roles: [roles.at(-1)!, roles.at(-3)!] });
  return { sb, rest, g, roles, channel: sb.state.channelIds(g)[0]! };
}

async function refusal(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

const keywordRule = (name: string): RESTPostAPIAutoModerationRuleJSONBody => ({
  name,
  event_type: AutoModerationRuleEventType.MessageSend,
  trigger_type: AutoModerationRuleTriggerType.Keyword,
  trigger_metadata: { keyword_filter: ['spam*'] },
  actions: [{ type: AutoModerationActionType.BlockMessage, metadata: { custom_message: 'No spam' } }],
  enabled: true,
});

describe('auto moderation rules', () => {
  it('create, get, list, modify, delete: the rule as the service answers it, each with its gateway event', async () => {
    const { sb, rest, g, roles, channel } = await start();
    const { client } = await identified(sb.gatewayUrl, sb.botToken, { intents: GUILDS | AUTO_MODERATION_CONFIGURATION });
    const { client: without } = await identified(sb.gatewayUrl, sb.botToken, { intents: GUILDS });
    clients.push(client, without);
    const rule = await createAutoModerationRule(rest, g, { ...keywordRule('No spam'), exempt_roles: [roles.at(-3)!] });
    expect(rule).toEqual({
      id: expect.any(String),
      guild_id: g,
      name: 'No spam',
      creator_id: sb.applicationId,
      event_type: 1,
      trigger_type: 1,
      trigger_metadata: { keyword_filter: ['spam*'], regex_patterns: [], allow_list: [] },
      actions: [{ type: 1, metadata: { custom_message: 'No spam' } }],
      enabled: true,
      exempt_roles: [roles.at(-3)!],
      exempt_channels: [],
    });
    expect((await client.nextDispatch('AUTO_MODERATION_RULE_CREATE')).d).toEqual(rule);
    expect(await getAutoModerationRule(rest, g, rule.id)).toEqual(rule);
    expect(await listAutoModerationRules(rest, g)).toEqual([rule]);
    const edited = await editAutoModerationRule(rest, g, rule.id, { name: 'Spam filter', actions: [{ type: AutoModerationActionType.SendAlertMessage, metadata: { channel_id: channel } }] });
    expect(edited).toMatchObject({ name: 'Spam filter', actions: [{ type: 2, metadata: { channel_id: channel } }], trigger_metadata: rule.trigger_metadata });
    expect((await client.nextDispatch('AUTO_MODERATION_RULE_UPDATE')).d).toEqual(edited);
    await deleteAutoModerationRule(rest, g, rule.id);
    expect((await client.nextDispatch('AUTO_MODERATION_RULE_DELETE')).d).toEqual(edited);
    expect(await listAutoModerationRules(rest, g)).toEqual([]);
    const gone = await refusal(getAutoModerationRule(rest, g, rule.id));
    expect(gone.status).toBe(404);
    // Without the intent, none of the three arrives.
    await client.nextDispatch('AUTO_MODERATION_RULE_DELETE', 100).catch(() => undefined);
    expect(without.dispatches().filter((p) => p.t?.startsWith('AUTO_MODERATION'))).toEqual([]);
  });

  it('needs MANAGE_GUILD (and MODERATE_MEMBERS for a timeout action)', async () => {
    const { sb, rest, g, roles } = await start({ moderator: false });
    for (const p of [listAutoModerationRules(rest, g), createAutoModerationRule(rest, g, keywordRule('x'))]) {
      const e = await refusal(p);
      expect([e.status, e.code]).toEqual([403, 50013]);
    }
    // MANAGE_GUILD alone: a rule that blocks is fine, one that times members out is not.
    sb.state.channels.updateRole(g, roles.at(-3)!, { permissions: 1n << 5n });
    sb.state.updateMember(g, sb.applicationId, { roles: [roles.at(-1)!, roles.at(-3)!] });
    await createAutoModerationRule(rest, g, keywordRule('blocks'));
    const timeout = await refusal(createAutoModerationRule(rest, g, { ...keywordRule('times out'), actions: [{ type: AutoModerationActionType.Timeout, metadata: { duration_seconds: 60 } }] }));
    expect([timeout.status, timeout.code]).toEqual([403, 50013]);
  });

  it('keeps each trigger type to its count per guild (6 keyword rules, 1 mention-spam rule)', async () => {
    const { rest, g } = await start();
    for (let i = 0; i < 6; i++) await createAutoModerationRule(rest, g, keywordRule(`k${i}`));
    const seventh = await refusal(createAutoModerationRule(rest, g, keywordRule('k6')));
    expect([seventh.status, seventh.code]).toEqual([400, 50035]);
    expect(seventh.fieldErrors).toEqual([{ path: 'trigger_type', code: 'AUTO_MODERATION_MAX_RULES_OF_TYPE_EXCEEDED', message: 'Maximum number of rules of this type reached (6).' }]);
    const mention: RESTPostAPIAutoModerationRuleJSONBody = { name: 'mentions', event_type: 1, trigger_type: AutoModerationRuleTriggerType.MentionSpam, trigger_metadata: { mention_total_limit: 5 }, actions: [{ type: 3, metadata: { duration_seconds: 60 } }] };
    expect(await createAutoModerationRule(rest, g, mention)).toMatchObject({ trigger_metadata: { mention_total_limit: 5, mention_raid_protection_enabled: false } });
    const second = await refusal(createAutoModerationRule(rest, g, mention));
    expect(second.fieldErrors.map((e) => e.code)).toEqual(['AUTO_MODERATION_MAX_RULES_OF_TYPE_EXCEEDED']);
  });

  it('refuses metadata over its limits, actions a trigger does not take, and missing fields, together', async () => {
    const { rest, g } = await start();
    const bad = await refusal(
      createAutoModerationRule(rest, g, {
        name: 'x',
        event_type: 1,
        trigger_type: AutoModerationRuleTriggerType.Keyword,
        trigger_metadata: { keyword_filter: ['y'.repeat(61)], regex_patterns: Array.from({ length: 11 }, () => 'a') },
        actions: [{ type: AutoModerationActionType.BlockMemberInteraction }],
        exempt_roles: ['100000000000000001'],
      }),
    );
    expect([bad.status, bad.code]).toEqual([400, 50035]);
    expect(bad.fieldErrors.map((e) => e.path).sort()).toEqual(['actions[0].type', 'exempt_roles[0]', 'trigger_metadata.keyword_filter[0]', 'trigger_metadata.regex_patterns']);
    const missing = await refusal(createAutoModerationRule(rest, g, {} as RESTPostAPIAutoModerationRuleJSONBody));
    expect(missing.fieldErrors.map((e) => `${e.path} ${e.code}`).sort()).toEqual(['event_type BASE_TYPE_REQUIRED', 'name BASE_TYPE_REQUIRED', 'trigger_type BASE_TYPE_REQUIRED']);
    const profileEvent = await refusal(createAutoModerationRule(rest, g, { ...keywordRule('p'), trigger_type: AutoModerationRuleTriggerType.MemberProfile, event_type: 1 }));
    expect(profileEvent.fieldErrors.map((e) => e.path)).toContain('event_type');
    expect(await listAutoModerationRules(rest, g)).toEqual([]);
  });
});
