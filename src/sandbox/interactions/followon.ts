/**
 * Interactions that follow from what the app sent: a click on a component of a message (MESSAGE_COMPONENT,
 * type 3) and the submission of a modal the app opened (MODAL_SUBMIT, type 5). The client-side checks come
 * first: the component exists and is enabled, picked values are allowed, required modal inputs are filled.
 */
import { ComponentType } from 'discord-api-types/v10';
import type { ComponentOptions, ModalSubmitOptions } from '../contract.js';
import type { SandboxCore } from '../core.js';
import { SandboxError } from '../errors.js';
import { channelObject, messageDispatchJson } from '../state/serialize.js';
import { addRole, addUser, emptyResolved, envelope, guessContentType, matchesFileType, sceneOf, type Resolved, type Scene } from './invoke.js';
import type { Json } from './messages.js';
import { InteractionType, type InteractionMeta, type SandboxInteraction } from './store.js';
import { isObject } from '../../util/is-object.js';

const Component = {
  ACTION_ROW: ComponentType.ActionRow,
  BUTTON: ComponentType.Button,
  STRING_SELECT: ComponentType.StringSelect,
  TEXT_INPUT: ComponentType.TextInput,
  USER_SELECT: ComponentType.UserSelect,
  ROLE_SELECT: ComponentType.RoleSelect,
  MENTIONABLE_SELECT: ComponentType.MentionableSelect,
  CHANNEL_SELECT: ComponentType.ChannelSelect,
  LABEL: ComponentType.Label,
  FILE_UPLOAD: ComponentType.FileUpload,
} as const;

/** A modal's file upload takes 0 to 10 files (protocol §S8). */
const MAX_UPLOAD_FILES = 10;

function invalid(message: string): SandboxError {
  return new SandboxError('INVALID_OPTION', message);
}

/** Every component object in a tree (rows, containers, sections, labels). */
export function* walkComponents(nodes: unknown): Generator<Json> {
  if (!Array.isArray(nodes)) return;
  for (const n of nodes) {
    if (!isObject(n)) continue;
    yield n;
    yield* walkComponents(n.components);
    if (isObject(n.accessory)) yield* walkComponents([n.accessory]);
    if (isObject(n.component)) yield* walkComponents([n.component]);
  }
}

/**
 * The newest message the app sent (through an interaction, or to a channel) that holds a component with this
 * custom_id (so a click needs no message id), or undefined.
 */
export function findComponentMessage(core: SandboxCore, customId: string): string | undefined {
  const holds = (message: Json): boolean => [...walkComponents(message.components)].some((c) => c.custom_id === customId);
  let found: string | undefined;
  const records = core.interactions.all();
  outer: for (let i = records.length - 1; i >= 0; i--) {
    const r = records[i]!;
    for (const message of [...r.followups].reverse().concat(r.original ? [r.original] : [])) {
      if (holds(message)) {
        found = message.id as string;
        break outer;
      }
    }
  }
  const sent = core.store.messages.all();
  for (let i = sent.length - 1; i >= 0; i--) {
    const r = sent[i]!;
    if (r.deletedAt !== null || !holds(r.message)) continue;
    if (found === undefined || BigInt(r.id) > BigInt(found)) found = r.id;
    break;
  }
  return found;
}

/** The newest interaction answered with a modal (with this modal custom_id, when given). */
export function findModalInteraction(core: SandboxCore, customId?: string): string | undefined {
  const records = core.interactions.all();
  for (let i = records.length - 1; i >= 0; i--) {
    const first = records[i]!.callbacks[0];
    if (first?.type === 9 && (customId === undefined || first.data?.custom_id === customId)) return records[i]!.id;
  }
  return undefined;
}

interface Built {
  meta: InteractionMeta;
  guildId: string | null;
}

function usedResolved(r: Resolved): Json | undefined {
  const used = Object.fromEntries(Object.entries(r).filter(([, v]) => Object.keys(v as object).length > 0));
  return Object.keys(used).length > 0 ? used : undefined;
}

function parentUser(record: SandboxInteraction): string {
  const p = record.payload as { member?: { user?: { id?: string } }; user?: { id?: string } };
  return p.member?.user?.id ?? p.user?.id ?? '';
}

/** Resolved data for a value picked in a user, role, mentionable or channel select. */
function resolvePicked(core: SandboxCore, scene: Scene, type: number, v: string, resolved: Resolved, customId: string): void {
  if (type === Component.USER_SELECT) addUser(core, scene, v, resolved, customId);
  else if (type === Component.ROLE_SELECT) addRole(scene, v, resolved, customId);
  else if (type === Component.MENTIONABLE_SELECT) {
    if (scene.guild?.roles.some((r) => r.id === v)) addRole(scene, v, resolved, customId);
    else addUser(core, scene, v, resolved, customId);
  } else if (type === Component.CHANNEL_SELECT) {
    const channel = scene.guild?.channels.find((c) => c.id === v);
    if (!scene.guild || !channel) throw invalid(`${customId}: no channel ${v} here`);
    const c = channelObject(channel, scene.guild.id);
    resolved.channels[v] = { id: v, name: c.name, type: c.type, permissions: scene.memberPermissions.toString(), guild_id: scene.guild.id, parent_id: c.parent_id, flags: 0 };
  }
}

