/**
 * Entry points per audience, as package.json declares them and a bot imports them by name: `gatehouse` (plugin
 * API and every error class), `gatehouse/runtime` (embedders), `gatehouse/rest` (route helpers),
 * `gatehouse/sandbox` and `gatehouse/testing`. Every error class of src/ that can reach a user is exported by
 * `gatehouse` (the test kit's by `gatehouse/testing`) and has a stable `name`, its class name.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as root from 'gatehouse';
import * as rest from 'gatehouse/rest';
import * as runtime from 'gatehouse/runtime';
import * as sandbox from 'gatehouse/sandbox';
import * as testing from 'gatehouse/testing';
import { ROOT } from '../plugins/helpers.js';

type Exports = Record<string, unknown>;
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };

/** Error classes that never leave their module (or the CLI), with why. */
const INTERNAL_ERRORS: ReadonlyMap<string, string> = new Map([
  ['src/rest/transport.ts TransportFailure', 'becomes a NetworkError, TimeoutError or RequestAbortedError (its cause)'],
  ['src/cli/sandbox-client.ts AdminError', 'printed by the CLI'],
  ['src/cli/args.ts UsageError', 'printed by the CLI'],
  ['src/cli/commands-access.ts CannotTell', 'printed by the CLI'],
]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    return statSync(full).isDirectory() ? sourceFiles(full) : name.endsWith('.ts') ? [full] : [];
  });
}

/** `class X extends YError` in src/, with the text of the class up to the next top-level closing brace. */
function errorClasses(): Array<{ key: string; name: string; body: string }> {
  return sourceFiles(join(ROOT, 'src')).flatMap((file) => {
    const text = readFileSync(file, 'utf8');
    return [...text.matchAll(/^(?:export )?class (\w+) extends \w*Error\b[^]*?^\}/gm)].map((m) => ({
      key: `${relative(ROOT, file)} ${m[1]!}`,
      name: m[1]!,
      body: m[0],
    }));
  });
}

describe('package.json exports', () => {
  it('declares each entry point with its types, its build and its sources', () => {
    for (const entry of ['.', './runtime', './rest', './sandbox', './testing']) {
      const target = pkg.exports[entry] as Record<string, string>;
      expect(Object.keys(target), entry).toEqual(['gatehouse-source', 'types', 'default']);
      expect(statSync(join(ROOT, target['gatehouse-source']!)).isFile(), entry).toBe(true);
      expect(target.types!.replace(/\.d\.ts$/, '')).toBe(target.default!.replace(/\.js$/, ''));
    }
  });
});

describe('the entry points', () => {
  it('gatehouse: the plugin API, without the runtime or the sandbox', () => {
    for (const name of ['definePlugin', 'defineCommand', 'defineButton', 'computePermissions', 'evaluateCommandAccess', 'validateCommands']) {
      expect(typeof (root as Exports)[name], name).toBe('function');
    }
    for (const name of ['Runtime', 'createSandbox', 'RestClient', 'ShardManager']) expect((root as Exports)[name], name).toBeUndefined();
  });

  it('gatehouse/runtime: the Runtime, config, shard manager, REST client and limit stores', () => {
    for (const name of ['Runtime', 'loadConfig', 'createLogger', 'ShardManager', 'RestClient', 'LocalRateLimits', 'SharedRateLimits', 'StartupError', 'ConfigError']) {
      expect(typeof (runtime as Exports)[name], name).toBe('function');
    }
    expect(runtime.StartupError).toBe(root.StartupError);
  });

  it('gatehouse/rest: the route helpers', () => {
    for (const name of ['listSkus', 'createMessage', 'getCurrentApplication', 'addMemberRole', 'timeoutMember']) {
      expect(typeof (rest as Exports)[name], name).toBe('function');
    }
  });

  it('gatehouse/sandbox and gatehouse/testing', () => {
    expect(typeof sandbox.createSandbox).toBe('function');
    // The sandbox's error answer and the REST client's are different classes, so they carry different names.
    expect(sandbox.SandboxApiError).toBe(root.SandboxApiError);
    expect(sandbox.SandboxApiError).not.toBe(root.ApiError);
    expect(new sandbox.SandboxApiError(404, 10003, 'Unknown Channel').name).toBe('SandboxApiError');
    expect(typeof testing.startBot).toBe('function');
    expect(typeof testing.testKit).toBe('function');
  });
});

describe('error classes', () => {
  const classes = errorClasses();

  it('are found in src/ (the scan works)', () => {
    expect(classes.map((c) => c.name)).toEqual(expect.arrayContaining(['NetworkError', 'GatewayError', 'StartupError', 'PluginLoadError']));
  });

  it('are each exported by gatehouse (or the test kit), or listed as internal with the reason', () => {
    const missing = classes
      .filter((c) => !INTERNAL_ERRORS.has(c.key))
      .filter((c) => typeof (root as Exports)[c.name] !== 'function' && typeof (testing as Exports)[c.name] !== 'function')
      .map((c) => c.key);
    expect(missing).toEqual([]);
    for (const name of ['NetworkError', 'RequestAbortedError', 'RestClientClosedError', 'RequestRefusedError', 'GatewayError', 'ShardClosedError']) {
      expect(typeof (root as Exports)[name], name).toBe('function');
    }
  });

  it('each set `name` to their own class name', () => {
    const unnamed = classes
      .filter((c) => !INTERNAL_ERRORS.has(c.key))
      .filter((c) => !c.body.includes(`name = '${c.name}'`) && !c.body.includes(`name: string = '${c.name}'`))
      .map((c) => c.key);
    expect(unnamed).toEqual([]);
  });
});
