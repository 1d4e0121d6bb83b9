/**
 * The route tables of the guild-administration and application routes added together (membership, guild
 * settings, the application by id, auto moderation, OAuth2-user routes, SKU subscriptions), in one entry so
 * that `addRoutes` registers them with one line.
 */
import type { SandboxCore } from '../../core.js';
import type { RouteDef } from '../types.js';
import { applicationByIdRoutes } from './application-by-id.js';
import { autoModerationRoutes } from './auto-moderation.js';
import { guildMembershipRoutes } from './guild-membership.js';
import { guildSettingsRoutes } from './guild-settings.js';
import { oauth2UserRoutes } from './oauth2-user.js';
import { subscriptionRoutes } from './subscriptions.js';

export function appGuildAdminRoutes(core: SandboxCore): RouteDef[] {
  return [...guildMembershipRoutes(core), ...guildSettingsRoutes(core), ...applicationByIdRoutes(core), ...autoModerationRoutes(core), ...oauth2UserRoutes(core), ...subscriptionRoutes(core)];
}
