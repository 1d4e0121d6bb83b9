/** Message bodies of interaction responses and follow-ups: validation (protocol §14.4, §14.5) and message objects. */
import { storedComponents, storedEmbeds } from './message-parts.js';
import { storedPoll } from '../state/polls.js';
import { addTreeError, emptyErrorTree, Errors, invalidFormBody } from '../errors.js';
import { isObject } from '../../util/is-object.js';

export const MessageFlags = {
  SUPPRESS_EMBEDS: 1 << 2,
  EPHEMERAL: 1 << 6,
  LOADING: 1 << 7,
  SUPPRESS_NOTIFICATIONS: 1 << 12,
  IS_VOICE_MESSAGE: 1 << 13,
  IS_COMPONENTS_V2: 1 << 15,
} as const;

/** Flags a response or follow-up may set. */
const SENDABLE_FLAGS =
  MessageFlags.SUPPRESS_EMBEDS | MessageFlags.EPHEMERAL | MessageFlags.SUPPRESS_NOTIFICATIONS | MessageFlags.IS_VOICE_MESSAGE | MessageFlags.IS_COMPONENTS_V2;
/** Flags an edit may change. */
const EDITABLE_FLAGS = MessageFlags.SUPPRESS_EMBEDS | MessageFlags.IS_COMPONENTS_V2;

const MAX_CONTENT = 2000;
const MAX_EMBEDS = 10;
/** Protocol §S7 and §S8: more than 25 fields in an embed is an error. */
const MAX_EMBED_FIELDS = 25;
/** Protocol §S8: a legacy message has at most 5 action rows; with IS_COMPONENTS_V2, 40 components in all. */
const MAX_ACTION_ROWS = 5;
const MAX_V2_COMPONENTS = 40;

export type Json = Record<string, unknown>;

export interface MessageCheck {
  /** Path prefix of the data in the error tree (`['data']` for callbacks, `[]` for webhook bodies). */
  at: string[];
  /** Creating a message needs one of content / embeds / components / attachments / poll (50006 otherwise). */
  requireContent: boolean;
  allowedFlags?: number;
  /** Files that came with a multipart body. */
  files?: number;
  /** An edit: the message's flags so far (an edit that does not restate IS_COMPONENTS_V2 keeps it). */
  existingFlags?: number;
}

/** Validate message fields; throws the service's errors. Returns the data (an object). */
export function checkMessage(data: unknown, check: MessageCheck): Json {
  const tree = emptyErrorTree();
  const at = check.at;
  if (data === undefined || data === null) {
    if (check.requireContent && !check.files) throw Errors.emptyMessage();
    return {};
  }
  if (!isObject(data)) {
    addTreeError(tree, at, { code: 'MODEL_TYPE_CONVERT', message: 'Expected an object/dictionary.' });
    throw invalidFormBody(tree);
  }
  const { content, embeds, components, flags, attachments, poll } = data;
  if (content !== undefined && content !== null) {
    if (typeof content !== 'string') addTreeError(tree, [...at, 'content'], { code: 'STRING_TYPE_CONVERT', message: 'Could not interpret the value as string.' });
    else if ([...content].length > MAX_CONTENT) addTreeError(tree, [...at, 'content'], { code: 'BASE_TYPE_MAX_LENGTH', message: `Must be ${MAX_CONTENT} or fewer in length.` });
  }
  if (embeds !== undefined && embeds !== null) {
    if (!Array.isArray(embeds)) addTreeError(tree, [...at, 'embeds'], { code: 'LIST_TYPE_CONVERT', message: 'Only iterables may be used in a ListType' });
    else if (embeds.length > MAX_EMBEDS) addTreeError(tree, [...at, 'embeds'], { code: 'BASE_TYPE_MAX_LENGTH', message: `Must be ${MAX_EMBEDS} or fewer in length.` });
    else {
      for (let i = 0; i < embeds.length; i++) {
        const fields: unknown = isObject(embeds[i]) ? (embeds[i] as Json).fields : undefined;
        if (Array.isArray(fields) && fields.length > MAX_EMBED_FIELDS) {
          addTreeError(tree, [...at, 'embeds', String(i), 'fields'], { code: 'BASE_TYPE_MAX_LENGTH', message: `Must be ${MAX_EMBED_FIELDS} or fewer in length.` });
        }
      }
    }
  }
  if (components !== undefined && components !== null) {
    if (!Array.isArray(components)) {
      addTreeError(tree, [...at, 'components'], { code: 'LIST_TYPE_CONVERT', message: 'Only iterables may be used in a ListType' });
    } else {
      const v2 = ((typeof flags === 'number' ? flags : (check.existingFlags ?? 0)) & MessageFlags.IS_COMPONENTS_V2) !== 0;
      if (!v2 && components.length > MAX_ACTION_ROWS) {
        addTreeError(tree, [...at, 'components'], { code: 'BASE_TYPE_MAX_LENGTH', message: `Must be ${MAX_ACTION_ROWS} or fewer in length.` });
      } else if (v2 && countComponents(components, 0) > MAX_V2_COMPONENTS) {
        addTreeError(tree, [...at, 'components'], { code: 'BASE_TYPE_MAX_LENGTH', message: `Must have ${MAX_V2_COMPONENTS} or fewer components in total.` });
      }
    }
  }
  if (flags !== undefined && flags !== null) {
    const allowed = check.allowedFlags ?? SENDABLE_FLAGS;
    if (typeof flags !== 'number' || !Number.isInteger(flags)) addTreeError(tree, [...at, 'flags'], { code: 'NUMBER_TYPE_COERCE', message: `Value "${String(flags)}" is not int.` });
    else if ((flags & ~allowed) !== 0) addTreeError(tree, [...at, 'flags'], { code: 'MESSAGE_FLAGS_INVALID', message: 'Invalid message flags.' });
  }
  if (Object.keys(tree).length > 0) throw invalidFormBody(tree);
  const hasContent =
    (typeof content === 'string' && content.length > 0) ||
    (Array.isArray(embeds) && embeds.length > 0) ||
    (Array.isArray(components) && components.length > 0) ||
    (Array.isArray(attachments) && attachments.length > 0) ||
    isObject(poll) ||
    (check.files ?? 0) > 0;
  if (check.requireContent && !hasContent) throw Errors.emptyMessage();
  return data;
}

