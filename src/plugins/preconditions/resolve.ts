/**
 * Which rules apply to a handler: the plugin's defaults (commands only), then the command's, then each subcommand
 * group's and subcommand's on the invoked path; a level replaces the rules it names. Components and modals have
 * their own rules only.
 */
import type { GateTarget } from '../../interactions/router.js';
import { dict } from '../../util/dict.js';
import type { PluginDefinition } from '../types.js';
import type { ResolvedRules } from './evaluate.js';
import type { Preconditions } from './types.js';

interface Declares {
  readonly preconditions?: Preconditions;
  readonly name?: string;
  readonly type?: number;
  readonly options?: readonly Declares[];
}

/** The rules for `target`, or null when none are declared anywhere on its way. */
export function resolveRules(plugin: PluginDefinition, target: GateTarget): ResolvedRules | null {
  const levels: Array<{ bucket: string; rules: Preconditions }> = [];
  if (target.kind === 'command') {
    if (plugin.preconditions !== undefined) levels.push({ bucket: 'plugin', rules: plugin.preconditions });
    let at = target.command as Declares;
    let label = `/${target.command.name}`;
    if (at.preconditions !== undefined) levels.push({ bucket: label, rules: at.preconditions });
    for (const name of target.path) {
      const next = at.options?.find((o) => o.name === name && (o.type === 1 || o.type === 2));
      if (next === undefined) break;
      label = `${label} ${name}`;
      if (next.preconditions !== undefined) levels.push({ bucket: label, rules: next.preconditions });
      at = next;
    }
  } else {
    const own = (target.handler as Declares).preconditions;
    if (own !== undefined) levels.push({ bucket: target.label, rules: own });
  }
  if (levels.length === 0) return null;
  const merged = dict<unknown>();
  let cooldownBucket = target.label;
  for (const level of levels) {
    for (const [key, value] of Object.entries(level.rules)) {
      if (value === undefined) continue;
      merged[key] = value;
      if (key === 'cooldown') cooldownBucket = level.bucket;
    }
  }
  return { rules: merged as Preconditions, cooldownBucket, plugin: plugin.name, target: target.label, translations: plugin.preconditionTexts };
}
