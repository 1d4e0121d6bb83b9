/**
 * What a component interaction (MESSAGE_COMPONENT) or a modal submission (MODAL_SUBMIT) carries, as typed
 * values: picked strings, or users, roles, channels and files with their resolved objects (protocol §14.2).
 * Resolved maps come from the wire, so they are read with own-property lookups only.
 */
import {
  ComponentType,
  type APIInteractionDataResolved,
  type APIMessageComponentInteractionData,
  type APIModalSubmission,
} from 'discord-api-types/v10';
import type { ResolvedAttachment, ResolvedChannel, ResolvedRole, ResolvedUser } from './options.js';

/** The component kinds a handler may declare, by the wire's component_type. */
export const COMPONENT_KINDS = {
  button: ComponentType.Button,
  stringSelect: ComponentType.StringSelect,
  userSelect: ComponentType.UserSelect,
  roleSelect: ComponentType.RoleSelect,
  mentionableSelect: ComponentType.MentionableSelect,
  channelSelect: ComponentType.ChannelSelect,
} as const;

export type ComponentKind = keyof typeof COMPONENT_KINDS;

/** What `ctx.values` holds for each kind. */
export interface ComponentValuesByKind {
  button: readonly [];
  stringSelect: readonly string[];
  userSelect: readonly ResolvedUser[];
  roleSelect: readonly ResolvedRole[];
  mentionableSelect: ReadonlyArray<ResolvedUser | ResolvedRole>;
  channelSelect: readonly ResolvedChannel[];
}

export type AnyComponentValues = ComponentValuesByKind[ComponentKind];

function own<T>(map: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return map !== undefined && Object.prototype.hasOwnProperty.call(map, key) ? map[key] : undefined;
}

export function kindOfComponentType(type: number): ComponentKind | undefined {
  for (const [kind, value] of Object.entries(COMPONENT_KINDS)) if (value === type) return kind as ComponentKind;
  return undefined;
}

function user(id: string, resolved: APIInteractionDataResolved | undefined): ResolvedUser {
  return { kind: 'user', id, user: own(resolved?.users, id), member: own(resolved?.members, id) };
}
function role(id: string, resolved: APIInteractionDataResolved | undefined): ResolvedRole {
  return { kind: 'role', id, role: own(resolved?.roles, id) };
}
function channel(id: string, resolved: APIInteractionDataResolved | undefined): ResolvedChannel {
  return { kind: 'channel', id, channel: own(resolved?.channels, id) };
}
function attachment(id: string, resolved: APIInteractionDataResolved | undefined): ResolvedAttachment {
  return { kind: 'attachment', id, attachment: own(resolved?.attachments, id) };
}
/** A mentionable id names a user or a role; the resolved data says which. */
function mentionable(id: string, resolved: APIInteractionDataResolved | undefined): ResolvedUser | ResolvedRole {
  return own(resolved?.roles, id) !== undefined ? role(id, resolved) : user(id, resolved);
}

function stringList(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** Typed values of a clicked button (none) or a select menu (picked values, with resolved objects). */
export function componentValues(data: APIMessageComponentInteractionData): AnyComponentValues {
  const raw = stringList((data as { values?: unknown }).values);
  const resolved = (data as { resolved?: APIInteractionDataResolved }).resolved;
  switch (data.component_type) {
    case ComponentType.StringSelect:
      return raw;
    case ComponentType.UserSelect:
      return raw.map((id) => user(id, resolved));
    case ComponentType.RoleSelect:
      return raw.map((id) => role(id, resolved));
    case ComponentType.MentionableSelect:
      return raw.map((id) => mentionable(id, resolved));
    case ComponentType.ChannelSelect:
      return raw.map((id) => channel(id, resolved));
    default:
      return [];
  }
}

/** One submitted modal field. */
export type ModalField =
  | { readonly kind: 'text'; readonly customId: string; readonly value: string }
  | { readonly kind: 'stringSelect'; readonly customId: string; readonly values: readonly string[] }
  | { readonly kind: 'userSelect'; readonly customId: string; readonly values: readonly ResolvedUser[] }
  | { readonly kind: 'roleSelect'; readonly customId: string; readonly values: readonly ResolvedRole[] }
  | { readonly kind: 'mentionableSelect'; readonly customId: string; readonly values: ReadonlyArray<ResolvedUser | ResolvedRole> }
  | { readonly kind: 'channelSelect'; readonly customId: string; readonly values: readonly ResolvedChannel[] }
  /** A file upload component: 0 to 10 files (protocol §S8), each with its attachment object. */
  | { readonly kind: 'files'; readonly customId: string; readonly values: readonly ResolvedAttachment[] }
  | { readonly kind: 'radio'; readonly customId: string; readonly value: string | null }
  | { readonly kind: 'checkboxes'; readonly customId: string; readonly values: readonly string[] }
  | { readonly kind: 'checkbox'; readonly customId: string; readonly value: boolean };

function field(component: Record<string, unknown>, resolved: APIInteractionDataResolved | undefined): ModalField | null {
  const customId = component.custom_id;
  if (typeof customId !== 'string') return null;
  const values = stringList(component.values);
  switch (component.type) {
    case ComponentType.TextInput:
      return { kind: 'text', customId, value: typeof component.value === 'string' ? component.value : '' };
    case ComponentType.StringSelect:
      return { kind: 'stringSelect', customId, values };
    case ComponentType.UserSelect:
      return { kind: 'userSelect', customId, values: values.map((id) => user(id, resolved)) };
    case ComponentType.RoleSelect:
      return { kind: 'roleSelect', customId, values: values.map((id) => role(id, resolved)) };
    case ComponentType.MentionableSelect:
      return { kind: 'mentionableSelect', customId, values: values.map((id) => mentionable(id, resolved)) };
    case ComponentType.ChannelSelect:
      return { kind: 'channelSelect', customId, values: values.map((id) => channel(id, resolved)) };
    case ComponentType.FileUpload:
      return { kind: 'files', customId, values: values.map((id) => attachment(id, resolved)) };
    case ComponentType.RadioGroup:
      return { kind: 'radio', customId, value: typeof component.value === 'string' ? component.value : null };
    case ComponentType.CheckboxGroup:
      return { kind: 'checkboxes', customId, values };
    case ComponentType.Checkbox:
      return { kind: 'checkbox', customId, value: component.value === true };
    default:
      return null;
  }
}

/**
 * Every field of a modal submission by custom_id: text inputs in action rows (the older layout) and the
 * components inside labels (the current one). Text displays carry nothing and are skipped.
 */
export function modalFields(data: APIModalSubmission): ReadonlyMap<string, ModalField> {
  const out = new Map<string, ModalField>();
  const add = (c: unknown): void => {
    if (typeof c !== 'object' || c === null) return;
    const f = field(c as Record<string, unknown>, data.resolved);
    if (f !== null) out.set(f.customId, f);
  };
  for (const top of Array.isArray(data.components) ? data.components : []) {
    const t = top as unknown as Record<string, unknown>;
    if (t.type === ComponentType.ActionRow && Array.isArray(t.components)) for (const c of t.components) add(c);
    else if (t.type === ComponentType.Label) add(t.component);
  }
  return out;
}
