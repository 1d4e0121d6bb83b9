/**
 * What the host checks when a plugin loads: custom_id overlaps across plugins (a load error naming both),
 * the plugin's config section against its schema, environment settings, and sections naming no plugin.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { pluginEnvSettings } from '../../src/plugins/config-section.js';
import { PluginHost, type SharedServices } from '../../src/plugins/host.js';
import { PluginLoadError } from '../../src/plugins/loader.js';
import type { PluginDefinition } from '../../src/plugins/types.js';
import { definePlugin } from '../../src/plugins/define.js';
import { createLogger } from '../../src/runtime/logger.js';
import { LogSink } from './helpers.js';

const services = { applicationId: '1', cache: {}, rest: {}, requestMembers: async () => ({}) } as unknown as SharedServices;
const source = (name: string) => ({ file: `/p/${name}.ts`, label: `plugins/${name}.ts` });
const run = () => undefined;

function makeHost(options: { pluginConfig?: Record<string, unknown>; env?: NodeJS.ProcessEnv } = {}) {
  const logs = new LogSink();
  const host = new PluginHost({
    log: createLogger({ level: 'debug', pretty: false, destination: logs }),
    services,
    ...(options.pluginConfig ? { pluginConfig: options.pluginConfig } : {}),
    pluginEnvironment: pluginEnvSettings(options.env ?? {}).settings,
  });
  return { host, logs };
}

function loadError(fn: () => void): PluginLoadError {
  try {
    fn();
  } catch (err) {
    if (err instanceof PluginLoadError) return err;
    throw err;
  }
  throw new Error('expected a PluginLoadError');
}

describe('custom_id handlers across plugins', () => {
  it('refuses an overlapping or duplicate pattern of another plugin, naming both plugins and an id both match', () => {
    const { host } = makeHost();
    host.add({ name: 'polls', components: [{ customId: 'poll:{id}:{choice}', run }], modals: [{ customId: 'form', run }] }, source('polls'));
    const overlap = loadError(() => host.add({ name: 'votes', components: [{ customId: 'poll:{x}:yes', run }] }, source('votes')));
    expect(overlap.message).toBe(
      'plugins/votes.ts: components[0].customId: custom_id pattern "poll:{x}:yes" of plugin "votes" overlaps "poll:{id}:{choice}" of plugin "polls": "poll:x:yes" would match both',
    );
    const duplicate = loadError(() => host.add({ name: 'forms', modals: [{ customId: 'form', run }] }, source('forms')));
    expect(duplicate.message).toBe('plugins/forms.ts: modals[0].customId: custom_id "form" of plugin "forms" is already handled by plugin "polls"');
    // Components and modals are separate: a modal may share a button's id.
    host.add({ name: 'other', modals: [{ customId: 'poll:{id}:{choice}', run }] }, source('other'));
    expect(host.loaded.map((p) => p.name)).toEqual(['polls', 'other']);
  });

  it('refuses two overlapping patterns inside one plugin; an exact id inside its own pattern is fine', () => {
    const { host } = makeHost();
    const err = loadError(() => host.add({ name: 'p', components: [{ customId: 'a:{x}', run }, { customId: 'a:{y}', run }] }, source('p')));
    expect(err.message).toMatch(/components\[1\]\.customId: custom_id pattern "a:\{y\}" of plugin "p" overlaps "a:\{x\}" of the same plugin/);
    host.add({ name: 'q', components: [{ customId: 'b:{x}', run }, { customId: 'b:new', run }] }, source('q'));
  });
});

describe('plugin config', () => {
  const schema = z.object({ skuId: z.string().regex(/^\d+$/), limit: z.number().int().max(10).default(3), greeting: z.string().optional() });

  it('checks the section against the plugin\'s schema and hands the parsed output to the plugin', () => {
    const { host } = makeHost({ pluginConfig: { shop: { skuId: '1234' } } });
    const shop = definePlugin({ name: 'shop', config: schema, setup: (ctx) => void ctx.config.limit });
    host.add(shop as PluginDefinition, source('shop'));
    expect(host.loaded[0]?.context.config).toEqual({ skuId: '1234', limit: 3 });
  });

  it('refuses a section that does not fit, naming the plugin, the key and the origin', () => {
    const { host } = makeHost({ pluginConfig: { shop: { skuId: 'abc', limit: 50 } } });
    const err = loadError(() => host.add({ name: 'shop', config: schema } as PluginDefinition, source('shop')));
    expect(err.problems).toHaveLength(2);
    expect(err.problems[0]).toMatch(/^plugins\.config\.shop\.skuId: /);
    expect(err.problems[1]).toMatch(/^plugins\.config\.shop\.limit: .*10/);
  });

  it('takes values from GATEHOUSE_PLUGIN__<PLUGIN>__<KEY>, matching names without case or separators', () => {
    const env = {
      GATEHOUSE_PLUGIN__WORD_COUNT__MAX_WORDS: '12',
      GATEHOUSE_PLUGIN__WORD_COUNT__SKU_ID: '123456789012345678',
      GATEHOUSE_PLUGIN__WORD_COUNT__GREETING: '42',
    };
    const { host } = makeHost({ env, pluginConfig: { 'word-count': { maxWords: 5 } } });
    const counter = z.object({ maxWords: z.number(), skuId: z.string(), greeting: z.string() });
    host.add({ name: 'word-count', config: counter } as PluginDefinition, source('word-count'));
    // The snowflake stays text (too long for a number); "42" is retried as text since the schema wants one.
    expect(host.loaded[0]?.context.config).toEqual({ maxWords: 12, skuId: '123456789012345678', greeting: '42' });
  });

  it('names the environment variable when its value does not fit', () => {
    const { host } = makeHost({ env: { GATEHOUSE_PLUGIN__SHOP__SKU_ID: 'nope' } });
    const err = loadError(() => host.add({ name: 'shop', config: schema } as PluginDefinition, source('shop')));
    expect(err.problems[0]).toMatch(/^plugins\.config\.shop\.skuId \(from environment variable GATEHOUSE_PLUGIN__SHOP__SKU_ID\): /);
  });

  it('reports sections and variables that name no plugin, with the closest name', () => {
    const { host } = makeHost({ pluginConfig: { premuim: { skuId: '1' }, dice: {} }, env: { GATEHOUSE_PLUGIN__DICES__SIDES: '6' } });
    host.add({ name: 'premium' }, source('premium'));
    host.add({ name: 'dice' }, source('dice'));
    expect(host.configProblems()).toEqual([
      'plugins.config.premuim: no plugin is named "premuim"; did you mean "premium"?',
      'GATEHOUSE_PLUGIN__DICES__SIDES: no plugin is named "DICES"; did you mean "DICE"?',
    ]);
  });

  it('reports the schema\'s own issue for an environment value, and no "no plugin is named" line', () => {
    const { host } = makeHost({ env: { GATEHOUSE_PLUGIN__TAVERN__MAX_DRINKS: '50' } });
    const tavern = z.object({ maxDrinks: z.number().max(10) });
    const err = loadError(() => host.add({ name: 'tavern', config: tavern } as PluginDefinition, source('tavern')));
    expect(err.problems).toEqual([
      'plugins.config.tavern.maxDrinks (from environment variable GATEHOUSE_PLUGIN__TAVERN__MAX_DRINKS): Too big: expected number to be <=10',
    ]);
    expect(host.configProblems()).toEqual([]);
  });

  it('refuses keys the plugin\'s schema does not declare, naming the plugin and the key path', () => {
    const tavern = z.object({ maxDrinks: z.number().default(3), limits: z.object({ perUser: z.number() }).optional() });
    const fromFile = makeHost({ pluginConfig: { tavern: { maxDrink: 5, limits: { perUser: 1, perGuild: 2 } } } });
    const err = loadError(() => fromFile.host.add({ name: 'tavern', config: tavern } as PluginDefinition, source('tavern')));
    expect(err.problems).toEqual([
      'plugins.config.tavern.maxDrink: unknown key; plugin "tavern" has "maxDrinks", "limits"',
      'plugins.config.tavern.limits.perGuild: unknown key; plugin "tavern" has "perUser"',
    ]);
    const fromEnv = makeHost({ env: { GATEHOUSE_PLUGIN__TAVERN__MAX_DRINK: '5' } });
    const envErr = loadError(() => fromEnv.host.add({ name: 'tavern', config: tavern } as PluginDefinition, source('tavern')));
    expect(envErr.problems).toEqual([
      'plugins.config.tavern.maxDrink (from environment variable GATEHOUSE_PLUGIN__TAVERN__MAX_DRINK): unknown key; plugin "tavern" has "maxDrinks", "limits"',
    ]);
    // A schema that takes extra keys on purpose keeps them.
    const loose = makeHost({ pluginConfig: { bag: { anything: 1 } } });
    loose.host.add({ name: 'bag', config: z.looseObject({}) } as PluginDefinition, source('bag'));
    expect(loose.host.loaded[0]?.context.config).toEqual({ anything: 1 });
  });

  it('refuses a malformed variable name at configuration time', () => {
    expect(pluginEnvSettings({ GATEHOUSE_PLUGIN__SHOP: '1' }).problems).toEqual([
      'GATEHOUSE_PLUGIN__SHOP: expected GATEHOUSE_PLUGIN__<PLUGIN>__<KEY> (double underscores between plugin and key)',
    ]);
  });
});
