/**
 * How the sandbox verbs print what the bot answered: the interaction's responses (with message ids and the
 * custom_ids of their components, so the next click can be typed), and REST requests the bot made.
 */
import { cli, shellQuote } from './hint.js';
import type { JournalEntry } from './sandbox-client.js';
import { walkComponents } from '../sandbox/interactions/followon.js';
import { isObject } from '../util/is-object.js';

export interface AdminRecord {
  id: string;
  type: number;
  payload: Record<string, unknown>;
  callbacks: Array<{ type: number; data?: Record<string, unknown> }>;
  original: Record<string, unknown> | null;
  followups: Array<Record<string, unknown>>;
}

const CALLBACK_NAMES: ReadonlyMap<number, string> = new Map([
  [1, 'PONG'],
  [4, 'CHANNEL_MESSAGE_WITH_SOURCE'],
  [5, 'DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE'],
  [6, 'DEFERRED_UPDATE_MESSAGE'],
  [7, 'UPDATE_MESSAGE'],
  [8, 'APPLICATION_COMMAND_AUTOCOMPLETE_RESULT'],
  [9, 'MODAL'],
  [10, 'PREMIUM_REQUIRED'],
  [12, 'LAUNCH_ACTIVITY'],
]);

const COMPONENT_NAMES: ReadonlyMap<number, string> = new Map([
  [2, 'button'],
  [3, 'select'],
  [4, 'text input'],
  [5, 'user select'],
  [6, 'role select'],
  [7, 'mentionable select'],
  [8, 'channel select'],
  [19, 'file upload'],
]);

type Obj = Record<string, unknown>;

/** Components a user can use, with the command that uses them. */
function interactive(components: unknown, indent: string): string[] {
  const lines: string[] = [];
  for (const c of walkComponents(components)) {
    if (typeof c.custom_id !== 'string' || typeof c.type !== 'number') continue;
    const name = COMPONENT_NAMES.get(c.type) ?? `component type ${c.type}`;
    const label = typeof c.label === 'string' ? ` "${c.label}"` : typeof c.placeholder === 'string' ? ` "${c.placeholder}"` : '';
    const off = c.disabled === true ? ' (disabled)' : '';
    const id = shellQuote(c.custom_id);
    let how = '';
    if (c.type === 2) how = cli('sandbox click', id);
    else if (c.type === 3) {
      const first = Array.isArray(c.options) && isObject(c.options[0]) ? String(c.options[0].value) : 'VALUE';
      how = cli('sandbox select', id, shellQuote(first));
    } else if (c.type >= 5 && c.type <= 8) how = cli('sandbox select', id, 'ID');
    lines.push(`${indent}[${name}${label}] custom_id ${c.custom_id}${off}${how !== '' && off === '' ? `    ${how}` : ''}`);
  }
  return lines;
}

export function describeMessage(msg: Obj, indent: string): string[] {
  const lines: string[] = [];
  const flags = typeof msg.flags === 'number' ? msg.flags : 0;
  const tags = [(flags & 64) !== 0 ? 'ephemeral' : null, (flags & 128) !== 0 ? 'thinking…' : null, (flags & (1 << 15)) !== 0 ? 'components v2' : null].filter(Boolean);
  const content = typeof msg.content === 'string' ? msg.content : '';
  if (content.length > 0) for (const line of content.split('\n')) lines.push(`${indent}${line}`);
  for (const e of Array.isArray(msg.embeds) ? (msg.embeds as Obj[]) : []) {
    const parts = [e.title, e.description].filter((x) => typeof x === 'string' && x.length > 0);
    lines.push(`${indent}[embed] ${parts.join(' — ') || '(no text)'}`);
  }
  for (const c of walkComponents(msg.components)) if (c.type === 10 && typeof c.content === 'string') lines.push(`${indent}${c.content}`);
  lines.push(...interactive(msg.components, indent));
  if (tags.length > 0) lines.push(`${indent}(${tags.join(', ')})`);
  if (lines.length === 0) lines.push(`${indent}(empty)`);
  if (typeof msg.id === 'string') lines.push(`${indent}message ${msg.id}`);
  return lines;
}

function describeModal(data: Obj): string[] {
  const out = [`  modal: ${String(data.title)} (custom_id ${String(data.custom_id)})`];
  const fields: string[] = [];
  for (const c of walkComponents(data.components)) {
    if (typeof c.custom_id !== 'string') continue;
    const name = COMPONENT_NAMES.get(c.type as number) ?? `type ${String(c.type)}`;
    out.push(`    [${name}] ${c.custom_id}${c.required === false ? ' (optional)' : ''}`);
    fields.push(`${c.custom_id}:${c.type === 19 ? 'file.png' : c.type === 4 ? 'TEXT' : 'VALUE'}`);
  }
  out.push(`  submit: ${cli('sandbox modal', ...fields.map(shellQuote))}`);
  return out;
}

export function describeRecord(r: AdminRecord): string[] {
  const out: string[] = [];
  const first = r.callbacks[0];
  if (!first) return ['no response'];
  out.push(`response: ${CALLBACK_NAMES.get(first.type) ?? 'type'} (${first.type})`);
  const data = first.data ?? {};
  if (first.type === 8) {
    const choices = Array.isArray(data.choices) ? (data.choices as Array<{ name: unknown; value: unknown }>) : [];
    out.push(`  choices: ${choices.map((c) => `${String(c.name)} = ${JSON.stringify(c.value)}`).join(', ') || '(none)'}`);
  } else if (first.type === 9) {
    out.push(...describeModal(data));
  } else if (first.type === 4 || first.type === 7) {
    out.push(...describeMessage(r.original ?? data, '  '));
  } else if (first.type === 6) {
    out.push(r.original !== null ? 'the message now reads:' : '  (acknowledged; the message is unchanged)');
    if (r.original !== null) out.push(...describeMessage(r.original, '  '));
  }
  if (first.type === 5 && r.original) {
    out.push('original response:');
    out.push(...describeMessage(r.original, '  '));
  }
  r.followups.forEach((f, i) => {
    out.push(`follow-up ${i + 1}:`);
    out.push(...describeMessage(f, '  '));
  });
  return out;
}

/** REST requests the bot made, one line each with a short body. */
export function describeRequests(requests: readonly JournalEntry[]): string[] {
  if (requests.length === 0) return ['the bot made no request in answer'];
  return [
    'the bot answered with:',
    ...requests.map((r) => {
      const body = r.body === undefined ? '' : ` ${JSON.stringify(r.body)}`;
      return `  ${r.method} ${r.path} -> ${r.status}${body.length > 200 ? `${body.slice(0, 197)}...` : body}`;
    }),
  ];
}
