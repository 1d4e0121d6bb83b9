/**
 * `gatehouse sandbox`: run the local sandbox alone, or invoke a command against a running one.
 *
 *   gatehouse sandbox [--port N] [--host 127.0.0.1|::1] [--guilds N] [--members N] [--seed N]
 *                     [--activities | --no-activities] [--state-file PATH]
 *   gatehouse sandbox invoke NAME [SUB [SUB]] [key:value ...] [--guild ID | --dm] [--user ID] [--channel ID]
 *                     [--type 1|2|3|4] [--target ID] [--locale L] [--user-install] [--autocomplete OPTION]
 *                     [--wait MS] [--url ADMIN_URL] [--state-file PATH]
 *   gatehouse sandbox messages [--channel ID] [--guild ID] [--url ADMIN_URL] [--state-file PATH]
 *
 * The running sandbox writes a state file (see src/sandbox/statefile.ts) that `invoke` reads when --url is
 * not given. `invoke` defaults to the first seeded guild (use --dm for the bot DM) and to the guild owner.
 */
import type { CliIo } from '../cli.js';
import { loadConfigFor } from './config.js';
import { createLogger } from '../runtime/logger.js';
import { createSandbox } from '../sandbox/index.js';
import { WEBHOOKS_USAGE, run as runWebhooks } from './sandbox-webhooks.js';
import { defaultStateFilePath, processAlive, readStateFile, removeStateFile, writeStateFile, stateOf } from '../sandbox/statefile.js';
import { dict } from '../util/dict.js';

const USAGE = `usage: gatehouse sandbox [--port N] [--host 127.0.0.1|::1] [--guilds N] [--members N] [--seed N]
                         [--activities | --no-activities] [--state-file PATH]
       gatehouse sandbox invoke NAME [SUB [SUB]] [key:value ...] [--guild ID | --dm] [--user ID]
                         [--channel ID] [--type N] [--target ID] [--locale L] [--user-install]
                         [--autocomplete OPTION] [--wait MS] [--url ADMIN_URL] [--state-file PATH]
       gatehouse sandbox messages [--channel ID] [--guild ID] [--url ADMIN_URL] [--state-file PATH]
${WEBHOOKS_USAGE}`;

class UsageError extends Error {}

interface Parsed {
  positional: string[];
  flags: Map<string, string | true>;
}

/** Flags that take a value; the others are switches. */
const VALUE_FLAGS = new Set(['port', 'host', 'guilds', 'members', 'seed', 'state-file', 'guild', 'user', 'channel', 'type', 'target', 'locale', 'autocomplete', 'wait', 'url']);
const SWITCHES = new Set(['activities', 'no-activities', 'dm', 'user-install', 'help']);

function parse(args: string[]): Parsed {
  const positional: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '-h') {
      flags.set('help', true);
      continue;
    }
    if (!a.startsWith('--')) {
      positional.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const name = a.slice(2, eq === -1 ? undefined : eq);
    if (VALUE_FLAGS.has(name)) {
      const value = eq === -1 ? args[++i] : a.slice(eq + 1);
      if (value === undefined) throw new UsageError(`--${name} needs a value`);
      flags.set(name, value);
    } else if (SWITCHES.has(name) && eq === -1) {
      flags.set(name, true);
    } else {
      throw new UsageError(`unknown flag --${name}`);
    }
  }
  return { positional, flags };
}

function intFlag(p: Parsed, name: string, min: number): number | undefined {
  const v = p.flags.get(name);
  if (v === undefined) return undefined;
  const n = Number(v);
  if (v === true || !Number.isInteger(n) || n < min) throw new UsageError(`--${name} must be an integer >= ${min}; got ${String(v)}`);
  return n;
}

function strFlag(p: Parsed, name: string): string | undefined {
  const v = p.flags.get(name);
  return typeof v === 'string' ? v : undefined;
}

