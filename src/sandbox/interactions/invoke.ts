/**
 * Invoking a registered command as a user: the checks the client makes before it sends anything (the
 * command exists in that scope and context, the user may use it, option values are well typed) and the
 * INTERACTION_CREATE payload the service then delivers (protocol §14.1-§14.3, §S2.8).
 */
import { CommandType, OptionType } from '../../commands/constants.js';
import { randomBytes } from 'node:crypto';
import { isSnowflake } from '../../api/snowflake.js';
import { dict } from '../../util/dict.js';
import type { AutocompleteOptions, InvokeOptions } from '../contract.js';
import type { SandboxCore } from '../core.js';
import { SandboxError } from '../errors.js';
import { evaluateCommandUse } from '../state/command-permissions.js';
import type { StoredCommand } from '../state/commands.js';
import type { GuildRecord, UserRecord } from '../state/model.js';
import { BOT_DM_APP_PERMISSIONS } from '../state/permissions.js';
import { channelObject, entitlementObject, memberObject, partialMemberObject, roleObject, userObject } from '../state/serialize.js';
import type { Json } from './messages.js';
import { InteractionType, type InteractionMeta } from './store.js';

const MiB = 1024 * 1024;
const INT_MAX = 2 ** 53 - 1;

type OptionDef = Json & { type: number; name: string };

/** Resolved objects by id; prototype-free, since ids arrive with the invocation. */
export interface Resolved {
  users: Record<string, Json>;
  members: Record<string, Json>;
  roles: Record<string, Json>;
  channels: Record<string, Json>;
  messages: Record<string, Json>;
  attachments: Record<string, Json>;
}

function invalid(message: string): SandboxError {
  return new SandboxError('INVALID_OPTION', message);
}

export function emptyResolved(): Resolved {
  return { users: dict(), members: dict(), roles: dict(), channels: dict(), messages: dict(), attachments: dict() };
}

function optionList(v: unknown): OptionDef[] {
  return Array.isArray(v) ? (v as OptionDef[]) : [];
}

/** Context built once per invocation. */
export interface Scene {
  guild: GuildRecord | null;
  user: UserRecord;
  channelId: string;
  channel: Json;
  /** The invoking member's permissions in the channel (guild only). */
  memberPermissions: bigint;
}

export interface BuiltInteraction {
  meta: InteractionMeta;
  /** Guild whose shard receives it; null = shard 0 (DMs). */
  guildId: string | null;
}

export function buildInteraction(core: SandboxCore, opts: InvokeOptions | AutocompleteOptions, autocomplete: boolean): BuiltInteraction {
  const store = core.store;
  const guild = opts.guildId !== undefined ? store.guild(opts.guildId) ?? null : null;
  if (opts.guildId !== undefined && guild === null) throw new SandboxError('UNKNOWN_GUILD', `unknown guild ${opts.guildId}`);
  const integration = opts.integration ?? 'guild';

  // The invoking user: a seeded human member of the guild (the owner by default), or the owner in DMs.
  const userId = opts.userId ?? store.fixture.userId(0);
  if (guild && !store.members(guild).has(userId)) {
    throw new SandboxError('UNKNOWN_MEMBER', `user ${userId} is not a member of guild ${guild.id}`);
  }
  const user = store.user(userId);
  if (!user) throw new SandboxError('UNKNOWN_USER', `unknown user ${userId}`);
  if (user.bot) throw new SandboxError('INVALID', 'bots cannot invoke commands');

  const scene = sceneFor(core, guild, user, opts.channelId);
  const command = findCommand(core, opts, guild);
  checkAvailability(core, command, guild, scene, integration);
  if (command.type === CommandType.PRIMARY_ENTRY_POINT && command.handler === 2) {
    throw new SandboxError('INVALID', `'${command.name}' has handler 2 (the service launches the Activity itself): no interaction reaches the app`);
  }

  const resolved = emptyResolved();
  const data: Json = { id: command.id, name: command.name, type: command.type };
  if (command.guild_id !== undefined) data.guild_id = command.guild_id;
  let focusedType: number | undefined;

  if (command.type === CommandType.CHAT_INPUT) {
    const focused = autocomplete ? (opts as AutocompleteOptions).focused : null;
    if (autocomplete && !focused) throw invalid('autocomplete needs the name of the focused option');
    const built = buildOptions(core, scene, command, opts, focused, resolved);
    if (built.options.length > 0 || built.nested) data.options = built.options;
    focusedType = built.focusedType;
  } else {
    if (autocomplete) throw invalid(`'${command.name}' is not a CHAT_INPUT command; only those autocomplete`);
    if (opts.options && Object.keys(opts.options).length > 0) throw invalid(`'${command.name}' takes no options`);
    if (command.type === CommandType.USER) {
      const targetId = opts.targetId ?? user.id;
      addUser(core, scene, targetId, resolved, 'target_id');
      data.target_id = targetId;
    } else if (command.type === CommandType.MESSAGE) {
      const targetId = opts.targetId ?? store.ids.next();
      if (!isSnowflake(targetId)) throw invalid(`target_id: a message id (snowflake) is expected; got ${JSON.stringify(targetId)}`);
      resolved.messages[targetId] = targetMessage(core, scene, targetId);
      data.target_id = targetId;
    }
  }
  const usedResolved = Object.fromEntries(Object.entries(resolved).filter(([, v]) => Object.keys(v as object).length > 0));
  if (Object.keys(usedResolved).length > 0) data.resolved = usedResolved;

  const { id, token, payload } = envelope(core, scene, {
    type: autocomplete ? InteractionType.AUTOCOMPLETE : InteractionType.APPLICATION_COMMAND,
    data,
    integration,
    locale: opts.locale,
  });

  const meta: InteractionMeta = {
    id,
    token,
    type: payload.type as number,
    payload,
    channelId: scene.channelId,
    guildId: guild?.id ?? null,
    userInstallOnly: integration === 'user',
    commandType: command.type,
    integration,
  };
  if (focusedType !== undefined) meta.focusedType = focusedType;
  return { meta, guildId: guild?.id ?? null };
}

