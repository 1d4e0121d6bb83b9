/** What the expression and event tests share: a sandbox with one guild, a RestClient on it, a gateway session. */
import { expect } from 'vitest';
import { ApiError, RestClient } from '../../src/rest/index.js';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { identified, type RawGatewayClient } from './helpers.js';

const sandboxes: Sandbox[] = [];
const clients: RawGatewayClient[] = [];
const rests: RestClient[] = [];

/** Closes what the test opened (call from afterEach). */
export async function cleanup(): Promise<void> {
  for (const r of rests.splice(0)) r.close();
  for (const c of clients.splice(0)) c.terminate();
  for (const sb of sandboxes.splice(0)) await sb.close();
}

/** A sandbox with one guild; `admin` gives the bot the seeded Admin role besides its own. */
export async function start(opts: { admin?: boolean; fast?: boolean } = {}) {
  const rest = opts.fast === true ? { buckets: { 'emojis.edit': { limit: 1000, windowMs: 1000 }, 'stickers.edit': { limit: 1000, windowMs: 1000 }, 'events.edit': { limit: 1000, windowMs: 1000 }, 'voice-states': { limit: 1000, windowMs: 1000 } } } : {};
  const sb = await createSandbox({ seed: { guilds: 1, membersPerGuild: 6 }, gateway: { identifyWindowMs: 0 }, rest });
  sandboxes.push(sb);
  const g = sb.state.guildIds[0]!;
  const roles = sb.state.roleIds(g);
  const botRole = roles.at(-1)!;
  const admin = roles.at(-2)!;
  if (opts.admin !== false) sb.state.updateMember(g, sb.applicationId, { roles: [botRole, admin] });
  const client = new RestClient({ baseUrl: sb.restUrl, token: sb.botToken, retries: 0 });
  rests.push(client);
  return { sb, rest: client, g, roles, botRole, admin, channel: sb.state.channelIds(g)[0]!, voice: sb.state.channelIds(g)[2]! };
}

export async function connect(sb: Sandbox, intents: number): Promise<RawGatewayClient> {
  const r = await identified(sb.gatewayUrl, sb.botToken, { intents });
  clients.push(r.client);
  return r.client;
}

/** The ApiError a call rejects with. */
export async function refusal(p: Promise<unknown>): Promise<ApiError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ApiError);
  return e as ApiError;
}

