/**
 * Interactions against a running sandbox, as a user would make them: invoke a command, click a button,
 * pick in a select menu, submit a modal. Each prints which sandbox it used and what the bot answered.
 *
 * Exit codes: 0 the bot answered, 1 it did not (or the sandbox refused, as the client would), 2 bad usage.
 */
import type { CliIo } from './io.js';
import { int, list, parseVerb, str, UsageError, type Values, type VerbSpec } from './args.js';
import { cli } from './hint.js';
import { admin, AdminError, findSandbox, TARGET_OPTIONS, type SandboxTarget } from './sandbox-client.js';
import { describeRecord, type AdminRecord } from './sandbox-describe.js';

const WAIT = { type: 'string', value: 'MS', help: 'how long to wait for the bot to answer (default 5000)' } as const;

export const INVOKE: VerbSpec = {
  verb: 'sandbox invoke',
  args: 'NAME [SUB [SUB]] [key:value ...]',
  summary: 'Invoke a command as a user and print what the bot answered.',
  positionals: { min: 1, max: 100 },
  options: {
    guild: { type: 'string', value: 'ID', id: true, help: 'guild to invoke in (default: the first seeded guild)' },
    dm: { type: 'boolean', help: 'invoke in the bot DM instead of a guild' },
    user: { type: 'string', value: 'ID', id: true, help: 'invoking user (default: the guild owner)' },
    channel: { type: 'string', value: 'ID', id: true, help: 'channel (default: the guild\'s text channel)' },
    type: { type: 'string', value: '1|2|3|4', help: 'command type: 2 user, 3 message context menu, 4 entry point' },
    target: { type: 'string', value: 'ID', id: true, help: 'the user or message a context-menu command targets' },
    locale: { type: 'string', value: 'LOCALE', help: 'the user\'s locale, e.g. fr' },
    'user-install': { type: 'boolean', help: 'as a user-installed app' },
    autocomplete: { type: 'string', value: 'OPTION', help: 'send an autocomplete for this option instead' },
    wait: WAIT,
    ...TARGET_OPTIONS,
  },
  notes: [`example: ${cli('sandbox invoke dice roll sides:20')}`],
};

export const CLICK: VerbSpec = {
  verb: 'sandbox click',
  args: 'CUSTOM_ID',
  summary: 'Click a button the bot sent (the newest message with that custom_id, unless --message says which).',
  positionals: { min: 1, max: 1 },
  options: {
    message: { type: 'string', value: 'ID', id: true, help: 'the message the button is on' },
    user: { type: 'string', value: 'ID', id: true, help: 'who clicks (default: the user the message answered)' },
    locale: { type: 'string', value: 'LOCALE', help: 'the user\'s locale' },
    wait: WAIT,
    ...TARGET_OPTIONS,
  },
  notes: [`example: ${cli('sandbox click', 'poll:1234:yes')}`],
};

export const SELECT: VerbSpec = {
  verb: 'sandbox select',
  args: 'CUSTOM_ID [VALUE ...]',
  summary: 'Pick values in a select menu the bot sent: option values, or user, role, mentionable or channel ids.',
  positionals: { min: 1, max: 26 },
  options: CLICK.options,
  notes: [`example: ${cli('sandbox select', 'flavour', 'vanilla', 'mint')}`],
};

export const MODAL: VerbSpec = {
  verb: 'sandbox modal',
  args: '[FIELD:VALUE ...]',
  summary:
    'Submit the modal the bot opened last (or --interaction): text inputs take text, selects values or ids, file uploads file names; repeat a field for several values.',
  positionals: { min: 0, max: 100 },
  options: {
    interaction: { type: 'string', value: 'ID', id: true, help: 'the interaction the bot answered with the modal' },
    'custom-id': { type: 'string', value: 'ID', help: 'the newest modal with this custom_id' },
    locale: { type: 'string', value: 'LOCALE', help: 'the user\'s locale' },
    wait: WAIT,
    ...TARGET_OPTIONS,
  },
  notes: [`example: ${cli('sandbox modal', "'feedback:Great bot'", 'screenshots:a.png', 'screenshots:b.png')}`],
};

function waitOf(values: Values): number {
  return int(values, 'wait', 1, 60_000) ?? 5_000;
}

/** Send, print the record, and map the outcome to an exit code. */
async function deliver(io: CliIo, verb: string, target: SandboxTarget, path: string, body: Record<string, unknown>, heading: (r: AdminRecord) => string): Promise<number> {
  io.out(target.description);
  try {
    const record = await admin<AdminRecord>(target, 'POST', path, { ...body, settle: 800 });
    io.out(heading(record));
    for (const line of describeRecord(record)) io.out(line);
    return record.callbacks.length > 0 ? 0 : 1;
  } catch (err) {
    if (err instanceof AdminError) io.err(`gatehouse ${verb}: ${err.message}`);
    else io.err(`gatehouse ${verb}: cannot reach the sandbox admin API at ${target.adminUrl} (${err instanceof Error ? err.message : String(err)})`);
    return 1;
  }
}