/** The fields every interaction carries around its `data` (protocol §14.1). */
export function envelope(
  core: SandboxCore,
  scene: Scene,
  o: { type: number; data: Json; integration: 'guild' | 'user'; locale: string | undefined; message?: Json },
): { id: string; token: string; payload: Json } {
  const store = core.store;
  const { guild, user } = scene;
  const id = store.ids.next();
  const token = `aW50ZXJhY3Rpb246${id}:${randomBytes(48).toString('base64url')}`;
  const owners: Record<string, string> = o.integration === 'user' ? { '1': user.id } : { '0': guild ? guild.id : '0' };
  const payload: Json = {
    id,
    application_id: store.applicationId,
    type: o.type,
    data: o.data,
    channel: scene.channel,
    channel_id: scene.channelId,
    token,
    version: 1,
    app_permissions: appPermissions(core, guild).toString(),
    locale: o.locale ?? user.locale,
    entitlements: store.activeEntitlements(user.id, guild?.id ?? null).map((e) => entitlementObject(e, store.applicationId)),
    entitlement_sku_ids: [],
    authorizing_integration_owners: owners,
    context: guild ? 0 : 1,
    attachment_size_limit: guild ? [10, 10, 50, 100][guild.premiumTier]! * MiB : 10 * MiB,
  };
  if (o.message !== undefined) payload.message = o.message;
  if (guild) {
    const member = store.members(guild).get(user.id)!;
    payload.guild = { id: guild.id, locale: guild.preferredLocale, features: [] };
    payload.guild_id = guild.id;
    payload.guild_locale = guild.preferredLocale;
    payload.member = { ...memberObject(member, user), permissions: scene.memberPermissions.toString(), is_pending: false };
  } else {
    payload.user = userObject(user);
  }
  return { id, token, payload };
}

/** Where an interaction happens and who makes it; checks membership. */
export function sceneOf(core: SandboxCore, guildId: string | null, userId: string, channelId: string | undefined): Scene {
  const store = core.store;
  const guild = guildId !== null ? store.guild(guildId) ?? null : null;
  if (guildId !== null && guild === null) throw new SandboxError('UNKNOWN_GUILD', `unknown guild ${guildId}`);
  if (guild && !store.members(guild).has(userId)) throw new SandboxError('UNKNOWN_MEMBER', `user ${userId} is not a member of guild ${guild.id}`);
  const user = store.user(userId);
  if (!user) throw new SandboxError('UNKNOWN_USER', `unknown user ${userId}`);
  if (user.bot) throw new SandboxError('INVALID', 'bots cannot use interactions');
  return sceneFor(core, guild, user, channelId);
}

