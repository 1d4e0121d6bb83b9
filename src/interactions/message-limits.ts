/**
 * Local checks of what a handler sends, before it is sent: the limits of protocol §S8 (40 components in a message
 * with IS_COMPONENTS_V2, 5 action rows in a legacy message, 25 fields per embed, 0-10 files in a modal's file
 * upload) and the layout rules around them, so that a handler's author reads which field is wrong instead of
 * a 50035 from the service (or a silent "This interaction failed" for the user).
 *
 * `checkingTransport` wraps an InteractionTransport so every path (reply, update, edits, follow-ups, modals)
 * is checked, whatever transport carries the answer.
 */
import { ComponentType, InteractionResponseType, MessageFlags, type APIInteractionResponse } from 'discord-api-types/v10';
import type { InteractionTransport } from './rest-port.js';
import { isObject } from '../util/is-object.js';

/** Protocol §S8. */
export const MESSAGE_LIMITS = {
  componentsV2Total: 40,
  legacyActionRows: 5,
  embedFields: 25,
  embeds: 10,
  modalFileUploadMaxFiles: 10,
  modalTopLevelComponents: 5,
  modalTitle: 45,
  customId: 100,
} as const;

export interface LimitProblem {
  /** Field path inside the message body, e.g. `components[2].components[0]` or `embeds[0].fields`. */
  readonly path: string;
  readonly message: string;
}

export class MessageLimitError extends Error {
  constructor(
    readonly what: string,
    readonly problems: readonly LimitProblem[],
  ) {
    const lines = problems.map((p) => `${p.path}: ${p.message}`);
    super(`${what} not sent: ${lines.length === 1 ? lines[0] : `\n  ${lines.join('\n  ')}`}`);
    this.name = 'MessageLimitError';
  }
}


/** Component types that exist only in Components V2 messages. */
const V2_ONLY: ReadonlyMap<number, string> = new Map([
  [ComponentType.Section, 'Section'],
  [ComponentType.TextDisplay, 'Text Display'],
  [ComponentType.Thumbnail, 'Thumbnail'],
  [ComponentType.MediaGallery, 'Media Gallery'],
  [ComponentType.File, 'File'],
  [ComponentType.Separator, 'Separator'],
  [ComponentType.Container, 'Container'],
]);

/** Every component in a tree, nested ones included (rows, containers, sections' accessories, labels). */
function countComponents(nodes: unknown, depth = 0): number {
  if (!Array.isArray(nodes) || depth > 8) return 0;
  let n = 0;
  for (const node of nodes) {
    if (!isObject(node)) continue;
    n += 1 + countComponents(node.components, depth + 1);
    if (isObject(node.accessory)) n += 1 + countComponents(node.accessory.components, depth + 1);
    if (isObject(node.component)) n += 1;
  }
  return n;
}

/**
 * Problems of a message body (a reply, an update, an edit or a follow-up). An edit that does not send `flags`
 * keeps the message's own: when its components are not action rows, the message is taken to be V2 already.
 */
export function messageProblems(body: unknown, options: { edit?: boolean } = {}): LimitProblem[] {
  if (!isObject(body)) return [];
  const out: LimitProblem[] = [];
  const components = Array.isArray(body.components) ? (body.components as unknown[]) : [];
  const v2 =
    typeof body.flags === 'number'
      ? (body.flags & MessageFlags.IsComponentsV2) !== 0
      : options.edit === true && components.some((c) => isObject(c) && c.type !== ComponentType.ActionRow);
  if (v2) {
    const total = countComponents(components);
    if (total > MESSAGE_LIMITS.componentsV2Total) {
      out.push({
        path: 'components',
        message: `${total} components in total (nested ones count); a Components V2 message (flag 1 << 15) allows at most ${MESSAGE_LIMITS.componentsV2Total}`,
      });
    }
    if (typeof body.content === 'string' && body.content.length > 0) {
      out.push({ path: 'content', message: 'a Components V2 message (flag 1 << 15) carries no content; put the text in a Text Display component (type 10)' });
    }
    if (Array.isArray(body.embeds) && body.embeds.length > 0) {
      out.push({ path: 'embeds', message: 'a Components V2 message (flag 1 << 15) carries no embeds; use a Container (type 17) instead' });
    }
  } else {
    if (components.length > MESSAGE_LIMITS.legacyActionRows) {
      out.push({
        path: 'components',
        message: `${components.length} action rows; a message without Components V2 allows at most ${MESSAGE_LIMITS.legacyActionRows} (set flags: 1 << 15 for the 40-component layout)`,
      });
    }
    components.forEach((c, i) => {
      if (!isObject(c)) return;
      const name = typeof c.type === 'number' ? V2_ONLY.get(c.type) : undefined;
      if (name !== undefined) {
        out.push({ path: `components[${i}]`, message: `a ${name} component (type ${String(c.type)}) needs the IS_COMPONENTS_V2 flag (flags: 1 << 15)` });
      } else if (c.type !== ComponentType.ActionRow) {
        out.push({ path: `components[${i}]`, message: `top-level components of a message without Components V2 must be action rows (type 1), not type ${String(c.type)}` });
      }
    });
  }
  const embeds = Array.isArray(body.embeds) ? (body.embeds as unknown[]) : [];
  if (embeds.length > MESSAGE_LIMITS.embeds) out.push({ path: 'embeds', message: `${embeds.length} embeds; a message allows at most ${MESSAGE_LIMITS.embeds}` });
  embeds.forEach((e, i) => {
    if (!isObject(e) || !Array.isArray(e.fields)) return;
    if (e.fields.length > MESSAGE_LIMITS.embedFields) {
      out.push({ path: `embeds[${i}].fields`, message: `${e.fields.length} fields; an embed allows at most ${MESSAGE_LIMITS.embedFields}` });
    }
  });
  return out;
}

