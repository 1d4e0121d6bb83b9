/** GET /users/@me (bot or bearer), GET and PATCH /applications/@me (bot). */
import { createHash } from 'node:crypto';
import { INTENT_BITS } from '../../../api/intents.js';
import { APP_FLAGS, type SandboxCore } from '../../core.js';
import { addTreeError, emptyErrorTree, Errors, invalidFormBody, SandboxError, type ErrorTree } from '../../errors.js';
import type { SandboxInnerError } from '../../command-errors.js';
import { userObject } from '../../state/serialize.js';
import { jsonValue } from '../body.js';
import type { RestContext, RouteDef } from '../types.js';
import { isObject } from '../../../util/is-object.js';

/** The limited intent flags (the only ones the API may change) and the privileged intent each one enables. */
const LIMITED_FLAGS: ReadonlyArray<readonly [flag: number, intent: number]> = [
  [APP_FLAGS.GATEWAY_PRESENCE_LIMITED, INTENT_BITS.GUILD_PRESENCES],
  [APP_FLAGS.GATEWAY_GUILD_MEMBERS_LIMITED, INTENT_BITS.GUILD_MEMBERS],
  [APP_FLAGS.GATEWAY_MESSAGE_CONTENT_LIMITED, INTENT_BITS.MESSAGE_CONTENT],
];

const IMAGE_DATA = /^data:image\/(png|jpeg|jpg|gif|webp);base64,[A-Za-z0-9+/=]+$/;

/**
 * Image data (reference "image data": a data URI) becomes a hash like the service's asset hashes; null clears.
 * Anything else is a 50035 at the field (code coined by the sandbox: the service's is not public).
 */
export function imageHash(tree: ErrorTree, field: string, v: unknown): string | null | undefined {
  if (v === undefined) return undefined;
  if (v === null) return null;
  if (typeof v !== 'string' || !IMAGE_DATA.test(v)) {
    addTreeError(tree, [field], { code: 'IMAGE_INVALID', message: 'Invalid image data' });
    return undefined;
  }
  return createHash('md5').update(v).digest('hex');
}

function optionalUrl(tree: ErrorTree, body: Record<string, unknown>, field: string): string | null | undefined {
  const v = body[field];
  if (v === undefined) return undefined;
  if (v === null || v === '') return null;
  if (typeof v !== 'string') {
    addTreeError(tree, [field], { code: 'STRING_TYPE_CONVERT', message: 'Could not interpret the value as string.' });
    return undefined;
  }
  if (!/^https?:\/\/\S+$/.test(v)) {
    addTreeError(tree, [field], { code: 'URL_TYPE_INVALID_URL', message: 'Not a well formed URL.' });
    return undefined;
  }
  return v;
}

/**
 * The application as GET /applications/@me answers it. Optional fields the application has no value for are left
 * out, not null: the API docs, discord-api-types and the published description agree that `cover_image`,
 * `guild_id` and `custom_install_url` are optional and never null.
 */
export function applicationObject(core: SandboxCore): Record<string, unknown> {
  const store = core.store;
  const app = core.application;
  const owner = store.user(store.fixture.userId(0)) ?? store.botUser;
  return {
    id: store.applicationId,
    name: store.fixture.appName,
    icon: app.icon,
    ...(app.coverImage !== null ? { cover_image: app.coverImage } : {}),
    description: app.description,
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
    approximate_guild_count: store.guilds.length,
    approximate_user_install_count: 0,
    approximate_user_authorization_count: 0,
    redirect_uris: [],
    interactions_endpoint_url: core.delivery.interactionsEndpointUrl,
    role_connections_verification_url: app.roleConnectionsVerificationUrl,
    ...(app.customInstallUrl !== null ? { custom_install_url: app.customInstallUrl } : {}),
    event_webhooks_url: core.delivery.eventsUrl,
    event_webhooks_status: app.eventWebhooksStatus,
    event_webhooks_types: [...core.delivery.eventTypes],
    tags: app.tags,
    install_params: app.installParams,
    integration_types_config: app.integrationTypesConfig,
    // 0 INHERIT (the default): interactions are scanned as the guild's own content filter says.
    explicit_content_filter: app.explicitContentFilter ?? 0,
    eligible_oauth2_scopes: [],
  };
}

/**
 * PATCH /applications/@me: only the given fields change (discord-api-docs, "Edit Current Application"). Checked
 * first, applied only when everything is valid. `flags` may change only the limited intent flags, which here
 * also switch the privileged intents IDENTIFY accepts; other bits are ignored. `interactions_endpoint_url` and
 * `event_webhooks_url` are the sandbox's delivery URLs (./delivery): set only after a signed PING is answered
 * and a forged one refused, as the service checks them; an unverifiable URL is a 50035 on that field.
 */