/**
 * Components in a tree, nested ones (rows, containers, a section's accessory) included. Depth is bounded: past
 * a nesting no layout allows, the rest counts as over the limit rather than being walked.
 */
function countComponents(list: readonly unknown[], depth: number): number {
  if (depth > 8) return Number.POSITIVE_INFINITY;
  let n = 0;
  for (const c of list) {
    n++;
    if (!isObject(c)) continue;
    const inner: unknown = (c as Json).components;
    if (Array.isArray(inner)) n += countComponents(inner, depth + 1);
    if (isObject((c as Json).accessory)) n += countComponents([(c as Json).accessory], depth + 1);
    if (n > MAX_V2_COMPONENTS) return n;
  }
  return n;
}

/** A stored message's flags (0 when it has none or is missing). */
export function flagsOf(message: Json | undefined | null): number {
  const flags = message?.flags;
  return typeof flags === 'number' ? flags : 0;
}

export function editableFlags(): number {
  return EDITABLE_FLAGS;
}

/** A file that came with a multipart body. */
export interface UploadedFile {
  filename: string;
  size: number;
  contentType: string;
  /** `n` of its `files[n]` part (what an `attachments` entry's `id` names); its position when the part is named otherwise. */
  index?: number;
}

export interface MessageContext {
  id: string;
  /** Ids for the attachments of this message. */
  nextId: () => string;
  /** Files uploaded with this request (multipart `files[n]`). */
  uploads: readonly UploadedFile[];
  channelId: string;
  guildId: string | null;
  /** The bot user object (author). */
  author: Json;
  applicationId: string;
  /** 20 CHAT_INPUT_COMMAND, 23 CONTEXT_MENU_COMMAND, 0 DEFAULT (follow-ups), 19 REPLY... */
  type: number;
  interactionMetadata: Json;
}

/** Attachment objects for files uploaded with a message (ids from `nextId`, URLs on the sandbox's made-up CDN). */
export function attachmentObjects(channelId: string, uploads: readonly UploadedFile[], nextId: () => string): Json[] {
  return uploads.map((f) => {
    const id = nextId();
    const url = `https://cdn.sandbox.invalid/attachments/${channelId}/${id}/${encodeURIComponent(f.filename)}`;
    return { id, filename: f.filename, size: f.size, url, proxy_url: url, content_type: f.contentType || 'application/octet-stream' };
  });
}

/** What every message the sandbox creates has, whichever route created it; the caller adds its own fields. */
export interface BaseMessage {
  id: string;
  type: number;
  channelId: string;
  author: Json;
  /** Attachments kept from the body plus the uploaded files. */
  attachments: Json[];
  flags: number;
}

export function baseMessage(base: BaseMessage, data: Json): Json {
  const msg: Json = {
    id: base.id,
    type: base.type,
    content: typeof data.content === 'string' ? data.content : '',
    channel_id: base.channelId,
    author: base.author,
    attachments: base.attachments,
    embeds: storedEmbeds(data.embeds),
    mentions: [],
    mention_roles: [],
    pinned: false,
    mention_everyone: false,
    tts: data.tts === true,
    timestamp: new Date().toISOString(),
    edited_timestamp: null,
    flags: base.flags,
    components: storedComponents(data.components),
  };
  // The service builds the poll (answer ids, expiry, results) from the request's.
  const poll = storedPoll(data.poll);
  if (poll !== undefined) msg.poll = poll;
  return msg;
}

/** Attachments of a message body that are kept as given (those naming a URL). */
export function keptAttachments(data: Json): Json[] {
  return Array.isArray(data.attachments) ? (data.attachments.filter((a) => isObject(a) && 'url' in a) as Json[]) : [];
}