function sceneFor(core: SandboxCore, guild: GuildRecord | null, user: UserRecord, channelId: string | undefined): Scene {
  if (guild === null) {
    // The one DM channel between the bot and this user: the one REST opens and serves (a bot answers in it).
    const id = core.store.messages.openDm(user.id).channel.id;
    const channel = { id, type: 1, last_message_id: core.store.messages.lastMessageId(id), flags: 0, recipients: [userObject(user)] };
    return { guild, user, channelId: id, channel, memberPermissions: 0n };
  }
  // A thread of the guild too: commands are used in threads, under their parent's command permission settings.
  const channel =
    channelId !== undefined
      ? guild.channels.find((c) => c.id === channelId) ?? guild.threads?.find((t) => t.id === channelId)
      : guild.channels.find((c) => c.type === 0) ?? guild.channels[0];
  if (!channel) throw new SandboxError('UNKNOWN_CHANNEL', `unknown channel ${channelId ?? '(none)'} in guild ${guild.id}`);
  // The member's permissions in this channel (its overwrites, a thread's parent's): what interactions carry and
  // what default_member_permissions is checked against.
  const memberPermissions = core.store.channelPermissionsOf(guild, channel, user.id);
  return { guild, user, channelId: channel.id, channel: { ...channelObject(channel, guild.id), permissions: memberPermissions.toString() }, memberPermissions };
}

function appPermissions(core: SandboxCore, guild: GuildRecord | null): bigint {
  if (guild === null) return BOT_DM_APP_PERMISSIONS;
  return core.store.permissionsOf(guild, core.store.applicationId);
}

function findCommand(core: SandboxCore, opts: InvokeOptions, guild: GuildRecord | null): StoredCommand {
  const candidates = [...(guild ? core.commands.list(guild.id) : []), ...core.commands.list(null)];
  const matches = candidates.filter((c) => c.name === opts.name && (opts.type === undefined || c.type === opts.type));
  // A guild command shadows a global one of the same name and type; without a type, CHAT_INPUT first.
  matches.sort((a, b) => (a.type === 1 ? 0 : 1) - (b.type === 1 ? 0 : 1));
  const found = matches[0];
  if (!found) {
    const where = guild ? `globally or in guild ${guild.id}` : 'globally (DMs see global commands only)';
    throw new SandboxError('UNKNOWN_COMMAND', `no command '${opts.name}'${opts.type ? ` of type ${opts.type}` : ''} is registered ${where}`);
  }
  return found;
}

/** Contexts, installation and command permissions, as the client enforces them before sending. */
function checkAvailability(core: SandboxCore, command: StoredCommand, guild: GuildRecord | null, scene: Scene, integration: 'guild' | 'user'): void {
  const isGlobal = command.guild_id === undefined;
  if (isGlobal) {
    const types = Array.isArray(command.integration_types) ? (command.integration_types as number[]) : [0];
    const wanted = integration === 'user' ? 1 : 0;
    if (!types.includes(wanted)) throw new SandboxError('FORBIDDEN', `'${command.name}' is not available to ${integration}-installed apps (integration_types ${JSON.stringify(types)})`);
    const context = guild ? 0 : 1;
    if (Array.isArray(command.contexts)) {
      if (!(command.contexts as number[]).includes(context)) throw new SandboxError('FORBIDDEN', `'${command.name}' is not available in context ${context} (contexts ${JSON.stringify(command.contexts)})`);
    } else if (!guild && command.dm_permission === false) {
      throw new SandboxError('FORBIDDEN', `'${command.name}' is not available in DMs (dm_permission false)`);
    }
  } else if (guild === null || command.guild_id !== guild.id) {
    throw new SandboxError('FORBIDDEN', `'${command.name}' is a command of guild ${String(command.guild_id)}`);
  }
  if (guild === null || integration === 'user') return;
  const verdict = evaluateCommandUse(core.commandPermissions, {
    guildId: guild.id,
    commandId: command.id,
    userId: scene.user.id,
    roleIds: core.store.members(guild).get(scene.user.id)?.roles ?? [],
    channelId: scene.channelId,
    threadParentId: threadParentOf(guild, scene.channelId),
    permissions: scene.memberPermissions,
    defaultMemberPermissions: command.default_member_permissions as string | null | undefined,
  });
  if (!verdict.allowed) {
    throw new SandboxError('FORBIDDEN', `user ${scene.user.id} may not use '${command.name}' in channel ${scene.channelId} of guild ${guild.id}: ${verdict.why}`);
  }
}