export async function run(args: string[], io: CliIo): Promise<number> {
  if (args[0] === 'invoke') return invoke(args.slice(1), io);
  if (args[0] === 'messages') return messages(args.slice(1), io);
  if (args[0] === 'webhooks' || args[0] === 'app') return runWebhooks(args, io);
  const stop = new AbortController();
  const onSignal = (): void => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    return await runSandbox(args, io, stop.signal);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/** Run the sandbox until `stop` aborts. Exported for tests; `run` wires it to SIGINT / SIGTERM. */
export async function runSandbox(args: string[], io: CliIo, stop: AbortSignal): Promise<number> {
  let p: Parsed;
  try {
    p = parse(args);
    if (p.flags.has('help')) {
      io.out(USAGE);
      return 0;
    }
    if (p.positional.length > 0) throw new UsageError(`unexpected argument '${p.positional[0]!}'`);
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`gatehouse sandbox: ${err.message}\n${USAGE}`);
      return 2;
    }
    throw err;
  }

  const config = loadConfigFor('sandbox', io);
  if (config === null) return 2;
  let host: '127.0.0.1' | '::1';
  let port: number;
  let guilds: number;
  let members: number;
  let seed: number | undefined;
  try {
    const h = strFlag(p, 'host') ?? '127.0.0.1';
    if (h !== '127.0.0.1' && h !== '::1') throw new UsageError('--host must be 127.0.0.1 or ::1 (the sandbox listens on loopback only)');
    host = h;
    port = intFlag(p, 'port', 0) ?? config.sandbox.port;
    if (port > 65_535) throw new UsageError('--port must be at most 65535');
    guilds = intFlag(p, 'guilds', 0) ?? config.sandbox.guilds;
    members = intFlag(p, 'members', 0) ?? config.sandbox.membersPerGuild;
    seed = intFlag(p, 'seed', 0);
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`gatehouse sandbox: ${err.message}\n${USAGE}`);
      return 2;
    }
    throw err;
  }
  const activities = p.flags.has('no-activities') ? false : p.flags.has('activities') ? true : config.sandbox.activities;
  const statePath = strFlag(p, 'state-file') ?? defaultStateFilePath();
  const logger = createLogger({ level: config.log.level, ...(config.log.pretty !== undefined ? { pretty: config.log.pretty } : {}) });

  const sandbox = await createSandbox({
    host,
    port,
    activities,
    seed: { guilds, membersPerGuild: members, ...(seed !== undefined ? { seed } : {}) },
    logger,
  });
  writeStateFile(statePath, stateOf(sandbox));
  io.out('gatehouse sandbox is running (loopback only)');
  io.out(`  REST URL:        ${sandbox.restUrl}`);
  io.out(`  Gateway URL:     ${sandbox.gatewayUrl}`);
  io.out(`  Admin URL:       ${sandbox.adminUrl}`);
  io.out(`  Application id:  ${sandbox.applicationId}`);
  io.out(`  Bot token:       ${sandbox.botToken}`);
  io.out(`  Client secret:   ${sandbox.clientSecret}`);
  io.out(`  Public key:      ${sandbox.webhooks.publicKey}  (verify_key; DISCORD_PUBLIC_KEY for a bot on transport http/both)`);
  io.out(`  Guilds:          ${guilds} x ${members} members (+ the bot)${activities ? ', Activities on' : ''}`);
  io.out(`  State file:      ${statePath}`);
  io.out(`Point a bot at it: DISCORD_API_URL=${sandbox.restUrl} DISCORD_TOKEN=<the bot token above>`);
  io.out('Invoke a command: gatehouse sandbox invoke NAME [key:value ...]    Stop: Ctrl+C');

  await new Promise<void>((resolve) => {
    if (stop.aborted) resolve();
    else stop.addEventListener('abort', () => resolve(), { once: true });
  });
  io.out('gatehouse sandbox: stopping');
  await sandbox.close();
  removeStateFile(statePath);
  return 0;
}

// ---- invoke -------------------------------------------------------------------------------------------

interface AdminRecord {
  id: string;
  type: number;
  payload: Record<string, unknown>;
  callbacks: Array<{ type: number; data?: Record<string, unknown> }>;
  original: Record<string, unknown> | null;
  followups: Array<Record<string, unknown>>;
}

const CALLBACK_NAMES: Record<number, string> = {
  1: 'PONG',
  4: 'CHANNEL_MESSAGE_WITH_SOURCE',
  5: 'DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE',
  6: 'DEFERRED_UPDATE_MESSAGE',
  7: 'UPDATE_MESSAGE',
  8: 'APPLICATION_COMMAND_AUTOCOMPLETE_RESULT',
  9: 'MODAL',
  10: 'PREMIUM_REQUIRED',
  12: 'LAUNCH_ACTIVITY',
};

async function adminCall(base: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text.length > 0 ? (JSON.parse(text) as unknown) : undefined };
}

