import {
  ApplicationCommandOptionType,
  type APIApplicationCommandInteractionDataOption,
  type APIAttachment,
  type APIInteractionDataResolved,
  type APIInteractionDataResolvedChannel,
  type APIInteractionDataResolvedGuildMember,
  type APIRole,
  type APIUser,
} from 'discord-api-types/v10';
import { dict, own } from '../util/dict.js';

/** A USER option (or the user side of a MENTIONABLE one): the user, and the member when invoked in a guild. */
export interface ResolvedUser {
  readonly kind: 'user';
  readonly id: string;
  readonly user: APIUser | undefined;
  readonly member: APIInteractionDataResolvedGuildMember | undefined;
}

export interface ResolvedRole {
  readonly kind: 'role';
  readonly id: string;
  readonly role: APIRole | undefined;
}

export interface ResolvedChannel {
  readonly kind: 'channel';
  readonly id: string;
  readonly channel: APIInteractionDataResolvedChannel | undefined;
}

export interface ResolvedAttachment {
  readonly kind: 'attachment';
  readonly id: string;
  readonly attachment: APIAttachment | undefined;
}

export type OptionValue =
  | string
  | number
  | boolean
  | ResolvedUser
  | ResolvedRole
  | ResolvedChannel
  | ResolvedAttachment;

/** What an option type yields in `ctx.options` (the mapping typed definitions use). */
export interface OptionValueByType {
  3: string;
  4: number;
  5: boolean;
  6: ResolvedUser;
  7: ResolvedChannel;
  8: ResolvedRole;
  9: ResolvedUser | ResolvedRole;
  10: number;
  11: ResolvedAttachment;
}

export interface FocusedOption {
  readonly name: string;
  readonly type: ApplicationCommandOptionType;
  /** As typed so far: strings may be partial; numbers arrive as typed text or numbers. */
  readonly value: string | number;
}

export interface ParsedOptions {
  /** Subcommand group and subcommand names, outermost first; empty for a plain command. */
  readonly path: string[];
  /**
   * Values by option name. Names come from the payload, so this object has no prototype: an option named
   * `__proto__` or `constructor` is a key like any other, and nothing that was not sent can be read from it.
   */
  readonly options: Record<string, OptionValue>;
  readonly focused: FocusedOption | null;
}

/** The JavaScript type each value option carries on the wire (ids are strings). */
const VALUE_KIND: ReadonlyMap<number, 'string' | 'number' | 'boolean'> = new Map([
  [ApplicationCommandOptionType.String, 'string'],
  [ApplicationCommandOptionType.Integer, 'number'],
  [ApplicationCommandOptionType.Boolean, 'boolean'],
  [ApplicationCommandOptionType.User, 'string'],
  [ApplicationCommandOptionType.Channel, 'string'],
  [ApplicationCommandOptionType.Role, 'string'],
  [ApplicationCommandOptionType.Mentionable, 'string'],
  [ApplicationCommandOptionType.Number, 'number'],
  [ApplicationCommandOptionType.Attachment, 'string'],
]);

/**
 * Whether a received value has the type its option type promises. A focused (autocomplete) value is partial
 * input: text or a number, whatever the option type.
 */
export function valueFits(type: number, value: unknown, focused: boolean): boolean {
  if (focused) return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
  const kind = VALUE_KIND.get(type);
  if (kind === undefined) return false;
  if (kind === 'number') return typeof value === 'number' && Number.isFinite(value);
  return typeof value === kind;
}

/** Resolved objects are looked up by id among the map's own entries (the ids come from the payload). */
function resolvedEntry<T>(map: Record<string, T> | undefined, id: string): T | undefined {
  return typeof map === 'object' ? own(map, id) : undefined;
}

function resolveValue(
  type: ApplicationCommandOptionType,
  raw: string | number | boolean,
  resolved: APIInteractionDataResolved | undefined,
): OptionValue {
  switch (type) {
    case ApplicationCommandOptionType.User:
      return resolveUser(String(raw), resolved);
    case ApplicationCommandOptionType.Role:
      return { kind: 'role', id: String(raw), role: resolvedEntry(resolved?.roles, String(raw)) };
    case ApplicationCommandOptionType.Mentionable: {
      const id = String(raw);
      // A mentionable id names a user or a role; resolved data tells which.
      const role = resolvedEntry(resolved?.roles, id);
      if (role !== undefined) return { kind: 'role', id, role };
      return resolveUser(id, resolved);
    }
    case ApplicationCommandOptionType.Channel:
      return { kind: 'channel', id: String(raw), channel: resolvedEntry(resolved?.channels, String(raw)) };
    case ApplicationCommandOptionType.Attachment:
      return { kind: 'attachment', id: String(raw), attachment: resolvedEntry(resolved?.attachments, String(raw)) };
    default:
      return raw;
  }
}

export function resolveUser(id: string, resolved: APIInteractionDataResolved | undefined): ResolvedUser {
  return { kind: 'user', id, user: resolvedEntry(resolved?.users, id), member: resolvedEntry(resolved?.members, id) };
}

/**
 * Walk `data.options` of a chat-input interaction: descend through at most one group and one subcommand
 * (protocol §S2.5), collect the leaf options with resolved objects, and note the focused one (autocomplete).
 * Options that are not objects with a string name, and values of the wrong type for their option type, are
 * left out (`interactionProblem` reports them before routing; this stays safe without it).
 */
export function parseOptions(
  options: readonly APIApplicationCommandInteractionDataOption[] | undefined,
  resolved: APIInteractionDataResolved | undefined,
): ParsedOptions {
  const path: string[] = [];
  let level: readonly unknown[] = Array.isArray(options) ? options : [];
  // Depth is bounded by the spec's nesting (command > group > subcommand); the guard stops hostile input.
  for (let depth = 0; depth < 2; depth++) {
    const first = level[0];
    const nests =
      isOption(first) &&
      (first.type === ApplicationCommandOptionType.SubcommandGroup || first.type === ApplicationCommandOptionType.Subcommand);
    if (!nests) {
      break;
    }
    path.push(first.name);
    const inner = (first as { options?: unknown }).options;
    level = Array.isArray(inner) ? inner : [];
  }
  const values = dict<OptionValue>();
  let focused: FocusedOption | null = null;
  for (const item of level) {
    if (!isOption(item)) continue;
    const option = item as APIApplicationCommandInteractionDataOption & { value?: unknown; focused?: unknown };
    if (
      option.type === ApplicationCommandOptionType.Subcommand ||
      option.type === ApplicationCommandOptionType.SubcommandGroup
    ) {
      continue;
    }
    const isFocused = option.focused === true;
    const raw = option.value;
    if (!valueFits(option.type, raw, isFocused)) continue;
    if (isFocused) {
      focused = { name: option.name, type: option.type, value: raw as string | number };
      // The focused value is partial input; handlers read it from `focused`, not as a typed option.
      values[option.name] = raw as string | number;
      continue;
    }
    values[option.name] = resolveValue(option.type, raw as string | number | boolean, resolved);
  }
  return { path, options: values, focused };
}

function isOption(v: unknown): v is { name: string; type: number } {
  if (typeof v !== 'object' || v === null) return false;
  const o = v as { name?: unknown; type?: unknown };
  return typeof o.name === 'string' && typeof o.type === 'number';
}