/**
 * The message a component is clicked on, where it lives, and who clicks by default: a message an interaction
 * produced (its user clicks), or a live message the bot posted with POST /channels/{id}/messages (in a guild the
 * owner clicks, in a DM its recipient). An update of the latter edits the channel message and dispatches
 * MESSAGE_UPDATE, as a PATCH of it does.
 */
function componentSource(core: SandboxCore, o: ComponentOptions): {
  message: Json;
  guildId: string | null;
  channelId: string;
  userId: string;
  integration: 'guild' | 'user';
  replace(message: Json): void;
} {
  const store = core.store;
  // A channel message first: once a component on it was updated, the interaction that updated it holds a copy too.
  const sent = store.messages.find(o.messageId);
  if (sent !== undefined && sent.deletedAt !== null) throw new SandboxError('UNKNOWN_INTERACTION', `message ${o.messageId} was deleted`);
  if (sent === undefined) {
    const found = core.interactions.findMessage(o.messageId);
    if (!found) throw new SandboxError('UNKNOWN_INTERACTION', `no message ${o.messageId} was sent by the app (through an interaction or to a channel)`);
    const { record, message } = found;
    return {
      message,
      guildId: record.meta.guildId,
      channelId: record.meta.channelId,
      userId: parentUser(record),
      integration: record.meta.integration,
      replace: (m) => record.replaceMessage(o.messageId, m),
    };
  }
  return {
    message: sent.message,
    guildId: sent.guildId,
    channelId: sent.channelId,
    userId: sent.recipientId ?? store.fixture.userId(0),
    integration: 'guild',
    replace: (m) => {
      // Deleted meanwhile: nothing to update.
      if (sent.deletedAt !== null) return;
      store.messages.edit(sent, m);
      const guild = sent.guildId === null ? null : (store.guild(sent.guildId) ?? null);
      store.emit(sent.guildId, 'MESSAGE_UPDATE', messageDispatchJson(guild, guild ? store.members(guild).get(store.applicationId) : undefined, m));
    },
  };
}

export function buildComponentInteraction(core: SandboxCore, o: ComponentOptions): Built {
  const source = componentSource(core, o);
  const { message } = source;
  const component = [...walkComponents(message.components)].find((c) => c.custom_id === o.customId);
  if (!component) throw invalid(`message ${o.messageId} has no component with custom_id '${o.customId}'`);
  if (component.disabled === true) throw invalid(`component '${o.customId}' is disabled`);
  const type = component.type as number;
  if (type === Component.TEXT_INPUT || type === Component.ACTION_ROW || type === Component.LABEL) throw invalid(`component '${o.customId}' cannot be clicked`);

  const scene = sceneOf(core, source.guildId, o.userId ?? source.userId, source.channelId);
  const data: Json = { custom_id: o.customId, component_type: type };
  const resolved = emptyResolved();
  if (type === Component.BUTTON) {
    if (o.values !== undefined) throw invalid('a button takes no values');
  } else {
    const values = o.values ?? [];
    const min = typeof component.min_values === 'number' ? component.min_values : 1;
    const max = typeof component.max_values === 'number' ? component.max_values : 1;
    if (values.length < min || values.length > max) throw invalid(`select '${o.customId}' takes ${min}-${max} values; got ${values.length}`);
    if (type === Component.STRING_SELECT) {
      const allowed = Array.isArray(component.options) ? (component.options as Json[]).map((x) => x.value) : [];
      for (const v of values) if (!allowed.includes(v)) throw invalid(`'${v}' is not an option of select '${o.customId}'`);
    } else {
      for (const v of values) resolvePicked(core, scene, type, v, resolved, o.customId);
    }
    data.values = values;
    const r = usedResolved(resolved);
    if (r) data.resolved = r;
  }
  const integration = source.integration;
  const { id, token, payload } = envelope(core, scene, { type: InteractionType.MESSAGE_COMPONENT, data, integration, locale: o.locale, message });
  return {
    meta: {
      id,
      token,
      type: InteractionType.MESSAGE_COMPONENT,
      payload,
      channelId: scene.channelId,
      guildId: scene.guild?.id ?? null,
      userInstallOnly: integration === 'user',
      commandType: 0,
      sourceMessage: message,
      source: { replace: source.replace },
      integration,
    },
    guildId: scene.guild?.id ?? null,
  };
}