function describeMessage(msg: Record<string, unknown>, indent: string): string[] {
  const lines: string[] = [];
  const flags = typeof msg.flags === 'number' ? msg.flags : 0;
  const tags = [(flags & 64) !== 0 ? 'ephemeral' : null, (flags & 128) !== 0 ? 'thinking…' : null].filter(Boolean);
  const content = typeof msg.content === 'string' ? msg.content : '';
  if (content.length > 0) for (const line of content.split('\n')) lines.push(`${indent}${line}`);
  for (const e of Array.isArray(msg.embeds) ? (msg.embeds as Array<Record<string, unknown>>) : []) {
    const parts = [e.title, e.description].filter((x) => typeof x === 'string' && x.length > 0);
    lines.push(`${indent}[embed] ${parts.join(' — ') || '(no text)'}`);
  }
  const components = Array.isArray(msg.components) ? msg.components.length : 0;
  if (components > 0) lines.push(`${indent}[${components} component row(s)]`);
  if (tags.length > 0) lines.push(`${indent}(${tags.join(', ')})`);
  if (lines.length === 0) lines.push(`${indent}(empty)`);
  return lines;
}

export function describeRecord(r: AdminRecord): string[] {
  const out: string[] = [];
  const first = r.callbacks[0];
  if (!first) return ['no response'];
  out.push(`response: ${CALLBACK_NAMES[first.type] ?? 'type'} (${first.type})`);
  const data = first.data ?? {};
  if (first.type === 8) {
    const choices = Array.isArray(data.choices) ? (data.choices as Array<{ name: unknown; value: unknown }>) : [];
    out.push(`  choices: ${choices.map((c) => `${String(c.name)} = ${JSON.stringify(c.value)}`).join(', ') || '(none)'}`);
  } else if (first.type === 9) {
    out.push(`  modal: ${String(data.title)} (custom_id ${String(data.custom_id)})`);
  } else if (first.type === 4 || first.type === 7) {
    out.push(...describeMessage(r.original ?? data, '  '));
  }
  if (first.type === 5 && r.original) {
    out.push('original response:');
    out.push(...describeMessage(r.original, '  '));
  }
  r.followups.forEach((f, i) => {
    out.push(`follow-up ${i + 1}:`);
    out.push(...describeMessage(f, '  '));
  });
  return out;
}

async function invoke(args: string[], io: CliIo): Promise<number> {
  let p: Parsed;
  try {
    p = parse(args);
    if (p.flags.has('help')) {
      io.out(USAGE);
      return 0;
    }
    if (p.positional.length === 0) throw new UsageError('name the command to invoke');
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`gatehouse sandbox invoke: ${err.message}\n${USAGE}`);
      return 2;
    }
    throw err;
  }
  const [name, ...rest] = p.positional as [string, ...string[]];
  const subcommand: string[] = [];
  // Option names are typed by the user and may be anything a command allows, `__proto__` included.
  const options = dict<string>();
  for (const arg of rest) {
    const colon = arg.indexOf(':');
    if (colon > 0) options[arg.slice(0, colon)] = arg.slice(colon + 1);
    else if (Object.keys(options).length === 0) subcommand.push(arg);
    else {
      io.err(`gatehouse sandbox invoke: '${arg}' is neither key:value nor a subcommand (subcommands come before options)`);
      return 2;
    }
  }

  let base = strFlag(p, 'url');
  if (base === undefined) {
    const statePath = strFlag(p, 'state-file') ?? defaultStateFilePath();
    const state = readStateFile(statePath);
    if (!state || !processAlive(state.pid)) {
      io.err(`gatehouse sandbox invoke: no running sandbox found (state file ${statePath}); start one with 'gatehouse sandbox' or pass --url`);
      return 1;
    }
    base = state.adminUrl;
  }
  base = base.replace(/\/+$/, '');

  try {
    let guildId = strFlag(p, 'guild');
    if (guildId === undefined && !p.flags.has('dm')) {
      const guilds = await adminCall(base, 'GET', '/guilds');
      const list = guilds.body as Array<{ id: string }>;
      guildId = list[0]?.id;
    }
    const wait = intFlag(p, 'wait', 1) ?? 5_000;
    const type = intFlag(p, 'type', 1);
    const body: Record<string, unknown> = { name, wait, settle: 800 };
    if (guildId !== undefined) body.guildId = guildId;
    if (subcommand.length > 0) body.subcommand = subcommand;
    if (Object.keys(options).length > 0) body.options = options;
    if (type !== undefined) body.type = type;
    for (const [flag, key] of [['user', 'userId'], ['channel', 'channelId'], ['target', 'targetId'], ['locale', 'locale']] as const) {
      const v = strFlag(p, flag);
      if (v !== undefined) body[key] = v;
    }
    if (p.flags.has('user-install')) body.integration = 'user';
    const focused = strFlag(p, 'autocomplete');
    if (focused !== undefined) body.focused = focused;

    const r = await adminCall(base, 'POST', focused !== undefined ? '/autocomplete' : '/invoke', body);
    if (r.status !== 201) {
      const e = r.body as { error?: string; message?: string } | undefined;
      io.err(`gatehouse sandbox invoke: ${e?.message ?? `admin API answered ${r.status}`}`);
      return 1;
    }
    const record = r.body as AdminRecord;
    const shown = [`/${name}`, ...subcommand, ...Object.entries(options).map(([k, v]) => `${k}:${v}`)].join(' ');
    const where = guildId !== undefined ? `guild ${guildId}` : 'the bot DM';
    io.out(`${shown}  ->  interaction ${record.id} in ${where}`);
    for (const line of describeRecord(record)) io.out(line);
    return record.callbacks.length > 0 ? 0 : 1;
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`gatehouse sandbox invoke: ${err.message}\n${USAGE}`);
      return 2;
    }
    io.err(`gatehouse sandbox invoke: cannot reach the sandbox admin API at ${base} (${err instanceof Error ? err.message : String(err)})`);
    return 1;
  }
}