const THREAD_TYPES: ReadonlySet<number> = new Set([10, 11, 12]);

/** A thread's parent channel, whose command permission settings cover the thread; null for any other channel. */
function threadParentOf(guild: GuildRecord, channelId: string): string | null {
  const thread = guild.threads?.find((t) => t.id === channelId);
  return thread !== undefined && THREAD_TYPES.has(thread.type) ? thread.parentId : null;
}

interface BuiltOptions {
  options: Json[];
  nested: boolean;
  focusedType?: number;
}

function buildOptions(core: SandboxCore, scene: Scene, command: StoredCommand, opts: InvokeOptions, focused: string | null, resolved: Resolved): BuiltOptions {
  const top = optionList(command.options);
  const path = opts.subcommand ?? [];
  const hasSubs = top.some((o) => o.type === OptionType.SUB_COMMAND || o.type === OptionType.SUB_COMMAND_GROUP);
  let leafDefs = top;
  const wrappers: Array<{ name: string; type: number }> = [];
  if (hasSubs) {
    if (path.length === 0) {
      const names = top.map((o) => o.name).join(', ');
      throw invalid(`'${command.name}' has subcommands (${names}); name one (a command with subcommands cannot be invoked itself)`);
    }
    let level = top;
    for (let i = 0; i < path.length; i++) {
      const seg = path[i]!;
      const def = level.find((o) => o.name === seg && (o.type === OptionType.SUB_COMMAND || o.type === OptionType.SUB_COMMAND_GROUP));
      if (!def) throw invalid(`'${command.name}' has no subcommand '${path.slice(0, i + 1).join(' ')}'`);
      wrappers.push({ name: def.name, type: def.type });
      level = optionList(def.options);
      if (def.type === OptionType.SUB_COMMAND) {
        if (i !== path.length - 1) throw invalid(`'${path.slice(0, i + 1).join(' ')}' is a subcommand; '${path.slice(i + 1).join(' ')}' cannot follow it`);
        leafDefs = level;
      } else if (i === path.length - 1) {
        throw invalid(`'${path.join(' ')}' is a subcommand group; name one of its subcommands (${level.map((o) => o.name).join(', ')})`);
      }
    }
  } else if (path.length > 0) {
    throw invalid(`'${command.name}' has no subcommands`);
  }

  // Option names are the caller's text: a Map keeps `__proto__` or `constructor` an option like any other.
  const given = new Map(Object.entries(opts.options ?? {}));
  let focusedType: number | undefined;
  if (focused !== null) {
    const def = leafDefs.find((o) => o.name === focused);
    if (!def) throw invalid(`no option '${focused}' to autocomplete`);
    if (def.autocomplete !== true) throw invalid(`option '${focused}' does not have autocomplete enabled`);
    focusedType = def.type;
    if (!given.has(focused)) given.set(focused, '');
  }
  for (const name of given.keys()) {
    if (!leafDefs.some((o) => o.name === name)) {
      throw invalid(`unknown option '${name}'; options here: ${leafDefs.map((o) => o.name).join(', ') || '(none)'}`);
    }
  }
  const leaf: Json[] = [];
  for (const def of leafDefs) {
    const raw = given.get(def.name);
    if (raw === undefined) {
      // Autocomplete may arrive before required options are filled.
      if (def.required === true && focused === null) throw invalid(`option '${def.name}' is required`);
      continue;
    }
    const isFocused = def.name === focused;
    const value = optionValue(core, scene, def, raw, isFocused, opts.attachmentSize, resolved);
    const o: Json = { name: def.name, type: def.type, value };
    if (isFocused) o.focused = true;
    leaf.push(o);
  }
  let options = leaf;
  for (let i = wrappers.length - 1; i >= 0; i--) options = [{ name: wrappers[i]!.name, type: wrappers[i]!.type, options }];
  const out: BuiltOptions = { options, nested: wrappers.length > 0 };
  if (focusedType !== undefined) out.focusedType = focusedType;
  return out;
}