export function buildModalSubmit(core: SandboxCore, o: ModalSubmitOptions): Built {
  const record = core.interactions.get(o.interactionId);
  if (!record) throw new SandboxError('UNKNOWN_INTERACTION', `unknown interaction ${o.interactionId}`);
  const modal = record.callbacks[0];
  if (!modal || modal.type !== 9 || !modal.data) throw invalid(`interaction ${o.interactionId} was not answered with a modal`);
  // Field ids are the app's text and the values the caller's: a Map matches them key for key, prototype keys too.
  const given = new Map(Object.entries(o.values));
  const rows: Json[] = [];
  const scene = sceneOf(core, record.meta.guildId, parentUser(record), record.meta.channelId);
  const resolved = emptyResolved();
  const answer = (input: Json): Json => {
    const customId = String(input.custom_id);
    const raw = given.get(customId);
    given.delete(customId);
    const list = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
    if (input.type === Component.FILE_UPLOAD) {
      // Values name files; the client uploads them and the submission carries attachment ids.
      const min = typeof input.min_values === 'number' ? input.min_values : 1;
      const max = typeof input.max_values === 'number' ? input.max_values : 1;
      const required = input.required !== false;
      if (list.length === 0 && required && min > 0) throw invalid(`modal field '${customId}' is required (a file upload of ${min}-${max} files)`);
      if (list.length > 0 && (list.length < min || list.length > Math.min(max, MAX_UPLOAD_FILES))) {
        throw invalid(`modal field '${customId}' takes ${min}-${Math.min(max, MAX_UPLOAD_FILES)} files; got ${list.length}`);
      }
      const fileTypes = Array.isArray(input.file_types) ? (input.file_types as string[]) : null;
      const ids = list.map((filename) => {
        const contentType = guessContentType(filename);
        if (fileTypes && fileTypes.length > 0 && !fileTypes.some((t) => matchesFileType(t, filename, contentType))) {
          throw invalid(`modal field '${customId}' accepts ${fileTypes.join(', ')}; '${filename}' is ${contentType}`);
        }
        const id = core.store.ids.next();
        const url = `https://cdn.sandbox.invalid/ephemeral-attachments/${id}/${encodeURIComponent(filename)}`;
        resolved.attachments[id] = { id, filename, size: 1024, url, proxy_url: url, content_type: contentType, ephemeral: true };
        return id;
      });
      return { type: Component.FILE_UPLOAD, id: input.id, custom_id: customId, values: ids };
    }
    if (
      input.type === Component.USER_SELECT ||
      input.type === Component.ROLE_SELECT ||
      input.type === Component.MENTIONABLE_SELECT ||
      input.type === Component.CHANNEL_SELECT
    ) {
      const required = input.required !== false;
      if (required && list.length === 0) throw invalid(`modal field '${customId}' is required`);
      for (const v of list) resolvePicked(core, scene, input.type, v, resolved, customId);
      return { type: input.type, custom_id: customId, values: list };
    }
    if (input.type === Component.STRING_SELECT) {
      const values = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
      const required = input.required !== false;
      if (required && values.length === 0) throw invalid(`modal field '${customId}' is required`);
      const allowed = Array.isArray(input.options) ? (input.options as Json[]).map((x) => x.value) : [];
      for (const v of values) if (!allowed.includes(v)) throw invalid(`'${v}' is not an option of '${customId}'`);
      return { type: Component.STRING_SELECT, custom_id: customId, values };
    }
    const value = raw === undefined ? '' : Array.isArray(raw) ? raw.join(',') : raw;
    const required = input.required !== false;
    const len = [...value].length;
    if (required && len === 0) throw invalid(`modal field '${customId}' is required`);
    const min = typeof input.min_length === 'number' ? input.min_length : 0;
    const max = typeof input.max_length === 'number' ? input.max_length : 4000;
    if (len > 0 && (len < min || len > max)) throw invalid(`modal field '${customId}' takes ${min}-${max} characters; got ${len}`);
    return { type: Component.TEXT_INPUT, custom_id: customId, value };
  };
  for (const top of Array.isArray(modal.data.components) ? (modal.data.components as unknown[]) : []) {
    if (!isObject(top)) continue;
    if (top.type === Component.ACTION_ROW) {
      const inputs = Array.isArray(top.components) ? (top.components as unknown[]).filter(isObject) : [];
      rows.push({ type: Component.ACTION_ROW, components: inputs.map(answer) });
    } else if (top.type === Component.LABEL && isObject(top.component)) {
      rows.push({ type: Component.LABEL, component: answer(top.component) });
    }
  }
  const extra = given.keys().next();
  if (extra.done !== true) throw invalid(`the modal has no field '${extra.value}'`);

  const data: Json = { custom_id: modal.data.custom_id, components: rows };
  const r = usedResolved(resolved);
  if (r) data.resolved = r;
  const message = record.meta.sourceMessage;
  const integration = record.meta.integration;
  const { id, token, payload } = envelope(core, scene, { type: InteractionType.MODAL_SUBMIT, data, integration, locale: o.locale, ...(message ? { message } : {}) });
  const meta: InteractionMeta = {
    id,
    token,
    type: InteractionType.MODAL_SUBMIT,
    payload,
    channelId: scene.channelId,
    guildId: scene.guild?.id ?? null,
    userInstallOnly: integration === 'user',
    commandType: 0,
    integration,
  };
  if (message) meta.sourceMessage = message;
  if (record.meta.source) meta.source = record.meta.source;
  return { meta, guildId: scene.guild?.id ?? null };
}
