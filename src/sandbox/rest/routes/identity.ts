/** GET /users/@me (bot or bearer) and GET /applications/@me (bot). */
import type { SandboxCore } from '../../core.js';
import { Errors } from '../../errors.js';
import { userObject } from '../../state/serialize.js';
import type { RouteDef } from '../types.js';

export function applicationObject(core: SandboxCore): Record<string, unknown> {
  const store = core.store;
  const owner = store.user(store.fixture.userId(0)) ?? store.botUser;
  return {
    id: store.applicationId,
    name: store.fixture.appName,
    icon: null,
    description: 'The gatehouse sandbox application',
    summary: '',
    type: null,
    bot_public: true,
    bot_require_code_grant: false,
    verify_key: core.delivery.publicKey,
    flags: core.applicationFlags(),
    flags_new: String(core.applicationFlags()),
    owner: userObject(owner),
    team: null,
    bot: userObject(store.botUser),
    guild_id: null,
    approximate_guild_count: store.guilds.length,
    approximate_user_install_count: 0,
    redirect_uris: [],
    interactions_endpoint_url: core.delivery.interactionsEndpointUrl,
    role_connections_verification_url: null,
    event_webhooks_url: null,
    event_webhooks_status: 1,
    tags: [],
    install_params: { scopes: ['applications.commands', 'bot'], permissions: '0' },
    integration_types_config: {
      '0': { oauth2_install_params: { scopes: ['applications.commands', 'bot'], permissions: '0' } },
      '1': { oauth2_install_params: { scopes: ['applications.commands'], permissions: '0' } },
    },
  };
}

export function identityRoutes(core: SandboxCore): RouteDef[] {
  return [
    {
      method: 'GET',
      path: '/users/@me',
      bucket: 'users.me',
      auth: 'bot-or-bearer',
      handler: (ctx) => {
        if (ctx.auth.kind === 'bot') {
          return { status: 200, body: { ...userObject(core.store.botUser), verified: true, mfa_enabled: false, email: null, locale: 'en-US' } };
        }
        if (ctx.auth.kind !== 'bearer') throw Errors.unauthorized();
        const token = ctx.auth.token;
        // A user token needs `identify`; a client-credentials token stands for the application owner.
        if (!token.clientCredentials && !token.scopes.has('identify')) throw Errors.unauthorized();
        const user = core.store.user(token.userId);
        if (!user) throw Errors.unknownUser();
        const body: Record<string, unknown> = { ...userObject(user), mfa_enabled: false, locale: user.locale, premium_type: 0 };
        if (token.scopes.has('email')) {
          body.email = `${user.username}@sandbox.invalid`;
          body.verified = true;
        }
        return { status: 200, body };
      },
    },
    {
      method: 'GET',
      path: '/applications/@me',
      bucket: 'applications.me',
      auth: 'bot',
      handler: () => ({ status: 200, body: applicationObject(core) }),
    },
  ];
}
