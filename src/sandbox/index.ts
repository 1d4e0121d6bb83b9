/**
 * The sandbox: a local, faithful server of the API (REST + gateway + admin) on loopback.
 *
 *   const sandbox = await createSandbox({ seed: { guilds: 3 } });
 *   // sandbox.restUrl, sandbox.gatewayUrl, sandbox.botToken ...
 *   await sandbox.close();
 *
 * See ./contract.ts for the programmatic surface and README for the admin HTTP API.
 */
import { EventEmitter } from 'node:events';
import { registerSecret } from '../util/redact.js';
import type {
  AutocompleteOptions,
  ComponentOptions,
  ModalSubmitOptions,
  InteractionRecord,
  InvokeOptions,
  Sandbox,
  SandboxCounters,
  SandboxFaults,
  SandboxGatewayEvents,
  SandboxMessageRecord,
  SandboxRestEvents,
  SandboxRestFaults,
  SandboxOptions,
  SandboxState,
} from './contract.js';
import { APP_FLAGS, type SandboxCore, type SandboxUrls } from './core.js';
import { Fixture } from './fixture.js';
import { GatewayServer } from './gateway/server.js';
import { makeBotToken, resolveOptions } from './options.js';
import { RateLimiter } from './ratelimit.js';
import { RestApi } from './rest/api.js';
import { RequestJournal } from './rest/journal.js';
import { AdminApi } from './admin/api.js';
import { sendComponent, sendInteraction, sendModalSubmit } from './interactions/send.js';
import { InteractionStore } from './interactions/store.js';
import { commandRoutes } from './rest/routes/commands.js';
import { gatewayRoutes } from './rest/routes/gateway.js';
import { identityRoutes } from './rest/routes/identity.js';
import { interactionRoutes } from './rest/routes/interactions.js';
import { monetizationRoutes } from './rest/routes/monetization.js';
import { oauth2Routes } from './rest/routes/oauth2.js';
import { permissionRoutes } from './rest/routes/permissions.js';
import { channelRoutes } from './rest/routes/channels.js';
import { guildRoutes } from './rest/routes/guilds.js';
import { ChannelVerbs } from './state/channel-verbs.js';
import { memberRoutes } from './rest/routes/members.js';
import { roleRoutes } from './rest/routes/roles.js';
import { banRoutes } from './rest/routes/bans.js';
import { channelWriteRoutes } from './rest/routes/channel-writes.js';
import { threadRoutes } from './rest/routes/threads.js';
import { reactionRoutes } from './rest/routes/reactions.js';
import { pinRoutes } from './rest/routes/pins.js';
import { crosspostRoutes } from './rest/routes/crosspost.js';
import { inviteRoutes } from './rest/routes/invites.js';
import { auditLogRoutes } from './rest/routes/audit-logs.js';
import { incomingWebhookRoutes } from './rest/routes/webhook-messages.js';
import { assetRoutes } from './rest/routes/assets.js';
import { setEventInterest } from './state/scheduled-events.js';
import { appGuildAdminRoutes } from './rest/routes/app-guild-admin.js';
import { userRoutes } from './rest/routes/users.js';
import { CommandPermissionStore } from './state/command-permissions.js';
import { CommandRegistry } from './state/commands.js';
import { ADMIN_PREFIX, GATEWAY_PATH, RESUME_PATH, SandboxHttpServer } from './server.js';
import { OAuthStore } from './state/oauth.js';
import { SandboxStore } from './state/store.js';
import { messageSnapshot } from './state/messages.js';
import { defaultApplicationSettings } from './state/application.js';
import { INTENT_BITS } from '../api/intents.js';
import { WebhookDelivery } from './delivery/webhooks.js';
import type { SandboxWebhooks } from './delivery/contract.js';
import type { RestContext } from './rest/types.js';

export type * from './contract.js';
export { SandboxError, SandboxApiError } from './errors.js';
export { DEFAULT_BUCKETS, type BucketName } from './options.js';

class SandboxInstance implements Sandbox {
  constructor(
    private readonly core: SandboxCore,
    private readonly http: SandboxHttpServer,
    readonly gatewayEvents: EventEmitter<SandboxGatewayEvents>,
    readonly state: SandboxState,
  ) {}

  get restUrl(): string {
    return this.core.urls.rest;
  }
  get gatewayUrl(): string {
    return this.core.urls.gateway;
  }
  get adminUrl(): string {
    return this.core.urls.admin;
  }
  get botToken(): string {
    return this.core.botToken;
  }
  get applicationId(): string {
    return this.core.store.applicationId;
  }
  get clientId(): string {
    return this.core.store.applicationId;
  }
  get clientSecret(): string {
    return this.core.clientSecret;
  }
  get counters(): SandboxCounters {
    return this.core.counters;
  }
  get faults(): SandboxFaults {
    return this.core.gateway.faults;
  }
  get webhooks(): SandboxWebhooks {
    return this.core.delivery;
  }

