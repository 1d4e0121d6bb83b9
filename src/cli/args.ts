/**
 * Argument parsing for every verb: one table per verb (node:util parseArgs), from which `--help` is
 * generated, so what a verb accepts and what its help says cannot drift apart. Bad usage exits 2 with the
 * reason and the usage line; `--help` exits 0.
 */
import { parseArgs } from 'node:util';
import { isSnowflake, SNOWFLAKE_RULE } from '../api/snowflake.js';
import type { CliIo } from './io.js';

export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  readonly short?: string;
  readonly multiple?: boolean;
  /** Placeholder shown in help for a value (`ID`, `N`). */
  readonly value?: string;
  /** The value is an id: refused (exit 2) unless it passes the one snowflake rule. */
  readonly id?: boolean;
  readonly help: string;
}

export interface VerbSpec {
  /** As typed after `gatehouse`, e.g. `sandbox click`. */
  readonly verb: string;
  /** Positional arguments as shown in the usage line, e.g. `CUSTOM_ID [VALUE ...]`. */
  readonly args?: string;
  readonly summary: string;
  readonly options: Readonly<Record<string, OptionSpec>>;
  /** How many positionals the verb takes (default 0). */
  readonly positionals?: { min?: number; max?: number; /** Each positional is an id (the snowflake rule). */ ids?: boolean };
  /** Lines after the options: examples, notes. */
  readonly notes?: readonly string[];
}

export type Values = Record<string, string | boolean | string[] | undefined>;

export interface Parsed {
  values: Values;
  positionals: string[];
}

export class UsageError extends Error {}

function usageLine(spec: VerbSpec): string {
  return `usage: gatehouse ${spec.verb}${spec.args !== undefined ? ` ${spec.args}` : ''}${Object.keys(spec.options).length > 0 ? ' [options]' : ''}`;
}

/** The help text of a verb, from its table. */
export function helpText(spec: VerbSpec): string {
  const lines = [usageLine(spec), '', spec.summary, '', 'options:'];
  const entries = Object.entries(spec.options);
  const left = entries.map(([name, o]) => `  ${o.short !== undefined ? `-${o.short}, ` : ''}--${name}${o.type === 'string' ? ` ${o.value ?? 'VALUE'}` : ''}`);
  const width = Math.max(...left.map((l) => l.length), 12) + 2;
  entries.forEach(([, o], i) => lines.push(`${left[i]!.padEnd(width)}${o.help}${o.multiple === true ? ' (repeatable)' : ''}`));
  lines.push(`${'  -h, --help'.padEnd(width)}show this help`);
  if (spec.notes !== undefined && spec.notes.length > 0) lines.push('', ...spec.notes);
  return lines.join('\n');
}

/**
 * Parse a verb's arguments. Returns the parsed values, or the exit code when the verb is done already
 * (0 after printing help, 2 after a usage error).
 */
export function parseVerb(spec: VerbSpec, args: readonly string[], io: CliIo): Parsed | number {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: [...args],
      options: {
        ...Object.fromEntries(
          Object.entries(spec.options).map(([name, o]) => [
            name,
            { type: o.type, ...(o.short !== undefined ? { short: o.short } : {}), ...(o.multiple === true ? { multiple: true } : {}) },
          ]),
        ),
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    io.err(`gatehouse ${spec.verb}: ${err instanceof Error ? err.message : String(err)}\n${usageLine(spec)}  (--help for more)`);
    return 2;
  }
  if (parsed.values.help === true) {
    io.out(helpText(spec));
    return 0;
  }
  const count = parsed.positionals.length;
  const min = spec.positionals?.min ?? 0;
  const max = spec.positionals?.max ?? 0;
  if (count < min || count > max) {
    const why = count < min ? `missing ${spec.args ?? 'arguments'}` : `unexpected argument '${parsed.positionals[max]!}'`;
    io.err(`gatehouse ${spec.verb}: ${why}\n${usageLine(spec)}  (--help for more)`);
    return 2;
  }
  const values = parsed.values as Values;
  const badId = firstBadId(spec, values, parsed.positionals);
  if (badId !== null) {
    io.err(`gatehouse ${spec.verb}: ${badId}\n${usageLine(spec)}  (--help for more)`);
    return 2;
  }
  return { values, positionals: parsed.positionals };
}

function firstBadId(spec: VerbSpec, values: Values, positionals: readonly string[]): string | null {
  for (const [name, o] of Object.entries(spec.options)) {
    if (o.id !== true) continue;
    for (const v of list(values, name)) if (!isSnowflake(v)) return `--${name} must be ${SNOWFLAKE_RULE}; got ${JSON.stringify(v)}`;
  }
  if (spec.positionals?.ids === true) {
    for (const v of positionals) if (!isSnowflake(v)) return `${spec.args ?? 'the argument'} must be ${SNOWFLAKE_RULE}; got ${JSON.stringify(v)}`;
  }
  return null;
}

export function str(values: Values, name: string): string | undefined {
  const v = values[name];
  return typeof v === 'string' ? v : undefined;
}

export function list(values: Values, name: string): string[] {
  const v = values[name];
  return Array.isArray(v) ? v : typeof v === 'string' ? [v] : [];
}

/** An integer option, or undefined when absent; throws UsageError when it is not one. */
export function int(values: Values, name: string, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
  const v = str(values, name);
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max) throw new UsageError(`--${name} must be an integer from ${min}${max < Number.MAX_SAFE_INTEGER ? ` to ${max}` : ''}; got ${v}`);
  return n;
}
