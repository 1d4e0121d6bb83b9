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
  readonly options: Record<string, OptionValue>;
  readonly focused: FocusedOption | null;
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
      return { kind: 'role', id: String(raw), role: resolved?.roles?.[String(raw)] };
    case ApplicationCommandOptionType.Mentionable: {
      const id = String(raw);
      // A mentionable id names a user or a role; resolved data tells which.
      if (resolved?.roles?.[id] !== undefined) return { kind: 'role', id, role: resolved.roles[id] };
      return resolveUser(id, resolved);
    }
    case ApplicationCommandOptionType.Channel:
      return { kind: 'channel', id: String(raw), channel: resolved?.channels?.[String(raw)] };
    case ApplicationCommandOptionType.Attachment:
      return { kind: 'attachment', id: String(raw), attachment: resolved?.attachments?.[String(raw)] };
    default:
      return raw;
  }
}

export function resolveUser(id: string, resolved: APIInteractionDataResolved | undefined): ResolvedUser {
  return { kind: 'user', id, user: resolved?.users?.[id], member: resolved?.members?.[id] };
}

/**
 * Walk `data.options` of a chat-input interaction: descend through at most one group and one subcommand
 * (spec 2.5), collect the leaf options with resolved objects, and note the focused one (autocomplete).
 */
export function parseOptions(
  options: readonly APIApplicationCommandInteractionDataOption[] | undefined,
  resolved: APIInteractionDataResolved | undefined,
): ParsedOptions {
  const path: string[] = [];
  let level = options ?? [];
  // Depth is bounded by the spec's nesting (command > group > subcommand); the guard stops hostile input.
  for (let depth = 0; depth < 2; depth++) {
    const first = level[0];
    if (
      first === undefined ||
      (first.type !== ApplicationCommandOptionType.SubcommandGroup &&
        first.type !== ApplicationCommandOptionType.Subcommand)
    ) {
      break;
    }
    path.push(first.name);
    level = first.options ?? [];
  }
  const values: Record<string, OptionValue> = {};
  let focused: FocusedOption | null = null;
  for (const option of level) {
    if (
      option.type === ApplicationCommandOptionType.Subcommand ||
      option.type === ApplicationCommandOptionType.SubcommandGroup
    ) {
      continue;
    }
    const raw = option.value as string | number | boolean;
    if ('focused' in option && option.focused === true) {
      focused = { name: option.name, type: option.type, value: raw as string | number };
      // The focused value is partial input; handlers read it from `focused`, not as a typed option.
      values[option.name] = raw;
      continue;
    }
    values[option.name] = resolveValue(option.type, raw, resolved);
  }
  return { path, options: values, focused };
}
