/**
 * Errors of the sandbox. `SandboxApiError` is what the REST surface answers (status + the service's JSON
 * error shape, protocol §2.5); named apart from the REST client's `ApiError`, which a bot receives when the
 * service refuses. `SandboxError` is what the programmatic and admin APIs throw for bad control input.
 */
// The 50035 `errors` tree is the commands model's: the sandbox answers with the shape it validates into, and
// builds every tree with the same prototype-free nodes (paths carry keys from the request).
import { addTreeError, emptyErrorTree, type ErrorTree, type InnerError } from '../commands/index.js';

export { addTreeError, emptyErrorTree };
export type { ErrorTree, InnerError };

export type SandboxErrorCode =
  | 'INVALID'
  | 'CONFLICT'
  | 'UNKNOWN_GUILD'
  | 'UNKNOWN_MEMBER'
  | 'UNKNOWN_USER'
  | 'UNKNOWN_ROLE'
  | 'UNKNOWN_CHANNEL'
  | 'UNKNOWN_SKU'
  | 'UNKNOWN_ENTITLEMENT'
  | 'UNKNOWN_COMMAND'
  | 'UNKNOWN_INTERACTION'
  | 'NO_SHARD'
  | 'INVALID_OPTION'
  | 'FORBIDDEN'
  | 'PAYLOAD_TOO_LARGE';

export class SandboxError extends Error {
  constructor(
    readonly code: SandboxErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'SandboxError';
  }
}


export class SandboxApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly errors?: ErrorTree,
    readonly extraHeaders?: Record<string, string>,
    /** Extension fields of the body (the sandbox's own detail, never a field the service sends). */
    readonly extraBody?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'SandboxApiError';
  }

  body(): Record<string, unknown> {
    const body: Record<string, unknown> = { message: this.message, code: this.code };
    if (this.errors !== undefined) body.errors = this.errors;
    if (this.extraBody !== undefined) Object.assign(body, this.extraBody);
    return body;
  }
}

/**
 * What the sandbox answers for a request it does not model (a route, a method of a modelled route, or a field it
 * cannot honour). Deliberately nothing the service would say: status 501, JSON code -1 (the service's codes are
 * never negative), the header `X-Sandbox-Unmodelled: true` and an `unmodelled` field naming what was asked, so a
 * bot author can never mistake it for the service refusing. Documented in README and src/sandbox/README.md.
 */
export const UNMODELLED = {
  status: 501,
  code: -1,
  header: 'x-sandbox-unmodelled',
  /** The HTTP reason phrase (clients that only keep statusText, like @discordjs/rest on a 5xx, still show it). */
  reason: 'Not Modelled By The Gatehouse Sandbox',
} as const;

export function unmodelled(method: string, path: string, detail?: string): SandboxApiError {
  const what = `${method} ${path}`;
  return new SandboxApiError(
    UNMODELLED.status,
    UNMODELLED.code,
    `The gatehouse sandbox does not model ${detail ?? what}; see "Not modelled" in src/sandbox/README.md`,
    undefined,
    { [UNMODELLED.header]: 'true' },
    { unmodelled: { method, path } },
  );
}

export function invalidFormBody(errors: ErrorTree): SandboxApiError {
  return new SandboxApiError(400, 50035, 'Invalid Form Body', errors);
}

/** One-problem form error at a path. */
export function formError(path: ReadonlyArray<string | number>, code: string, message: string): SandboxApiError {
  const tree = emptyErrorTree();
  addTreeError(tree, path, { code, message });
  return invalidFormBody(tree);
}

/** The service's messages for the codes the sandbox answers with (protocol §2.6). */
export const Errors = {
  unauthorized: () => new SandboxApiError(401, 0, '401: Unauthorized'),
  notFound: () => new SandboxApiError(404, 0, '404: Not Found'),
  methodNotAllowed: () => new SandboxApiError(405, 0, '405: Method Not Allowed'),
  invalidVersion: () => new SandboxApiError(400, 50041, 'Invalid API version'),
  invalidJson: () => new SandboxApiError(400, 50109, 'The request body contains invalid JSON.'),
  unknownChannel: () => new SandboxApiError(404, 10003, 'Unknown Channel'),
  unknownGuild: () => new SandboxApiError(404, 10004, 'Unknown Guild'),
  unknownMember: () => new SandboxApiError(404, 10007, 'Unknown Member'),
  unknownRole: () => new SandboxApiError(404, 10011, 'Unknown Role'),
  unknownMessage: () => new SandboxApiError(404, 10008, 'Unknown Message'),
  unknownUser: () => new SandboxApiError(404, 10013, 'Unknown User'),
  unknownWebhook: () => new SandboxApiError(404, 10015, 'Unknown Webhook'),
  unknownSku: () => new SandboxApiError(404, 10027, 'Unknown SKU'),
  unknownEntitlement: () => new SandboxApiError(404, 10029, 'Unknown Entitlement'),
  unknownInteraction: () => new SandboxApiError(404, 10062, 'Unknown interaction'),
  unknownCommand: () => new SandboxApiError(404, 10063, 'Unknown application command'),
  unknownCommandPermissions: () => new SandboxApiError(404, 10066, 'Unknown application command permissions'),
  botsCannotUse: () => new SandboxApiError(403, 20001, 'Bots cannot use this endpoint'),
  notAuthorizedForApplication: () => new SandboxApiError(403, 20012, 'You are not authorized to perform this action on this application'),
  maxCommands: (limit: number) => new SandboxApiError(400, 30032, `Maximum number of application commands reached (${limit})`),
  maxDailyCreates: (limit: number) => new SandboxApiError(400, 30034, `Max number of daily application command creates has been reached (${limit})`),
  unauthorizedToken: () => new SandboxApiError(401, 40001, 'Unauthorized. Provide a valid token and try again'),
  notConsumable: () => new SandboxApiError(400, 40018, 'Only consumable SKUs can be consumed'),
  notTestEntitlement: () => new SandboxApiError(400, 40019, 'Only test entitlements can be deleted'),
  commandNameExists: () => new SandboxApiError(400, 40041, 'An application command with that name already exists'),
  alreadyAcknowledged: () => new SandboxApiError(400, 40060, 'Interaction has already been acknowledged.'),
  entitlementAlreadyGranted: () => new SandboxApiError(400, 40074, 'Entitlement already granted for this resource'),
  maxFollowups: () => new SandboxApiError(400, 40094, 'This interaction has hit the maximum number of follow up messages'),
  missingAccess: () => new SandboxApiError(403, 50001, 'Missing Access'),
  cannotEditOthersMessage: () => new SandboxApiError(403, 50005, 'Cannot edit a message authored by another user'),
  emptyMessage: () => new SandboxApiError(400, 50006, 'Cannot send an empty message'),
  cannotMessageUser: () => new SandboxApiError(400, 50007, 'Cannot send messages to this user'),
  missingPermissions: () => new SandboxApiError(403, 50013, 'Missing Permissions'),
  wrongChannelType: () => new SandboxApiError(400, 50024, 'Cannot execute action on this channel type'),
  invalidWebhookToken: () => new SandboxApiError(401, 50027, 'Invalid Webhook Token'),
  invalidRecipients: () => new SandboxApiError(400, 50033, 'Invalid Recipient(s)'),
  bannedFromGuild: () => new SandboxApiError(403, 40007, 'The user is banned from this guild.'),
  invalidOAuthToken: () => new SandboxApiError(403, 50025, 'Invalid OAuth2 access token'),
} as const;