/** A message object as the webhook endpoints return it. */
export function messageObject(ctx: MessageContext, data: Json, extraFlags = 0): Json {
  const flags = ((typeof data.flags === 'number' ? data.flags : 0) | extraFlags) >>> 0;
  const attachments = [...keptAttachments(data), ...attachmentObjects(ctx.channelId, ctx.uploads, ctx.nextId)];
  const msg = baseMessage({ id: ctx.id, type: ctx.type, channelId: ctx.channelId, author: ctx.author, attachments, flags }, data);
  msg.webhook_id = ctx.applicationId;
  msg.application_id = ctx.applicationId;
  msg.interaction_metadata = ctx.interactionMetadata;
  if (ctx.guildId !== null) msg.guild_id = ctx.guildId;
  return msg;
}

/** The files that came with an edit, and how the create path turns them into attachment objects. */
export interface EditUploads {
  uploads: readonly UploadedFile[];
  /** Attachment objects for these uploads, built as on create (`attachmentObjects` with the message's channel). */
  attach: (uploads: readonly UploadedFile[]) => Json[];
}

const NO_UPLOADS: EditUploads = { uploads: [], attach: () => [] };

/**
 * The attachments of a message after an edit (v10). With `attachments` in the body it lists everything the
 * message keeps: an entry names an attachment of the message by its `id` (kept as stored; a `description`
 * given replaces its own) or an uploaded part by its index (`id` n, number or digits, for `files[n]`), which
 * becomes a new attachment as on create; an entry naming neither is 50035 ATTACHMENT_NOT_FOUND at its index,
 * and attachments not listed are removed (null removes all). Without `attachments` the message keeps its own
 * and any uploaded files are added.
 */
export function editedAttachments(current: unknown, patch: Json, files: EditUploads = NO_UPLOADS, at: readonly string[] = []): Json[] {
  const existing = Array.isArray(current) ? current.filter(isObject) : [];
  const listed = patch.attachments;
  if (listed === undefined) return files.uploads.length > 0 ? [...existing, ...files.attach(files.uploads)] : existing;
  if (listed === null) return [];
  const tree = emptyErrorTree();
  if (!Array.isArray(listed)) {
    addTreeError(tree, [...at, 'attachments'], { code: 'LIST_TYPE_CONVERT', message: 'Only iterables may be used in a ListType' });
    throw invalidFormBody(tree);
  }
  const stored = new Map(existing.map((a) => [String(a.id), a]));
  const uploaded = new Map(files.uploads.map((f, i) => [f.index ?? i, f]));
  const taken = new Set<string>();
  const out: Json[] = [];
  listed.forEach((entry: unknown, i) => {
    if (!isObject(entry)) {
      addTreeError(tree, [...at, 'attachments', i], { code: 'MODEL_TYPE_CONVERT', message: 'Expected an object/dictionary.' });
      return;
    }
    const id = entry.id;
    if (typeof id !== 'string' && typeof id !== 'number') {
      addTreeError(tree, [...at, 'attachments', i, 'id'], { code: 'BASE_TYPE_REQUIRED', message: 'This field is required' });
      return;
    }
    const key = String(id);
    const kept = stored.get(key);
    const upload = kept === undefined && /^\d+$/.test(key) ? uploaded.get(Number(key)) : undefined;
    if (kept === undefined && upload === undefined) {
      // What the service answers for an entry whose attachment data it cannot find.
      addTreeError(tree, [...at, 'attachments', i], { code: 'ATTACHMENT_NOT_FOUND', message: 'Attachment data not found' });
      return;
    }
    const which = kept !== undefined ? `kept:${key}` : `new:${key}`;
    if (taken.has(which)) return;
    taken.add(which);
    const attachment: Json = kept !== undefined ? { ...kept } : files.attach([upload!])[0]!;
    if (typeof entry.description === 'string') attachment.description = entry.description;
    else if (entry.description === null && kept !== undefined) delete attachment.description;
    out.push(attachment);
  });
  if (Object.keys(tree).length > 0) throw invalidFormBody(tree);
  return out;
}

/**
 * Apply an edit (v10 semantics: given fields replace; attachments as `editedAttachments` resolves them against
 * the message's own and the files of the request). `at` is the body's path prefix for errors.
 */
export function editMessage(msg: Json, patch: Json, files: EditUploads = NO_UPLOADS, at: readonly string[] = []): Json {
  const out: Json = { ...msg };
  for (const key of ['content', 'embeds', 'components', 'allowed_mentions', 'poll'] as const) {
    if (patch[key] !== undefined) out[key] = patch[key] ?? (key === 'content' ? '' : key === 'poll' ? undefined : []);
  }
  if (patch.embeds !== undefined) out.embeds = storedEmbeds(out.embeds);
  if (patch.components !== undefined) out.components = storedComponents(out.components);
  out.attachments = editedAttachments(msg.attachments, patch, files, at);
  let flags = typeof msg.flags === 'number' ? msg.flags : 0;
  // Editing a deferred response makes it a real message.
  flags &= ~MessageFlags.LOADING;
  if (typeof patch.flags === 'number') flags = (flags & ~EDITABLE_FLAGS) | (patch.flags & EDITABLE_FLAGS);
  out.flags = flags;
  out.edited_timestamp = new Date().toISOString();
  return out;
}
