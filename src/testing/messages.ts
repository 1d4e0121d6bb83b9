/** Reading message objects the sandbox recorded: flags, components by custom_id. */
import type { APIMessage } from 'discord-api-types/v10';

/** Message flags a test asks about (values from the API's message flags). */
export const EPHEMERAL = 1 << 6;
/** The "thinking..." state of a deferred response, until the app edits it. */
export const LOADING = 1 << 7;

export function flagsOf(message: { flags?: unknown } | null | undefined): number {
  const flags = message?.flags;
  return typeof flags === 'number' ? flags : 0;
}

/** Every component object in a message (action rows, containers, sections and their accessories included). */
export function* componentsOf(value: unknown, depth = 0): Generator<Record<string, unknown>> {
  if (depth > 16 || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const item of value) yield* componentsOf(item, depth + 1);
    return;
  }
  const o = value as Record<string, unknown>;
  if (typeof o.type === 'number') yield o;
  if (o.components !== undefined) yield* componentsOf(o.components, depth + 1);
  if (o.accessory !== undefined) yield* componentsOf(o.accessory, depth + 1);
  if (o.component !== undefined) yield* componentsOf(o.component, depth + 1);
}

export function hasCustomId(message: { components?: unknown } | null | undefined, customId: string): boolean {
  if (message === null || message === undefined) return false;
  for (const c of componentsOf(message.components)) if (c.custom_id === customId) return true;
  return false;
}

/** The custom_ids on a message, for error messages that say what could have been clicked. */
export function customIdsOf(message: { components?: unknown } | null | undefined): string[] {
  const out: string[] = [];
  if (message === null || message === undefined) return out;
  for (const c of componentsOf(message.components)) if (typeof c.custom_id === 'string') out.push(c.custom_id);
  return out;
}

/** The sandbox's records are message objects as the API returns them. */
export function asMessage(record: Record<string, unknown>): APIMessage {
  return record as unknown as APIMessage;
}
