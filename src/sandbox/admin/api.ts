/**
 * The admin HTTP API under /_sandbox (loopback only, no auth): the programmatic API over JSON, for the CLI
 * (`gatehouse sandbox invoke`) and for tools in other languages. Errors: `{ "error": CODE, "message": ... }`.
 * Its entries are route tables routed by rest/router.ts, as the REST surface's are:
 *
 *   ./directory.ts      /_sandbox (info), counters, guilds and their members
 *   ./state.ts          SKUs, entitlements, commands, messages the bot sent, OAuth2 tokens and codes
 *   ./interactions.ts   invoke, autocomplete, component, modal, REST requests answered, interaction records
 *   ./faults.ts         gateway faults per shard, forced 429s, the recommended shard count
 *   ./channels.ts       channels, threads, overwrites, roles, reactions and poll votes
 *   ../delivery/admin.ts  outgoing webhooks (/_sandbox/webhooks/*, /_sandbox/app/*)
 *
 * Path segments are matched as sent (not percent-decoded). A path it does not serve answers 404 NOT_FOUND, or
 * UNKNOWN_GUILD when it is under /_sandbox/guilds/ and names no guild.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SandboxCore } from '../core.js';
import { webhookAdminRoutes } from '../delivery/admin.js';
import { SandboxError, type SandboxErrorCode } from '../errors.js';
import { readRaw, refuseRestOfBody } from '../rest/body.js';
import { Router } from '../rest/router.js';
import type { AdminHandler } from '../server.js';
import { ChannelVerbs } from '../state/channel-verbs.js';
import { channelAdminRoutes } from './channels.js';
import { directoryRoutes, guildOf } from './directory.js';
import { faultRoutes } from './faults.js';
import { bad } from './fields.js';
import { interactionRoutes } from './interactions.js';
import { stateRoutes } from './state.js';
import type { AdminReply, AdminRoute } from './types.js';

const STATUS: Record<SandboxErrorCode, number> = {
  INVALID: 400,
  INVALID_OPTION: 400,
  CONFLICT: 409,
  FORBIDDEN: 403,
  NO_SHARD: 409,
  UNKNOWN_GUILD: 404,
  UNKNOWN_MEMBER: 404,
  UNKNOWN_USER: 404,
  UNKNOWN_ROLE: 404,
  UNKNOWN_CHANNEL: 404,
  UNKNOWN_SKU: 404,
  UNKNOWN_ENTITLEMENT: 404,
  UNKNOWN_COMMAND: 404,
  UNKNOWN_INTERACTION: 404,
  PAYLOAD_TOO_LARGE: 413,
};

/** Control requests are small JSON documents; an invocation with every option set is a few KiB. */
export const MAX_ADMIN_BODY_BYTES = 1024 * 1024;

export class AdminApi implements AdminHandler {
  private readonly router = new Router<AdminRoute>();

  constructor(private readonly core: SandboxCore) {
    this.router.add(webhookAdminRoutes(core));
    this.router.add(channelAdminRoutes(new ChannelVerbs(core.store)));
    this.router.add(directoryRoutes(core));
    this.router.add(stateRoutes(core));
    this.router.add(interactionRoutes(core));
    this.router.add(faultRoutes(core));
  }

  async handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    let result: AdminReply;
    try {
      const body = await readJsonBody(req);
      result = await this.route((req.method ?? 'GET').toUpperCase(), url, body);
    } catch (err) {
      if (err instanceof SandboxError) result = { status: STATUS[err.code], body: { error: err.code, message: err.message } };
      else {
        this.core.logger.error({ err }, 'sandbox admin request failed');
        result = { status: 500, body: { error: 'INTERNAL', message: err instanceof Error ? err.message : String(err) } };
      }
    }
    const headers: Record<string, string> = {};
    refuseRestOfBody(req, headers);
    if (result.body === undefined) {
      res.writeHead(result.status, headers);
      res.end();
      return;
    }
    const json = JSON.stringify(result.body);
    res.writeHead(result.status, { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(json)) });
    res.end(json);
  }

  private async route(method: string, url: URL, body: unknown): Promise<AdminReply> {
    // The segments after the /_sandbox prefix, as sent.
    const parts = url.pathname.split('/').filter((s) => s.length > 0).slice(1);
    const match = this.router.matchParts(method, parts);
    if (match.kind === 'found') {
      const reply = await match.route.handler({ params: match.params, query: url.searchParams, body });
      if (reply !== null) return reply;
    }
    // Any path under guilds/ names its guild first: an unknown one is what is wrong with it.
    if (parts[0] === 'guilds') guildOf(this.core.store, parts[1] ?? '');
    return { status: 404, body: { error: 'NOT_FOUND', message: `no admin endpoint ${method} ${url.pathname}` } };
  }
}

/** The body as JSON (undefined when empty), read up to the admin API's limit. */
async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const raw = await readRaw(
    req,
    MAX_ADMIN_BODY_BYTES,
    () => new SandboxError('PAYLOAD_TOO_LARGE', `the request body is larger than ${MAX_ADMIN_BODY_BYTES} bytes (1 MiB), the limit of the admin API`),
  );
  if (raw.length === 0) return undefined;
  try {
    return JSON.parse(raw.toString('utf8')) as unknown;
  } catch {
    throw bad('the body is not valid JSON');
  }
}