// ---- messages -----------------------------------------------------------------------------------------

interface AdminMessageRecord {
  id: string;
  channelId: string;
  guildId: string | null;
  recipientId: string | null;
  message: Record<string, unknown>;
  createdAt: number;
  editedAt: number | null;
  deletedAt: number | null;
  edits: number;
}

/** `gatehouse sandbox messages`: what the bot sent in channels and DMs (edits and deletes shown), by channel. */
async function messages(args: string[], io: CliIo): Promise<number> {
  let p: Parsed;
  try {
    p = parse(args);
    if (p.flags.has('help')) {
      io.out(USAGE);
      return 0;
    }
    if (p.positional.length > 0) throw new UsageError(`unexpected argument '${p.positional[0]!}'`);
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`gatehouse sandbox messages: ${err.message}\n${USAGE}`);
      return 2;
    }
    throw err;
  }
  let base = strFlag(p, 'url');
  if (base === undefined) {
    const statePath = strFlag(p, 'state-file') ?? defaultStateFilePath();
    const state = readStateFile(statePath);
    if (!state || !processAlive(state.pid)) {
      io.err(`gatehouse sandbox messages: no running sandbox found (state file ${statePath}); start one with 'gatehouse sandbox' or pass --url`);
      return 1;
    }
    base = state.adminUrl;
  }
  base = base.replace(/\/+$/, '');
  const query = new URLSearchParams();
  const channel = strFlag(p, 'channel');
  const guild = strFlag(p, 'guild');
  if (channel !== undefined) query.set('channel_id', channel);
  if (guild !== undefined) query.set('guild_id', guild);
  let r: { status: number; body: unknown };
  try {
    r = await adminCall(base, 'GET', `/messages${query.size > 0 ? `?${query.toString()}` : ''}`);
  } catch (err) {
    io.err(`gatehouse sandbox messages: cannot reach the sandbox admin API at ${base} (${err instanceof Error ? err.message : String(err)})`);
    return 1;
  }
  if (r.status !== 200) {
    io.err(`gatehouse sandbox messages: admin API answered ${r.status}`);
    return 1;
  }
  const records = r.body as AdminMessageRecord[];
  if (records.length === 0) {
    io.out('no messages');
    return 0;
  }
  const byChannel = new Map<string, AdminMessageRecord[]>();
  for (const rec of records) {
    let list = byChannel.get(rec.channelId);
    if (list === undefined) byChannel.set(rec.channelId, (list = []));
    list.push(rec);
  }
  for (const list of byChannel.values()) {
    const first = list[0]!;
    io.out(first.guildId !== null ? `channel ${first.channelId} in guild ${first.guildId}:` : `DM ${first.channelId} with user ${first.recipientId ?? '?'}:`);
    for (const rec of list) {
      const state = [rec.edits > 0 ? `edited ${rec.edits}x` : null, rec.deletedAt !== null ? 'deleted' : null].filter(Boolean);
      io.out(`  ${new Date(rec.createdAt).toISOString()}  message ${rec.id}${state.length > 0 ? ` (${state.join(', ')})` : ''}`);
      for (const line of describeMessage(rec.message, '    ')) io.out(line);
    }
  }
  return 0;
}
