/**
 * docs/configuration.md's reference is generated from the configuration schema (scripts/config-reference.ts), and
 * stays true: every key the schema accepts has a row, with its environment variable and the default the runtime
 * really applies, and the generated part is what the generator writes today.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { afterAll, describe, expect, it } from 'vitest';
import { CONFIG_ENV_BINDINGS, ConfigSchema, loadConfig } from '../../src/runtime/config.js';
import { configKeys, DOC, generatedPart, NOTES, renderReference } from '../../scripts/config-reference.js';

const doc = readFileSync(DOC, 'utf8');
const generated = generatedPart(doc) ?? '';

/** The schema's leaf keys, read from zod's own JSON Schema (not from the generator's walk). */
function schemaKeys(): string[] {
  const out: string[] = [];
  const walk = (node: { properties?: Record<string, unknown> }, path: string[]): void => {
    for (const [name, child] of Object.entries(node.properties ?? {})) {
      const c = child as { type?: string; properties?: Record<string, unknown> };
      if (c.type === 'object' && c.properties !== undefined) walk(c, [...path, name]);
      else out.push([...path, name].join('.'));
    }
  };
  walk(z.toJSONSchema(ConfigSchema, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, unknown> }, []);
  return out;
}

/** The rows of a generated reference, by key. */
function rows(text: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const m = /^\| `([^`]+)` \|(.*)\|$/.exec(line);
    if (m !== null) out.set(m[1]!, m[2]!.split(/(?<!\\)\|/).map((c) => c.trim()));
  }
  return out;
}

/** Keys of the schema that a reference has no row for. */
function missingKeys(text: string, keys: readonly string[]): string[] {
  const have = rows(text);
  return keys.filter((k) => !have.has(k));
}

const scratch = mkdtempSync(join(tmpdir(), 'gatehouse-config-doc-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('docs/configuration.md', () => {
  it('has the generated reference between its markers, as the generator writes it today', () => {
    expect(generated, 'markers missing: run `npm run docs:config` after restoring them').not.toBe('');
    expect(generated, 'stale: run `npm run docs:config`').toBe(renderReference());
  });

  it('has a row for every key of the schema', () => {
    const keys = schemaKeys();
    expect(keys.length).toBeGreaterThan(50);
    expect(keys).toContain('cluster.leaseMs');
    expect(missingKeys(generated, keys)).toEqual([]);
  });

  it('names every environment variable the loader reads, in its key\'s row', () => {
    const table = rows(generated);
    const wrong = CONFIG_ENV_BINDINGS.filter((b) => table.get(b.path.join('.'))?.[0] !== `\`${b.env}\``).map((b) => `${b.env} -> ${b.path.join('.')}`);
    expect(wrong).toEqual([]);
    expect(table.get('plugins.config')?.[0]).toBe('`GATEHOUSE_PLUGIN__<PLUGIN>__<KEY>`');
  });

  it('gives as default what the runtime applies when nothing is set', () => {
    const config = loadConfig({ dir: join(scratch, 'no-config'), cwd: scratch, env: {} }) as unknown as Record<string, unknown>;
    const at = (key: string): unknown => key.split('.').reduce<unknown>((node, k) => (node as Record<string, unknown> | undefined)?.[k], config);
    const wrong: string[] = [];
    for (const [key, cells] of rows(generated)) {
      const shown = cells[2]!;
      const actual = at(key);
      const expected = actual === undefined ? '' : `\`${JSON.stringify(actual).replace(/\|/g, '\\|')}\``;
      if (shown !== expected) wrong.push(`${key}: shown ${shown || '(none)'}, applied ${expected || '(none)'}`);
    }
    expect(wrong).toEqual([]);
  });

  it('keeps notes only for keys that exist', () => {
    const keys = new Set(configKeys().map((k) => k.key));
    expect([...NOTES.keys()].filter((k) => !keys.has(k))).toEqual([]);
  });

  it('the checks can fail: a reference without a key is caught', () => {
    const without = generated.split('\n').filter((l) => !l.startsWith('| `cluster.leaseMs` |')).join('\n');
    expect(missingKeys(without, schemaKeys())).toEqual(['cluster.leaseMs']);
    expect(generatedPart('no markers here')).toBeNull();
  });
});
