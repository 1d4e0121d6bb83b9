/**
 * Admin API entries that act as the bot's users and read what the bot answered (a route table for ./api.ts):
 *
 *   POST   /_sandbox/invoke                            InvokeOptions + { wait?, settle? } -> interaction record
 *   POST   /_sandbox/autocomplete                      AutocompleteOptions + { wait?, settle? }
 *   POST   /_sandbox/component                         { messageId?, customId, values?, userId?, wait?, settle? }
 *                                                      (no messageId: the newest message with that component)
 *   POST   /_sandbox/modal                             { interactionId?, customId?, values: { custom_id: value }, wait?, settle? }
 *                                                      (no interactionId: the newest interaction answered with a modal)
 *   GET    /_sandbox/requests[?after=SEQ]              { last, requests }: REST requests answered (tokens left out)
 *   GET    /_sandbox/interactions/:id                  interaction record
 */
import type { AutocompleteOptions, InvokeOptions } from '../contract.js';
import type { SandboxCore } from '../core.js';
import { SandboxError } from '../errors.js';
import { findComponentMessage, findModalInteraction } from '../interactions/followon.js';
import { sendComponent, sendInteraction, sendModalSubmit, settle } from '../interactions/send.js';
import type { SandboxInteraction } from '../interactions/store.js';
import { bad, obj, optNumber, optString, optStrings, type Json } from './fields.js';
import { param, type AdminReply, type AdminRoute } from './types.js';

export function recordView(r: SandboxInteraction): Json {
  return { id: r.id, type: r.type, payload: r.payload, callbacks: r.callbacks, original: r.original, followups: r.followups };
}

function invokeOptions(o: Json): InvokeOptions {
  const name = optString(o, 'name');
  if (!name) throw bad('name is required');
  const out: InvokeOptions = { name };
  const type = optNumber(o, 'type');
  if (type !== undefined) {
    if (type !== 1 && type !== 2 && type !== 3 && type !== 4) throw bad('type must be 1, 2, 3 or 4');
    out.type = type;
  }
  for (const key of ['guildId', 'userId', 'targetId', 'locale', 'channelId'] as const) {
    const v = optString(o, key);
    if (v !== undefined) out[key] = v;
  }
  const sub = optStrings(o, 'subcommand');
  if (sub) out.subcommand = sub;
  if (o.options !== undefined) {
    const opts = obj(o.options);
    for (const [k, v] of Object.entries(opts)) {
      if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') throw bad(`options.${k} must be a string, number or boolean`);
    }
    out.options = opts as Record<string, string | number | boolean>;
  }
  const integration = optString(o, 'integration');
  if (integration !== undefined) {
    if (integration !== 'guild' && integration !== 'user') throw bad("integration must be 'guild' or 'user'");
    out.integration = integration;
  }
  const size = optNumber(o, 'attachmentSize');
  if (size !== undefined) out.attachmentSize = size;
  return out;
}

/** The record, once the bot has answered when the body asks to wait (`wait` and `settle` in ms, bounded). */
async function answered(record: SandboxInteraction, o: Json): Promise<AdminReply> {
  const wait = optNumber(o, 'wait') ?? 0;
  if (wait > 0) await settle(record, Math.min(wait, 60_000), Math.min(optNumber(o, 'settle') ?? 500, 30_000));
  return { status: 201, body: recordView(record) };
}

function invoke(core: SandboxCore, body: unknown, autocomplete: boolean): Promise<AdminReply> {
  const o = obj(body);
  const options = invokeOptions(o);
  let record: SandboxInteraction;
  if (autocomplete) {
    const focused = optString(o, 'focused');
    if (!focused) throw bad('focused (the option being typed) is required');
    record = sendInteraction(core, { ...options, focused } satisfies AutocompleteOptions, true);
  } else {
    record = sendInteraction(core, options, false);
  }
  return answered(record, o);
}

function component(core: SandboxCore, body: unknown): Promise<AdminReply> {
  const o = obj(body);
  const customId = optString(o, 'customId');
  if (!customId) throw bad('customId is required');
  const messageId = optString(o, 'messageId') ?? findComponentMessage(core, customId);
  if (!messageId) throw new SandboxError('UNKNOWN_INTERACTION', `no message the app sent has a component with custom_id '${customId}'`);
  const values = optStrings(o, 'values');
  const userId = optString(o, 'userId');
  const locale = optString(o, 'locale');
  const record = sendComponent(core, { messageId, customId, ...(values ? { values } : {}), ...(userId ? { userId } : {}), ...(locale ? { locale } : {}) });
  return answered(record, o);
}

function modal(core: SandboxCore, body: unknown): Promise<AdminReply> {
  const o = obj(body);
  const modalId = optString(o, 'customId');
  const interactionId = optString(o, 'interactionId') ?? findModalInteraction(core, modalId);
  if (!interactionId) throw new SandboxError('UNKNOWN_INTERACTION', `no interaction was answered with a modal${modalId !== undefined ? ` '${modalId}'` : ''}`);
  const values = obj(o.values ?? {});
  for (const [k, v] of Object.entries(values)) {
    if (typeof v !== 'string' && !(Array.isArray(v) && v.every((x) => typeof x === 'string'))) throw bad(`values.${k} must be a string or an array of strings`);
  }
  const record = sendModalSubmit(core, { interactionId, values: values as Record<string, string | string[]> });
  return answered(record, o);
}

function requests(core: SandboxCore, query: URLSearchParams): AdminReply {
  const after = Number(query.get('after') ?? '0');
  if (!Number.isInteger(after) || after < 0) throw bad('after must be a non-negative integer');
  return { status: 200, body: { last: core.journal.last, requests: core.journal.after(after) } };
}

export function interactionRoutes(core: SandboxCore): AdminRoute[] {
  return [
    { method: 'POST', path: '/invoke', handler: (ctx) => invoke(core, ctx.body, false) },
    { method: 'POST', path: '/autocomplete', handler: (ctx) => invoke(core, ctx.body, true) },
    { method: 'POST', path: '/component', handler: (ctx) => component(core, ctx.body) },
    { method: 'POST', path: '/modal', handler: (ctx) => modal(core, ctx.body) },
    { method: 'GET', path: '/requests', handler: (ctx) => requests(core, ctx.query) },
    {
      method: 'GET',
      path: '/interactions/:id',
      handler: (ctx) => {
        const id = param(ctx, 'id');
        const record = core.interactions.get(id);
        if (!record) throw new SandboxError('UNKNOWN_INTERACTION', `unknown interaction ${id}`);
        return { status: 200, body: recordView(record) };
      },
    },
  ];
}
