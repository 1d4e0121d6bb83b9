/**
 * Embeds and components of a message as the service stores and returns them, not as the request gave them: an
 * embed gains `type: "rich"` and each field its `inline` (false unless given); every component gains a numeric
 * `id`, generated sequentially where the request left it out or sent 0, skipping ids the message already uses
 * (discord-api-docs, components reference, "Anatomy of a Component"). A bot that reads its message back sees
 * what it would see from the service.
 */
import { isObject } from '../../util/is-object.js';

type Json = Record<string, unknown>;

/** The embeds of a stored message (anything that is not an object stays as it is; validation is elsewhere). */
export function storedEmbeds(embeds: unknown): unknown[] {
  if (!Array.isArray(embeds)) return [];
  return embeds.map((embed: unknown) => {
    if (!isObject(embed)) return embed;
    const out: Json = { type: 'rich', ...embed };
    if (Array.isArray(embed.fields)) out.fields = embed.fields.map((f: unknown) => (isObject(f) ? { ...f, inline: f.inline ?? false } : f));
    return out;
  });
}

/** Where a component keeps its children: rows and containers a list, a section its accessory, a label its component. */
function children(component: Json): Json[] {
  const out: Json[] = [];
  if (Array.isArray(component.components)) for (const c of component.components) if (isObject(c)) out.push(c);
  if (isObject(component.accessory)) out.push(component.accessory);
  if (isObject(component.component)) out.push(component.component);
  return out;
}

function copyTree(component: Json): Json {
  const out: Json = { ...component };
  if (Array.isArray(component.components)) out.components = component.components.map((c: unknown) => (isObject(c) ? copyTree(c) : c));
  if (isObject(component.accessory)) out.accessory = copyTree(component.accessory);
  if (isObject(component.component)) out.component = copyTree(component.component);
  return out;
}

/** The components of a stored message, every one with its id (copies; the request's objects stay untouched). */
export function storedComponents(components: unknown): unknown[] {
  if (!Array.isArray(components)) return [];
  const top = components.map((c: unknown) => (isObject(c) ? copyTree(c) : c));
  const taken = new Set<number>();
  const walk = (list: readonly Json[], visit: (c: Json) => void): void => {
    for (const c of list) {
      visit(c);
      walk(children(c), visit);
    }
  };
  const objects = top.filter(isObject);
  walk(objects, (c) => {
    if (typeof c.id === 'number' && c.id !== 0) taken.add(c.id);
  });
  let next = 1;
  walk(objects, (c) => {
    if (typeof c.id === 'number' && c.id !== 0) return;
    while (taken.has(next)) next++;
    c.id = next;
    taken.add(next);
  });
  return top;
}
