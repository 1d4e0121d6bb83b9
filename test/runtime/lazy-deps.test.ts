/**
 * A bot on the memory cache, logging JSON, never loads ioredis or pino-pretty (together about 20 MiB of
 * resident memory); the first Redis connection loads ioredis. Checked in a fresh process, where nothing else
 * has loaded them.
 */
import { describe, expect, it } from 'vitest';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runToEnd } from '../helpers/process.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

const SCRIPT = `
import { createRequire } from 'node:module';
const loaded = () => Object.keys(createRequire(import.meta.url).cache).filter((k) => /node_modules[\\\\/](ioredis|pino-pretty)[\\\\/]/.test(k)).map((k) => k.includes('pino-pretty') ? 'pino-pretty' : 'ioredis');
await import('./src/runtime/runtime.ts');
const { createLogger } = await import('./src/runtime/logger.ts');
createLogger({ pretty: false, destination: process.stderr }).info('json line');
const before = [...new Set(loaded())];
const { openRedis } = await import('./src/util/redis-connection.ts');
const redis = openRedis('redis://127.0.0.1:1', { name: 'probe', redisOptions: { lazyConnect: true } });
redis.disconnect();
createLogger({ pretty: true, destination: process.stderr }).info('pretty line');
console.log(JSON.stringify({ before, after: [...new Set(loaded())].sort() }));
`;

describe('dependencies a deployment does not use', () => {
  it('loads ioredis with the first Redis connection and pino-pretty with the first pretty logger, not before', async () => {
    const run = await runToEnd(process.execPath, ['--conditions=gatehouse-source', '--import', 'tsx', '--input-type=module', '-e', SCRIPT], {
      cwd: ROOT,
      env: { ...process.env, NODE_ENV: 'production' },
      timeoutMs: 60_000,
    });
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { before: string[]; after: string[] };
    expect(out.before).toEqual([]);
    expect(out.after).toEqual(['ioredis', 'pino-pretty']);
  });
});
