/**
 * Replays the service's documented request/response pairs (test/fixtures/service-reference, written from the
 * public documentation, independent of src/commands) against the sandbox over HTTP. See that folder's README for
 * the format.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { api } from './helpers.js';

const DIR = join(import.meta.dirname, '../fixtures/service-reference');

interface Step {
  note?: string;
  auth?: string;
  request: { method: string; path: string; headers?: Record<string, string>; body?: unknown };
  response: { status: number; body?: unknown; absent?: string[]; exactErrors?: boolean; empty?: boolean };
  save?: Record<string, string>;
}

interface Fixture {
  title: string;
  source: string[];
  setup?: { activities?: boolean };
  steps: Step[];
}

const fixtures = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => ({ file: f, fixture: JSON.parse(readFileSync(join(DIR, f), 'utf8')) as Fixture }));

const sandboxes: Sandbox[] = [];
afterAll(async () => {
  for (const sb of sandboxes.splice(0)) await sb.close();
});

function substitute(value: unknown, vars: Map<string, string>): unknown {
  if (typeof value === 'string') return value.replace(/\{([a-z_]+)\}/g, (m, name: string) => vars.get(name) ?? m);
  if (Array.isArray(value)) return value.map((v) => substitute(v, vars));
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = substitute(v, vars);
    return out;
  }
  return value;
}

/** Subset match; returns the first difference as a path and reason, or null. */
function mismatch(expected: unknown, actual: unknown, path = ''): string | null {
  if (expected === '<snowflake>') return typeof actual === 'string' && /^\d{17,20}$/.test(actual) ? null : `${path}: expected a snowflake, got ${JSON.stringify(actual)}`;
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${path}: expected an array, got ${JSON.stringify(actual)}`;
    if (actual.length !== expected.length) return `${path}: expected ${expected.length} elements, got ${actual.length}`;
    for (let i = 0; i < expected.length; i++) {
      const m = mismatch(expected[i], actual[i], `${path}.${i}`);
      if (m) return m;
    }
    return null;
  }
  if (typeof expected === 'object' && expected !== null) {
    if (typeof actual !== 'object' || actual === null || Array.isArray(actual)) return `${path}: expected an object, got ${JSON.stringify(actual)}`;
    for (const [k, v] of Object.entries(expected)) {
      if (!Object.hasOwn(actual, k)) return `${path}.${k}: missing`;
      const m = mismatch(v, (actual as Record<string, unknown>)[k], `${path}.${k}`);
      if (m) return m;
    }
    return null;
  }
  return Object.is(expected, actual) ? null : `${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
}

function at(value: unknown, dotted: string): { found: boolean } {
  let node: unknown = value;
  for (const seg of dotted.split('.')) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, seg)) return { found: false };
    node = (node as Record<string, unknown>)[seg];
  }
  return { found: true };
}

/** `path code message` for every inner error of a 50035 tree (extra fields of inner errors ignored). */
function flatten(tree: unknown, path: string[] = []): string[] {
  if (typeof tree !== 'object' || tree === null) return [];
  const out: string[] = [];
  for (const [k, v] of Object.entries(tree)) {
    if (k === '_errors' && Array.isArray(v)) for (const e of v as Array<{ code: string; message: string }>) out.push(`${path.join('.')} ${e.code} ${e.message}`);
    else out.push(...flatten(v, [...path, k]));
  }
  return out.sort();
}

async function token(sb: Sandbox, auth: string | undefined): Promise<{ token?: string; bearer?: string }> {
  if (auth === undefined || auth === 'bot') return { token: sb.botToken };
  const [kind, scopes = ''] = auth.split(':');
  if (kind === 'bearer') return { bearer: sb.issueBearerToken(scopes.split(' ')) };
  if (kind === 'client_credentials') {
    const base = sb.restUrl.replace(/\/v10$/, '');
    const form = new URLSearchParams({ grant_type: 'client_credentials', scope: scopes, client_id: sb.clientId, client_secret: sb.clientSecret });
    const r = await fetch(`${base}/v10/oauth2/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form });
    const body = (await r.json()) as { access_token: string };
    return { bearer: body.access_token };
  }
  throw new Error(`unknown auth ${auth}`);
}

describe('the service reference (documented request/response pairs)', () => {
  it('has fixtures', () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(10);
    for (const { fixture } of fixtures) expect(fixture.source.length).toBeGreaterThan(0);
  });

  for (const { file, fixture } of fixtures) {
    it(`${file}: ${fixture.title}`, async () => {
      const options: SandboxOptions = { seed: { guilds: 1, membersPerGuild: 5 }, activities: fixture.setup?.activities ?? false };
      const sb = await createSandbox(options);
      sandboxes.push(sb);
      const guildId = sb.state.guildIds[0]!;
      const channels = (await api(sb.restUrl, 'GET', `/guilds/${guildId}/channels`, { token: sb.botToken })).body as Array<{ id: string; type: number }>;
      const vars = new Map<string, string>([
        ['application_id', sb.applicationId],
        ['guild_id', guildId],
        ['channel_id', channels.find((c) => c.type === 0)!.id],
      ]);
      for (const [i, step] of fixture.steps.entries()) {
        const where = `${file} step ${i} (${step.request.method} ${step.request.path})`;
        const path = substitute(step.request.path, vars) as string;
        const r = await api(sb.restUrl, step.request.method, path, {
          ...(await token(sb, step.auth)),
          ...(step.request.body !== undefined ? { body: substitute(step.request.body, vars) } : {}),
          ...(step.request.headers ? { headers: step.request.headers } : {}),
        });
        expect(r.status, `${where}: status; body ${JSON.stringify(r.body)}`).toBe(step.response.status);
        if (step.response.empty) expect(r.body, where).toBeUndefined();
        if (step.response.body !== undefined) expect(mismatch(substitute(step.response.body, vars), r.body), where).toBeNull();
        for (const p of step.response.absent ?? []) expect(at(r.body, p).found, `${where}: ${p} must be absent`).toBe(false);
        if (step.response.exactErrors) {
          const documented = flatten((step.response.body as { errors?: unknown }).errors);
          expect(flatten((r.body as { errors?: unknown }).errors), where).toEqual(documented);
        }
        for (const [name, key] of Object.entries(step.save ?? {})) vars.set(name, String((r.body as Record<string, unknown>)[key]));
      }
    });
  }
});