  get restFaults(): SandboxRestFaults {
    return this.core.restFaults;
  }

  get restEvents(): EventEmitter<SandboxRestEvents> {
    return this.core.restEvents;
  }

  setRecommendedShards(count: number | null): void {
    this.core.gateway.setRecommendedShards(count);
  }

  async invoke(options: InvokeOptions): Promise<InteractionRecord> {
    return sendInteraction(this.core, options, false);
  }

  async autocomplete(options: AutocompleteOptions): Promise<InteractionRecord> {
    return sendInteraction(this.core, options, true);
  }

  interaction(id: string): InteractionRecord | undefined {
    return this.core.interactions.get(id);
  }

  async component(options: ComponentOptions): Promise<InteractionRecord> {
    return sendComponent(this.core, options);
  }

  async submitModal(options: ModalSubmitOptions): Promise<InteractionRecord> {
    return sendModalSubmit(this.core, options);
  }

  messages(filter: { channelId?: string; guildId?: string } = {}): SandboxMessageRecord[] {
    return this.core.store.messages.all(filter).map(messageSnapshot);
  }

  /** Extension: an OAuth2 authorization code, as if the user had authorized the app (exchange at POST /oauth2/token). */
  issueAuthorizationCode(scopes: string[], options: { userId?: string; redirectUri?: string } = {}): string {
    return this.core.oauth.issueCode(scopes, options.userId ?? this.core.store.fixture.userId(0), options.redirectUri ?? null);
  }

  issueBearerToken(scopes: string[], userId?: string): string {
    const user = userId ?? this.core.store.fixture.userId(0);
    const token = this.core.oauth.issue(scopes, user).accessToken;
    registerSecret(token, { transient: true });
    return token;
  }

  async close(): Promise<void> {
    this.core.delivery.close();
    await this.core.gateway.close();
    await this.http.close();
  }
}

function stateView(store: SandboxStore, commands: CommandRegistry): SandboxState {
  return {
    get guildIds() {
      return store.guilds.map((g) => g.id);
    },
    memberIds: (guildId) => [...store.members(store.requireGuild(guildId)).keys()],
    addMember: (guildId, member) => store.addMember(guildId, member),
    updateMember: (guildId, userId, patch) => store.updateMember(guildId, userId, patch),
    removeMember: (guildId, userId) => store.removeMember(guildId, userId),
    grantEntitlement: (e) => store.grantEntitlement(e).id,
    endEntitlement: (id, endsAt) => store.endEntitlement(id, endsAt),
    deleteEntitlement: (id) => store.deleteEntitlement(id),
    get skuIds() {
      return store.skus.map((s) => s.id);
    },
    channelIds: (guildId) => store.requireGuild(guildId).channels.map((c) => c.id),
    roleIds: (guildId) => store.requireGuild(guildId).roles.map((r) => r.id),
    commands: (guildId) => commands.list(guildId ?? null),
    channels: new ChannelVerbs(store),
    setEventInterest: (guildId, eventId, userId, interested = true) => setEventInterest(store, guildId, eventId, userId, interested),
    leaveGuild: (guildId) => store.leaveGuild(guildId),
    joinGuild: (guildId) => store.joinGuild(guildId),
    get leftGuildIds() {
      return store.leftGuildIds;
    },
  };
}

/** The application's flags as the gateway's intents and the options make them. */
function applicationFlagsOf(o: ReturnType<typeof resolveOptions>): number {
  let flags = APP_FLAGS.APPLICATION_COMMAND_BADGE;
  const allowed = o.gateway.allowedIntents;
  if (allowed & INTENT_BITS.GUILD_PRESENCES) flags |= APP_FLAGS.GATEWAY_PRESENCE_LIMITED;
  if (allowed & INTENT_BITS.GUILD_MEMBERS) flags |= APP_FLAGS.GATEWAY_GUILD_MEMBERS_LIMITED;
  if (allowed & INTENT_BITS.MESSAGE_CONTENT) flags |= APP_FLAGS.GATEWAY_MESSAGE_CONTENT_LIMITED;
  if (o.activities) flags |= APP_FLAGS.EMBEDDED;
  return flags;
}

