/**
 * Whether an INTERACTION_CREATE payload has the shape the router and the handler contexts rely on (protocol
 * §14.1-§14.3, §S2.8). The gateway delivers whatever the peer sent; a payload that is not what the protocol
 * says is reported with the path of the first field that is wrong and is not routed, so that no handler sees
 * an option value of another type than its definition promises, or a context without a user.
 */
import { ApplicationCommandOptionType, ApplicationCommandType, InteractionType } from 'discord-api-types/v10';
import { valueFits } from './options.js';
import { isSnowflake } from '../api/snowflake.js';

export interface ShapeProblem {
  /** Field path inside the payload: `data.options[0].value`. */
  path: string;
  reason: string;
}

type Obj = Record<string, unknown>;

/** command > group > subcommand > value options (protocol §S2.5). */
const MAX_OPTION_DEPTH = 3;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function kind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (v === undefined) return 'nothing';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

function problem(path: string, reason: string): ShapeProblem {
  return { path, reason };
}

function snowflake(o: Obj, field: string, at: string): ShapeProblem | null {
  const v = o[field];
  if (isSnowflake(v)) return null;
  return problem(`${at}${field}`, `expected a snowflake string, got ${kind(v)}`);
}

function str(o: Obj, field: string, at: string): ShapeProblem | null {
  const v = o[field];
  return typeof v === 'string' ? null : problem(`${at}${field}`, `expected a string, got ${kind(v)}`);
}

function int(o: Obj, field: string, at: string): ShapeProblem | null {
  const v = o[field];
  return typeof v === 'number' && Number.isInteger(v) ? null : problem(`${at}${field}`, `expected an integer, got ${kind(v)}`);
}

function optionalObject(o: Obj, field: string, at: string): ShapeProblem | null {
  const v = o[field];
  return v === undefined || isObj(v) ? null : problem(`${at}${field}`, `expected an object, got ${kind(v)}`);
}

const VALUE_TYPE_NAMES = new Map<number, string>([
  [ApplicationCommandOptionType.String, 'a string (STRING)'],
  [ApplicationCommandOptionType.Integer, 'a number (INTEGER)'],
  [ApplicationCommandOptionType.Boolean, 'a boolean (BOOLEAN)'],
  [ApplicationCommandOptionType.User, 'an id string (USER)'],
  [ApplicationCommandOptionType.Channel, 'an id string (CHANNEL)'],
  [ApplicationCommandOptionType.Role, 'an id string (ROLE)'],
  [ApplicationCommandOptionType.Mentionable, 'an id string (MENTIONABLE)'],
  [ApplicationCommandOptionType.Number, 'a number (NUMBER)'],
  [ApplicationCommandOptionType.Attachment, 'an id string (ATTACHMENT)'],
]);

function options(list: unknown, at: string, depth: number): ShapeProblem | null {
  if (list === undefined) return null;
  if (!Array.isArray(list)) return problem(at, `expected a list of options, got ${kind(list)}`);
  if (depth > MAX_OPTION_DEPTH) return problem(at, 'options nested deeper than command > group > subcommand');
  for (let i = 0; i < list.length; i++) {
    const o: unknown = list[i];
    const here = `${at}[${i}]`;
    if (!isObj(o)) return problem(here, `expected an option object, got ${kind(o)}`);
    const bad = str(o, 'name', `${here}.`) ?? int(o, 'type', `${here}.`);
    if (bad !== null) return bad;
    const type = o.type as number;
    if (type === ApplicationCommandOptionType.Subcommand || type === ApplicationCommandOptionType.SubcommandGroup) {
      const inner = options(o.options, `${here}.options`, depth + 1);
      if (inner !== null) return inner;
      continue;
    }
    const expected = VALUE_TYPE_NAMES.get(type);
    if (expected === undefined) return problem(`${here}.type`, `${type} is not an option type that carries a value`);
    if (o.focused !== undefined && typeof o.focused !== 'boolean') {
      return problem(`${here}.focused`, `expected a boolean, got ${kind(o.focused)}`);
    }
    if (!valueFits(type, o.value, o.focused === true)) {
      const want = o.focused === true ? 'text or a number (the focused option)' : expected;
      return problem(`${here}.value`, `expected ${want}, got ${kind(o.value)}`);
    }
  }
  return null;
}

function resolvedMaps(v: unknown, at: string): ShapeProblem | null {
  if (v === undefined) return null;
  if (!isObj(v)) return problem(at, `expected an object, got ${kind(v)}`);
  for (const field of ['users', 'members', 'roles', 'channels', 'messages', 'attachments']) {
    const bad = optionalObject(v, field, `${at}.`);
    if (bad !== null) return bad;
  }
  return null;
}

/** The user behind the interaction: `member.user` in guilds, `user` in DMs (protocol §14.1). */
function invoker(d: Obj): ShapeProblem | null {
  if (d.member !== undefined) {
    if (!isObj(d.member)) return problem('member', `expected an object, got ${kind(d.member)}`);
    if (!isObj(d.member.user)) return problem('member.user', `expected a user object, got ${kind(d.member.user)}`);
    return snowflake(d.member.user, 'id', 'member.user.');
  }
  if (!isObj(d.user)) return problem('user', `expected a user object (or member), got ${kind(d.user)}`);
  return snowflake(d.user, 'id', 'user.');
}

/**
 * The first field of an INTERACTION_CREATE payload that is not what the protocol says, for the interaction
 * types the runtime answers; null when the payload can be routed. Types it does not know are left alone.
 */
export function interactionProblem(d: unknown): ShapeProblem | null {
  if (!isObj(d)) return problem('(payload)', `expected an object, got ${kind(d)}`);
  const envelope =
    snowflake(d, 'id', '') ?? snowflake(d, 'application_id', '') ?? int(d, 'type', '') ?? str(d, 'token', '');
  if (envelope !== null) return envelope;
  if (d.token === '') return problem('token', 'expected a non-empty string');
  const type = d.type as number;
  const routed =
    type === InteractionType.ApplicationCommand ||
    type === InteractionType.ApplicationCommandAutocomplete ||
    type === InteractionType.MessageComponent ||
    type === InteractionType.ModalSubmit;
  if (!routed) return null;
  const who = invoker(d);
  if (who !== null) return who;
  if (d.guild_id !== undefined) {
    const bad = snowflake(d, 'guild_id', '');
    if (bad !== null) return bad;
  }
  const data = d.data;
  if (!isObj(data)) return problem('data', `expected an object, got ${kind(data)}`);
  if (type === InteractionType.MessageComponent || type === InteractionType.ModalSubmit) {
    return str(data, 'custom_id', 'data.');
  }
  const head = snowflake(data, 'id', 'data.') ?? str(data, 'name', 'data.') ?? int(data, 'type', 'data.');
  if (head !== null) return head;
  if (data.guild_id !== undefined) {
    const bad = snowflake(data, 'guild_id', 'data.');
    if (bad !== null) return bad;
  }
  const opts = options(data.options, 'data.options', 1);
  if (opts !== null) return opts;
  const res = resolvedMaps(data.resolved, 'data.resolved');
  if (res !== null) return res;
  // Context menus name their target (protocol §14.3).
  if ((data.type === ApplicationCommandType.User || data.type === ApplicationCommandType.Message) && type === InteractionType.ApplicationCommand) {
    return snowflake(data, 'target_id', 'data.');
  }
  return null;
}