/** Type-check and convert one value like the client does (strings from the CLI are parsed). */
function optionValue(
  core: SandboxCore,
  scene: Scene,
  def: OptionDef,
  raw: string | number | boolean,
  focused: boolean,
  attachmentSize: number | undefined,
  resolved: Resolved,
): string | number | boolean {
  const name = def.name;
  const choices = Array.isArray(def.choices) ? (def.choices as Array<{ value: unknown; name: unknown }>) : null;
  const checkChoice = (v: string | number): void => {
    if (!focused && choices && !choices.some((c) => c.value === v)) {
      throw invalid(`option '${name}' must be one of its choices (${choices.map((c) => JSON.stringify(c.value)).join(', ')}); got ${JSON.stringify(v)}`);
    }
  };
  switch (def.type) {
    case OptionType.STRING: {
      if (typeof raw !== 'string') throw invalid(`option '${name}' is a STRING; got ${typeof raw}`);
      if (!focused) {
        const len = [...raw].length;
        const min = typeof def.min_length === 'number' ? def.min_length : 0;
        const max = typeof def.max_length === 'number' ? def.max_length : 6000;
        if (len < Math.max(1, min) || len > max) throw invalid(`option '${name}' must be ${Math.max(1, min)}-${max} characters; got ${len}`);
      }
      checkChoice(raw);
      return raw;
    }
    case OptionType.INTEGER:
    case OptionType.NUMBER: {
      // A focused number field with nothing typed yet arrives empty.
      if (focused && raw === '') return '';
      const isInt = def.type === OptionType.INTEGER;
      const n = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;
      // Even while typing, the client sends only well-formed numbers (protocol §S2.8).
      if (!Number.isFinite(n) || (isInt && !Number.isInteger(n))) {
        throw invalid(`option '${name}' is ${isInt ? 'an INTEGER' : 'a NUMBER'}; got ${JSON.stringify(raw)}`);
      }
      if (!focused) {
        const limit = isInt ? INT_MAX : 2 ** 53;
        const min = typeof def.min_value === 'number' ? def.min_value : -limit;
        const max = typeof def.max_value === 'number' ? def.max_value : limit;
        if (n < min || n > max) throw invalid(`option '${name}' must be between ${min} and ${max}; got ${n}`);
      }
      checkChoice(n);
      return n;
    }
    case OptionType.BOOLEAN: {
      if (typeof raw === 'boolean') return raw;
      if (raw === 'true' || raw === 'false') return raw === 'true';
      throw invalid(`option '${name}' is a BOOLEAN (true or false); got ${JSON.stringify(raw)}`);
    }
    case OptionType.USER: {
      const id = snowflakeValue(name, raw);
      addUser(core, scene, id, resolved, name);
      return id;
    }
    case OptionType.ROLE: {
      const id = snowflakeValue(name, raw);
      addRole(scene, id, resolved, name);
      return id;
    }
    case OptionType.MENTIONABLE: {
      const id = snowflakeValue(name, raw);
      if (scene.guild && scene.guild.roles.some((r) => r.id === id)) addRole(scene, id, resolved, name);
      else addUser(core, scene, id, resolved, name);
      return id;
    }
    case OptionType.CHANNEL: {
      const id = snowflakeValue(name, raw);
      const channel = scene.guild?.channels.find((c) => c.id === id);
      if (!scene.guild || !channel) throw invalid(`option '${name}': no channel ${id} here`);
      const types = Array.isArray(def.channel_types) ? (def.channel_types as number[]) : null;
      if (types && types.length > 0 && !types.includes(channel.type)) throw invalid(`option '${name}' accepts channel types ${JSON.stringify(types)}; ${id} is type ${channel.type}`);
      const o = channelObject(channel, scene.guild.id);
      resolved.channels[id] = {
        id, name: o.name, type: o.type, permissions: scene.memberPermissions.toString(), guild_id: scene.guild.id,
        parent_id: o.parent_id, nsfw: o.nsfw, flags: 0, topic: o.topic ?? null, position: o.position,
        rate_limit_per_user: o.rate_limit_per_user ?? 0, last_message_id: o.last_message_id ?? null,
      };
      return id;
    }
    case OptionType.ATTACHMENT: {
      if (typeof raw !== 'string' || raw.length === 0) throw invalid(`option '${name}' is an ATTACHMENT: give a file name`);
      const contentType = guessContentType(raw);
      const fileTypes = Array.isArray(def.file_types) ? (def.file_types as string[]) : null;
      if (fileTypes && fileTypes.length > 0 && !fileTypes.some((t) => matchesFileType(t, raw, contentType))) {
        throw invalid(`option '${name}' accepts ${fileTypes.join(', ')}; '${raw}' is ${contentType}`);
      }
      const id = core.store.ids.next();
      const size = attachmentSize ?? 1024;
      const url = `https://cdn.sandbox.invalid/ephemeral-attachments/${id}/${encodeURIComponent(raw)}`;
      resolved.attachments[id] = { id, filename: raw, size, url, proxy_url: url, content_type: contentType, ephemeral: true };
      return id;
    }
    default:
      throw invalid(`option '${name}' has type ${def.type}, which takes no value`);
  }
}