/** Every REST route group, in the order the router tries them. */
function addRoutes(rest: RestApi, core: SandboxCore, delivery: WebhookDelivery): void {
  rest.add(gatewayRoutes(core));
  rest.add(identityRoutes(core));
  rest.add(commandRoutes(core));
  rest.add(permissionRoutes(core));
  const interactionRouteList = interactionRoutes(core);
  rest.add(incomingWebhookRoutes(core, interactionRouteList));
  rest.add(interactionRouteList);
  // An inline answer to an HTTP-delivered interaction is applied exactly as the callback endpoint applies one.
  const callback = interactionRouteList.find((r) => r.method === 'POST' && r.path.endsWith('/callback'))!;
  delivery.applyCallback = (record, body) => {
    const ctx: RestContext = {
      method: 'POST',
      path: `/interactions/${record.id}/${record.token}/callback`,
      params: { interactionId: record.id, token: record.token },
      query: new URLSearchParams(),
      headers: {},
      auth: { kind: 'none' },
      body: { kind: 'json', value: body },
      locale: null,
    };
    return callback.handler(ctx);
  };
  rest.add(monetizationRoutes(core));
  rest.add(oauth2Routes(core));
  rest.add(userRoutes(core));
  rest.add(guildRoutes(core));
  rest.add(memberRoutes(core));
  rest.add(roleRoutes(core));
  rest.add(banRoutes(core));
  rest.add(channelRoutes(core));
  rest.add(channelWriteRoutes(core));
  rest.add(threadRoutes(core));
  rest.add(reactionRoutes(core));
  rest.add(pinRoutes(core));
  rest.add(crosspostRoutes(core));
  rest.add(assetRoutes(core));
  rest.add(appGuildAdminRoutes(core));
  rest.add(inviteRoutes(core));
  rest.add(auditLogRoutes(core));
}

export async function createSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const o = resolveOptions(options);
  const fixture = new Fixture(o.seed, o.applicationId);
  const store = new SandboxStore(fixture);
  const botToken = o.botToken || makeBotToken(store.applicationId);
  registerSecret(botToken);
  registerSecret(o.clientSecret);
  const events = new EventEmitter<SandboxGatewayEvents>();
  const counters: SandboxCounters = { identifies: 0, resumes: 0, commandWrites: 0, commandCreates: 0, restRequests: 0, rest429s: 0 };
  const urls: SandboxUrls = { rest: '', gateway: '', resume: '', admin: '' };
  const applicationFlags = (): number => applicationFlagsOf(o);
  const gateway = new GatewayServer({
    store,
    options: o.gateway,
    botToken,
    applicationFlags,
    gatewayUrl: () => urls.gateway,
    resumeUrl: () => urls.resume,
    events,
    counters,
    logger: o.logger,
  });
  const delivery = new WebhookDelivery({ store, logger: o.logger, ...(options.webhooks !== undefined ? { options: options.webhooks } : {}) });
  // Entitlement events go out by gateway and, with a webhook events URL set, by webhook too.
  store.connect(delivery.tee(gateway));
  const limiter = new RateLimiter(o.rest.globalPerSecond);
  const oauth = new OAuthStore();
  const commandPermissions = new CommandPermissionStore(store.applicationId);
  const commands = new CommandRegistry({
    applicationId: store.applicationId,
    ids: store.ids,
    dailyCreates: o.rest.dailyCommandCreates,
    embedded: o.activities,
    appIntegrationTypes: [0, 1],
    onPermissionsDropped: (guildId, commandId) => commandPermissions.drop(guildId, commandId),
  });
  const interactions = new InteractionStore(store.ids, { responseMs: o.rest.interactionResponseMs, tokenMs: o.rest.interactionTokenMs });
  const journal = new RequestJournal();
  const restEvents = new EventEmitter<SandboxRestEvents>();
  const rest = new RestApi({ options: o.rest, botToken, oauth, limiter, counters, logger: o.logger, journal, events: restEvents });
  const core: SandboxCore = {
    options: o,
    store,
    application: defaultApplicationSettings(),
    oauth,
    commands,
    commandPermissions,
    interactions,
    gateway,
    delivery,
    counters,
    limiter,
    restFaults: rest.faults,
    restEvents,
    logger: o.logger,
    urls,
    botToken,
    clientSecret: o.clientSecret,
    journal,
    applicationFlags,
  };

  addRoutes(rest, core, delivery);

  const http = new SandboxHttpServer(rest, gateway, o.logger);
  http.admin = new AdminApi(core);
  const port = await http.listen(o.host, o.port);
  const host = o.host === '::1' ? '[::1]' : o.host;
  urls.rest = `http://${host}:${port}/api/v10`;
  urls.gateway = `ws://${host}:${port}${GATEWAY_PATH}`;
  urls.resume = `ws://${host}:${port}${RESUME_PATH}`;
  urls.admin = `http://${host}:${port}${ADMIN_PREFIX}`;
  o.logger.child({ component: 'sandbox' }).debug({ rest: urls.rest, gateway: urls.gateway, admin: urls.admin }, 'sandbox listening');
  return new SandboxInstance(core, http, events, stateView(store, commands));
}
