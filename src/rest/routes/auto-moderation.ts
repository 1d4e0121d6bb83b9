import type {
  RESTGetAPIAutoModerationRuleResult,
  RESTGetAPIAutoModerationRulesResult,
  RESTPatchAPIAutoModerationRuleJSONBody,
  RESTPatchAPIAutoModerationRuleResult,
  RESTPostAPIAutoModerationRuleJSONBody,
  RESTPostAPIAutoModerationRuleResult,
} from 'discord-api-types/v10';
import type { CallOptions, RestRequester } from '../types.js';
import type { ReasonOptions } from './options.js';

/** Auto moderation rules of a guild (MANAGE_GUILD). */

const RULES = '/guilds/{guild_id}/auto-moderation/rules';
const RULE = '/guilds/{guild_id}/auto-moderation/rules/{rule_id}';

export function listAutoModerationRules(
  rest: RestRequester,
  guildId: string,
  options: CallOptions = {},
): Promise<RESTGetAPIAutoModerationRulesResult> {
  return rest.request({ ...options, method: 'GET', route: RULES, params: { guild_id: guildId } });
}

export function getAutoModerationRule(
  rest: RestRequester,
  guildId: string,
  ruleId: string,
  options: CallOptions = {},
): Promise<RESTGetAPIAutoModerationRuleResult> {
  return rest.request({ ...options, method: 'GET', route: RULE, params: { guild_id: guildId, rule_id: ruleId } });
}

export function createAutoModerationRule(
  rest: RestRequester,
  guildId: string,
  rule: RESTPostAPIAutoModerationRuleJSONBody,
  options: ReasonOptions = {},
): Promise<RESTPostAPIAutoModerationRuleResult> {
  return rest.request({ ...options, method: 'POST', route: RULES, params: { guild_id: guildId }, body: rule });
}

export function editAutoModerationRule(
  rest: RestRequester,
  guildId: string,
  ruleId: string,
  patch: RESTPatchAPIAutoModerationRuleJSONBody,
  options: ReasonOptions = {},
): Promise<RESTPatchAPIAutoModerationRuleResult> {
  return rest.request({
    ...options,
    method: 'PATCH',
    route: RULE,
    params: { guild_id: guildId, rule_id: ruleId },
    body: patch,
  });
}

export async function deleteAutoModerationRule(
  rest: RestRequester,
  guildId: string,
  ruleId: string,
  options: ReasonOptions = {},
): Promise<void> {
  await rest.request({ ...options, method: 'DELETE', route: RULE, params: { guild_id: guildId, rule_id: ruleId } });
}
