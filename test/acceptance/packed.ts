/**
 * The package as npm would publish it, for acceptance tests: src/ compiled as `prepack` compiles it
 * (tsconfig.package.json), staged beside package.json, README.md, LICENSE and config/default.json in a temporary
 * folder, and packed there, so that the checkout's own dist/ (which other suites build) is never touched. And
 * installs of the tarball into fresh projects, from npm's cache where it can (`--prefer-offline`).
 */
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { ROOT } from '../plugins/helpers.js';
import { runToEnd, type Finished } from '../helpers/process.js';

/** Bounds measured on the shared 2-core machine (load ~20): a build 80 s, an install 4.5 min; each at least 2x. */
export const BUILD_TIMEOUT_MS = 600_000;
export const INSTALL_TIMEOUT_MS = 1_200_000;

export function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1', npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };
  for (const key of Object.keys(env)) {
    if (key.startsWith('GATEHOUSE_') || key.startsWith('VITEST') || key.startsWith('npm_package_') || key.startsWith('npm_lifecycle_')) delete env[key];
  }
  for (const key of ['DISCORD_TOKEN', 'DISCORD_API_URL', 'REDIS_URL', 'LOG_LEVEL', 'TSX', 'NODE_OPTIONS']) delete env[key];
  return env;
}

/** Build and pack the package into `dir`; returns the tarball's path. */
export async function packInto(dir: string, env: NodeJS.ProcessEnv): Promise<string> {
  const stage = join(dir, 'stage');
  mkdirSync(join(stage, 'config'), { recursive: true });
  for (const f of ['package.json', 'README.md', 'LICENSE', join('config', 'default.json')]) copyFileSync(join(ROOT, f), join(stage, f));
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const built = await runToEnd(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.package.json'), '--outDir', join(stage, 'dist')], { cwd: ROOT, env, timeoutMs: BUILD_TIMEOUT_MS });
  expect(built.code, built.stdout + built.stderr).toBe(0);
  // The stage has the build already: prepack (the same build in place) is not run again here.
  const packed = await runToEnd('npm', ['pack', '--ignore-scripts', '--pack-destination', dir], { cwd: stage, env, timeoutMs: 120_000 });
  expect(packed.code, packed.stderr).toBe(0);
  const tgz = readdirSync(dir).find((f) => /^gatehouse-.*\.tgz$/.test(f));
  expect(tgz).toBeDefined();
  return join(dir, tgz!);
}

/**
 * `npm install` in a project, from the cache where it can. Without install scripts: they would compile the
 * optional native inflaters (zstd-napi took over 15 minutes of a loaded machine), which gatehouse does without
 * (node:zlib and fzstd); esbuild, under tsx, needs none (its binary is a package of its own).
 */
export function npmInstall(cwd: string, specs: readonly string[], env: NodeJS.ProcessEnv): Promise<Finished> {
  return runToEnd('npm', ['install', '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund', ...specs], { cwd, env, timeoutMs: INSTALL_TIMEOUT_MS });
}