function snowflakeValue(name: string, raw: string | number | boolean): string {
  const s = String(raw);
  if (typeof raw === 'boolean' || !isSnowflake(s)) throw invalid(`option '${name}' takes an id; got ${JSON.stringify(raw)}`);
  return s;
}

export function addUser(core: SandboxCore, scene: Scene, id: string, resolved: Resolved, what: string): void {
  const user = core.store.user(id);
  const member = scene.guild ? core.store.members(scene.guild).get(id) : undefined;
  if (!user) throw invalid(`${what}: unknown user ${id}`);
  resolved.users[id] = userObject(user);
  if (member && scene.guild) {
    // Partial member: no user, deaf or mute; with permissions (protocol §12.2, §14.2).
    resolved.members[id] = { ...partialMemberObject(member), permissions: core.store.permissionsOf(scene.guild, id).toString() };
  }
}

export function addRole(scene: Scene, id: string, resolved: Resolved, what: string): void {
  const role = scene.guild?.roles.find((r) => r.id === id);
  if (!role) throw invalid(`${what}: no role ${id} here`);
  resolved.roles[id] = roleObject(role);
}

/**
 * The message a MESSAGE command targets (protocol §S2.8: `resolved` carries it). A message the sandbox knows (sent by
 * the bot through REST, or an interaction response or follow-up) is resolved as it is now; it must be in the
 * channel the command is invoked in, where the user right-clicked it. Any other id gets a made-up message.
 */
function targetMessage(core: SandboxCore, scene: Scene, id: string): Json {
  const sent = core.store.messages.find(id);
  if (sent !== undefined) {
    if (sent.deletedAt !== null) throw invalid(`target_id: message ${id} was deleted`);
    if (sent.channelId !== scene.channelId) throw invalid(`target_id: message ${id} is in channel ${sent.channelId}, not ${scene.channelId} (pass channelId)`);
    return structuredClone(sent.message);
  }
  const answered = core.interactions.findMessage(id);
  if (answered !== undefined) {
    if (answered.record.meta.channelId !== scene.channelId) {
      throw invalid(`target_id: message ${id} is in channel ${answered.record.meta.channelId}, not ${scene.channelId} (pass channelId)`);
    }
    return structuredClone(answered.message);
  }
  const authorId = core.store.fixture.userId(scene.guild ? 1 : 0);
  const author = core.store.user(authorId) ?? scene.user;
  return {
    id, type: 0, content: 'A message in the sandbox', channel_id: scene.channelId, author: userObject(author), attachments: [], embeds: [],
    mentions: [], mention_roles: [], pinned: false, mention_everyone: false, tts: false, timestamp: new Date().toISOString(),
    edited_timestamp: null, flags: 0, components: [],
  };
}

const EXT_TYPES = new Map(Object.entries({
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', mp4: 'video/mp4', webm: 'video/webm',
  mp3: 'audio/mpeg', ogg: 'audio/ogg', wav: 'audio/wav', txt: 'text/plain; charset=utf-8', json: 'application/json', pdf: 'application/pdf',
  zip: 'application/zip',
}));

export function guessContentType(filename: string): string {
  const ext = filename.includes('.') ? filename.split('.').pop()!.toLowerCase() : '';
  return EXT_TYPES.get(ext) ?? 'application/octet-stream';
}

export function matchesFileType(fileType: string, filename: string, contentType: string): boolean {
  if (fileType.startsWith('.')) return filename.toLowerCase().endsWith(fileType.toLowerCase());
  return contentType.startsWith(`${fileType}/`);
}