/** Run a verb: parse, find the sandbox, build the request; usage errors found late still exit 2. */
async function runVerb(spec: VerbSpec, args: string[], io: CliIo, build: (p: { values: Values; positionals: string[] }, target: SandboxTarget) => Promise<number>): Promise<number> {
  const parsed = parseVerb(spec, args, io);
  if (typeof parsed === 'number') return parsed;
  try {
    waitOf(parsed.values);
    const target = findSandbox(parsed.values, io, spec.verb);
    if (target === null) return 1;
    return await build(parsed, target);
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`gatehouse ${spec.verb}: ${err.message}`);
      return 2;
    }
    throw err;
  }
}

export function invoke(args: string[], io: CliIo): Promise<number> {
  return runVerb(INVOKE, args, io, async ({ values, positionals }, target) => {
    const [name, ...rest] = positionals as [string, ...string[]];
    const subcommand: string[] = [];
    const options = new Map<string, string>();
    for (const arg of rest) {
      const colon = arg.indexOf(':');
      if (colon > 0) options.set(arg.slice(0, colon), arg.slice(colon + 1));
      else if (options.size === 0) subcommand.push(arg);
      else throw new UsageError(`'${arg}' is neither key:value nor a subcommand (subcommands come before options)`);
    }
    let guildId = str(values, 'guild');
    if (guildId === undefined && values.dm !== true) {
      try {
        guildId = (await admin<Array<{ id: string }>>(target, 'GET', '/guilds'))[0]?.id;
      } catch (err) {
        io.out(target.description);
        io.err(`gatehouse sandbox invoke: cannot reach the sandbox admin API at ${target.adminUrl} (${err instanceof Error ? err.message : String(err)})`);
        return 1;
      }
    }
    const type = int(values, 'type', 1, 4);
    const body: Record<string, unknown> = { name, wait: waitOf(values) };
    if (guildId !== undefined) body.guildId = guildId;
    if (subcommand.length > 0) body.subcommand = subcommand;
    if (options.size > 0) body.options = Object.fromEntries(options);
    if (type !== undefined) body.type = type;
    for (const [flag, key] of [['user', 'userId'], ['channel', 'channelId'], ['target', 'targetId'], ['locale', 'locale']] as const) {
      const v = str(values, flag);
      if (v !== undefined) body[key] = v;
    }
    if (values['user-install'] === true) body.integration = 'user';
    const focused = str(values, 'autocomplete');
    if (focused !== undefined) body.focused = focused;
    const shown = [`/${name}`, ...subcommand, ...[...options].map(([k, v]) => `${k}:${v}`)].join(' ');
    const where = guildId !== undefined ? `guild ${guildId}` : 'the bot DM';
    return deliver(io, 'sandbox invoke', target, focused !== undefined ? '/autocomplete' : '/invoke', body, (r) => `${shown}  ->  interaction ${r.id} in ${where}`);
  });
}

function componentVerb(spec: VerbSpec, withValues: boolean) {
  return (args: string[], io: CliIo): Promise<number> =>
    runVerb(spec, args, io, async ({ values, positionals }, target) => {
      const [customId, ...picked] = positionals as [string, ...string[]];
      const body: Record<string, unknown> = { customId, wait: waitOf(values) };
      if (withValues) body.values = picked;
      for (const [flag, key] of [['message', 'messageId'], ['user', 'userId'], ['locale', 'locale']] as const) {
        const v = str(values, flag);
        if (v !== undefined) body[key] = v;
      }
      const what = withValues ? `select ${customId} ${picked.join(' ')}`.trimEnd() : `click ${customId}`;
      return deliver(io, spec.verb, target, '/component', body, (r) => {
        const message = (r.payload.message as { id?: string } | undefined)?.id;
        return `${what}  ->  interaction ${r.id}${message !== undefined ? ` on message ${message}` : ''}`;
      });
    });
}

export const click = componentVerb(CLICK, false);
export const select = componentVerb(SELECT, true);

export function modal(args: string[], io: CliIo): Promise<number> {
  return runVerb(MODAL, args, io, async ({ values, positionals }, target) => {
    // Repeated fields collect into lists (several files, several picked values).
    const fields = new Map<string, string[]>();
    for (const arg of positionals) {
      const colon = arg.indexOf(':');
      if (colon <= 0) throw new UsageError(`'${arg}' is not FIELD:VALUE`);
      const key = arg.slice(0, colon);
      fields.set(key, [...(fields.get(key) ?? []), arg.slice(colon + 1)]);
    }
    const body: Record<string, unknown> = {
      values: Object.fromEntries([...fields].map(([k, v]) => [k, v.length === 1 ? v[0]! : v])),
      wait: waitOf(values),
    };
    const interactionId = str(values, 'interaction');
    if (interactionId !== undefined) body.interactionId = interactionId;
    const customId = str(values, 'custom-id');
    if (customId !== undefined) body.customId = customId;
    for (const v of list(values, 'locale')) body.locale = v;
    return deliver(io, MODAL.verb, target, '/modal', body, (r) => `modal ${String((r.payload.data as { custom_id?: string }).custom_id)} submitted  ->  interaction ${r.id}`);
  });
}