export async function editApplication(core: SandboxCore, ctx: RestContext): Promise<Record<string, unknown>> {
  const body = jsonValue(ctx.body) ?? {};
  if (!isObject(body)) {
    const tree = emptyErrorTree();
    addTreeError(tree, [], { code: 'MODEL_TYPE_CONVERT', message: 'Expected an object/dictionary.' });
    throw invalidFormBody(tree);
  }
  const tree = emptyErrorTree();
  const endpoint = optionalUrl(tree, body, 'interactions_endpoint_url');
  const app = core.application;
  const next = { ...app };
  if (body.description !== undefined) {
    const d = body.description;
    if (typeof d !== 'string') addTreeError(tree, ['description'], { code: 'STRING_TYPE_CONVERT', message: 'Could not interpret the value as string.' });
    else if ([...d].length > 400) addTreeError(tree, ['description'], { code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 400 or fewer in length.' });
    else next.description = d;
  }
  if (body.tags !== undefined) {
    const t = body.tags;
    if (!Array.isArray(t)) addTreeError(tree, ['tags'], { code: 'LIST_TYPE_CONVERT', message: 'Only iterables may be used in a ListType' });
    else if (t.length > 5) addTreeError(tree, ['tags'], { code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 5 or fewer in length.' });
    else {
      t.forEach((tag, i) => {
        if (typeof tag !== 'string') addTreeError(tree, ['tags', i], { code: 'STRING_TYPE_CONVERT', message: 'Could not interpret the value as string.' });
        else if (tag.length < 1 || [...tag].length > 20) addTreeError(tree, ['tags', i], { code: 'BASE_TYPE_BAD_LENGTH', message: 'Must be between 1 and 20 in length.' });
      });
      next.tags = t.filter((x): x is string => typeof x === 'string');
    }
  }
  for (const [field, key] of [
    ['custom_install_url', 'customInstallUrl'],
    ['role_connections_verification_url', 'roleConnectionsVerificationUrl'],
  ] as const) {
    const v = optionalUrl(tree, body, field);
    if (v !== undefined) next[key] = v;
  }
  const eventsUrl = optionalUrl(tree, body, 'event_webhooks_url');
  let eventTypes: string[] | undefined;
  if (body.event_webhooks_status !== undefined) {
    const v = body.event_webhooks_status;
    if (v !== 1 && v !== 2) addTreeError(tree, ['event_webhooks_status'], { code: 'BASE_TYPE_CHOICES', message: 'Value must be one of (1, 2).' });
    else next.eventWebhooksStatus = v;
  }
  if (body.event_webhooks_types !== undefined) {
    const v = body.event_webhooks_types;
    if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) addTreeError(tree, ['event_webhooks_types'], { code: 'LIST_TYPE_CONVERT', message: 'Only iterables may be used in a ListType' });
    else eventTypes = [...v];
  }
  for (const [field, key] of [['install_params', 'installParams'], ['integration_types_config', 'integrationTypesConfig']] as const) {
    const v = body[field];
    if (v === undefined) continue;
    if (!isObject(v)) addTreeError(tree, [field], { code: 'MODEL_TYPE_CONVERT', message: 'Expected an object/dictionary.' });
    else next[key] = structuredClone(v);
  }
  if (body.explicit_content_filter !== undefined && body.explicit_content_filter !== null) {
    const v = body.explicit_content_filter;
    if (v !== 0 && v !== 1) addTreeError(tree, ['explicit_content_filter'], { code: 'BASE_TYPE_CHOICES', message: 'Value must be one of (0, 1).' });
    else next.explicitContentFilter = v;
  }
  const icon = imageHash(tree, 'icon', body.icon);
  if (icon !== undefined) next.icon = icon;
  const cover = imageHash(tree, 'cover_image', body.cover_image);
  if (cover !== undefined) next.coverImage = cover;
  let intents: number | undefined;
  if (body.flags !== undefined) {
    const f = body.flags;
    if (typeof f !== 'number' || !Number.isInteger(f)) addTreeError(tree, ['flags'], { code: 'NUMBER_TYPE_COERCE', message: `Value "${String(f)}" is not int.` });
    else {
      intents = core.options.gateway.allowedIntents;
      for (const [flag, intent] of LIMITED_FLAGS) intents = (f & flag) !== 0 ? intents | intent : intents & ~intent;
    }
  }
  if (Object.keys(tree).length > 0) throw invalidFormBody(tree);
  await verifiedUrl(tree, 'interactions_endpoint_url', endpoint, (url) => core.delivery.setInteractionsEndpoint(url));
  await verifiedUrl(tree, 'event_webhooks_url', eventsUrl, (url) =>
    core.delivery.setEventsEndpoint(url, eventTypes !== undefined ? { types: eventTypes } : {}),
  );
  if (eventsUrl === undefined && eventTypes !== undefined) await core.delivery.setEventsEndpoint(core.delivery.eventsUrl, { verify: false, types: eventTypes });
  if (Object.keys(tree).length > 0) throw invalidFormBody(tree);
  Object.assign(app, next);
  if (intents !== undefined) core.options.gateway.allowedIntents = intents;
  return applicationObject(core);
}

/** Point a delivery URL (null clears it); a URL that fails the signed check is a 50035 on its field. */
async function verifiedUrl(
  tree: ErrorTree,
  field: string,
  url: string | null | undefined,
  set: (url: string | null) => Promise<void>,
): Promise<void> {
  if (url === undefined) return;
  try {
    await set(url);
  } catch (err) {
    if (!(err instanceof SandboxError)) throw err;
    const what = field === 'interactions_endpoint_url' ? 'interactions endpoint url' : 'webhook events url';
    addTreeError(tree, [field], { code: 'APPLICATION_INTERACTIONS_ENDPOINT_URL_INVALID', message: `The specified ${what} could not be verified.`, sandbox_detail: { code: 'UNVERIFIED', message: err.message } } as SandboxInnerError);
  }
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
    {
      method: 'PATCH',
      path: '/applications/@me',
      bucket: 'applications.edit',
      auth: 'bot',
      handler: async (ctx) => ({ status: 200, body: await editApplication(core, ctx) }),
    },
  ];
}
