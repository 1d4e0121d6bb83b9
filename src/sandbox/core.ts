/**
 * The parts of a running sandbox that its surfaces (REST routes, admin API, interactions) share.
 * Built once by createSandbox; each surface takes what it needs from here.
 */
import type { Logger } from 'pino';
import type { EventEmitter } from 'node:events';
import type { SandboxCounters, SandboxRestEvents, SandboxRestFaults } from './contract.js';
import type { GatewayServer } from './gateway/server.js';
import type { ResolvedOptions } from './options.js';
import type { ApplicationSettings } from './state/application.js';
import type { RateLimiter } from './ratelimit.js';
import type { InteractionStore } from './interactions/store.js';
import type { CommandPermissionStore } from './state/command-permissions.js';
import type { CommandRegistry } from './state/commands.js';
import type { WebhookDelivery } from './delivery/webhooks.js';
import type { OAuthStore } from './state/oauth.js';
import type { SandboxStore } from './state/store.js';
import type { RequestJournal } from './rest/journal.js';

export interface SandboxUrls {
  /** http://127.0.0.1:PORT/api/v10 */
  rest: string;
  /** ws://127.0.0.1:PORT/gateway */
  gateway: string;
  /** ws://127.0.0.1:PORT/resume (READY's resume_gateway_url) */
  resume: string;
  /** http://127.0.0.1:PORT/_sandbox */
  admin: string;
}

/** Application flags (protocol §9 caveats, protocol §S2.6). */
export const APP_FLAGS = {
  GATEWAY_PRESENCE_LIMITED: 1 << 13,
  GATEWAY_GUILD_MEMBERS_LIMITED: 1 << 15,
  EMBEDDED: 1 << 17,
  GATEWAY_MESSAGE_CONTENT_LIMITED: 1 << 19,
  APPLICATION_COMMAND_BADGE: 1 << 23,
} as const;

export interface SandboxCore {
  readonly options: ResolvedOptions;
  readonly store: SandboxStore;
  /** The application's editable settings (PATCH /applications/@me). */
  readonly application: ApplicationSettings;
  readonly oauth: OAuthStore;
  readonly commands: CommandRegistry;
  readonly commandPermissions: CommandPermissionStore;
  readonly interactions: InteractionStore;
  readonly gateway: GatewayServer;
  /** Outgoing webhooks: interactions endpoint and webhook events URL (./delivery). */
  readonly delivery: WebhookDelivery;
  readonly counters: SandboxCounters;
  readonly limiter: RateLimiter;
  /** REST faults (a forced 429) and every REST answer. */
  readonly restFaults: SandboxRestFaults;
  readonly restEvents: EventEmitter<SandboxRestEvents>;
  readonly logger: Logger;
  readonly urls: SandboxUrls;
  readonly botToken: string;
  readonly clientSecret: string;
  /** REST requests answered, for the admin API. */
  readonly journal: RequestJournal;
  applicationFlags(): number;
}