function length(v: unknown): number {
  return typeof v === 'string' ? [...v].length : -1;
}

/** Problems of a modal (callback type 9): custom_id, title, 1-5 components, file uploads of 0-10 files. */
export function modalProblems(modal: unknown): LimitProblem[] {
  if (!isObject(modal)) return [{ path: '(modal)', message: 'must be an object with custom_id, title and components' }];
  const out: LimitProblem[] = [];
  const id = length(modal.custom_id);
  if (id < 1 || id > MESSAGE_LIMITS.customId) out.push({ path: 'custom_id', message: `must be 1-${MESSAGE_LIMITS.customId} characters` });
  const title = length(modal.title);
  if (title < 1 || title > MESSAGE_LIMITS.modalTitle) out.push({ path: 'title', message: `must be 1-${MESSAGE_LIMITS.modalTitle} characters` });
  const components = Array.isArray(modal.components) ? (modal.components as unknown[]) : null;
  if (components === null || components.length < 1 || components.length > MESSAGE_LIMITS.modalTopLevelComponents) {
    out.push({ path: 'components', message: `a modal has 1-${MESSAGE_LIMITS.modalTopLevelComponents} top-level components; got ${components?.length ?? 0}` });
  }
  (components ?? []).forEach((top, i) => {
    if (!isObject(top)) return;
    const inner: Array<[unknown, string]> = [];
    if (isObject(top.component)) inner.push([top.component, `components[${i}].component`]);
    if (Array.isArray(top.components)) top.components.forEach((c: unknown, j: number) => inner.push([c, `components[${i}].components[${j}]`]));
    for (const [c, path] of inner) {
      if (!isObject(c) || c.type !== ComponentType.FileUpload) continue;
      const max = MESSAGE_LIMITS.modalFileUploadMaxFiles;
      for (const key of ['min_values', 'max_values'] as const) {
        const v = c[key];
        if (v !== undefined && (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > max)) {
          out.push({ path: `${path}.${key}`, message: `a file upload takes between 0 and ${max} files; got ${JSON.stringify(v)}` });
        }
      }
      const min = typeof c.min_values === 'number' ? c.min_values : 1;
      const most = typeof c.max_values === 'number' ? c.max_values : 1;
      if (min > most) out.push({ path: `${path}.min_values`, message: `${min} is more than max_values (${most})` });
    }
  });
  return out;
}

function check(what: string, problems: LimitProblem[]): void {
  if (problems.length > 0) throw new MessageLimitError(what, problems);
}

/** Check an initial response: message bodies of types 4 and 7, and modals (9). */
export function checkResponse(body: APIInteractionResponse): void {
  switch (body.type) {
    case InteractionResponseType.ChannelMessageWithSource:
      check('reply', messageProblems(body.data));
      break;
    case InteractionResponseType.UpdateMessage:
      // An update edits the message the component is on, which keeps its flags when none are sent.
      check('update', messageProblems(body.data, { edit: true }));
      break;
    case InteractionResponseType.Modal:
      check('modal', modalProblems(body.data));
      break;
    default:
      break;
  }
}

/** The transport with every outgoing body checked first; a problem rejects before anything is sent. */
export function checkingTransport(transport: InteractionTransport): InteractionTransport {
  return {
    async callback(interactionId, token, body) {
      checkResponse(body);
      return transport.callback(interactionId, token, body);
    },
    async editOriginal(applicationId, token, body) {
      check('edit', messageProblems(body, { edit: true }));
      return transport.editOriginal(applicationId, token, body);
    },
    deleteOriginal: (applicationId, token) => transport.deleteOriginal(applicationId, token),
    async followUp(applicationId, token, body) {
      check('follow-up', messageProblems(body));
      return transport.followUp(applicationId, token, body);
    },
    async editFollowUp(applicationId, token, messageId, body) {
      check('edit', messageProblems(body, { edit: true }));
      return transport.editFollowUp(applicationId, token, messageId, body);
    },
    deleteFollowUp: (applicationId, token, messageId) => transport.deleteFollowUp(applicationId, token, messageId),
  };
}
