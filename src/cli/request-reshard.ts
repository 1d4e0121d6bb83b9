/**
 * gatehouse reshard [--shards N] [--url URL]: ask a running bot to reshard live (docs/cluster.md "Resharding"). It posts
 * to the bot's ops port (POST /reshard, answered on loopback only); in cluster mode any process of the bot
 * will do, every process takes part. Without --shards the bot takes GET /gateway/bot's recommendation.
 */
import type { CliIo } from './io.js';
import { parseVerb, str, type VerbSpec } from './args.js';
import { loadConfigFor } from './config.js';

const RESHARD: VerbSpec = {
  verb: 'reshard',
  summary:
    'Move a running bot to another shard count without a restart: the new shards identify while the old ones serve, then the bot switches over.',
  options: {
    shards: { type: 'string', value: 'N', help: 'the new shard count (default: what GET /gateway/bot recommends)' },
    url: {
      type: 'string',
      value: 'http://127.0.0.1:9464',
      help: "the bot's health and metrics address (default: http.host and http.port of the configuration, on loopback)",
    },
  },
};

export async function run(args: string[], io: CliIo): Promise<number> {
  const parsed = parseVerb(RESHARD, args, io);
  if (typeof parsed === 'number') return parsed;
  const shards = str(parsed.values, 'shards');
  let url = str(parsed.values, 'url');
  if (shards !== undefined && !/^[1-9]\d{0,4}$/.test(shards)) {
    io.err('gatehouse reshard: --shards must be a positive whole number');
    return 2;
  }
  if (url === undefined) {
    const config = loadConfigFor('reshard', io);
    if (config === null) return 2;
    const host = config.http.host === '0.0.0.0' || config.http.host === 'localhost' ? '127.0.0.1' : config.http.host === '::' ? '::1' : config.http.host;
    url = `http://${host.includes(':') ? `[${host}]` : host}:${config.http.port}`;
  }
  let target: URL;
  try {
    target = new URL(`${url.replace(/\/+$/, '')}/reshard`);
  } catch {
    io.err(`gatehouse reshard: --url is not a URL: ${url}`);
    return 2;
  }
  if (shards !== undefined) target.searchParams.set('shards', shards);
  let res: Response;
  try {
    res = await fetch(target, { method: 'POST', signal: AbortSignal.timeout(30_000) });
  } catch (error) {
    io.err(`gatehouse reshard: no bot answers at ${target.origin} (${error instanceof Error ? error.message : String(error)})`);
    return 1;
  }
  const body = (await res.json().catch(() => ({}))) as { message?: string; id?: string; from?: number; to?: number };
  if (res.status === 202) {
    io.out(`resharding from ${body.from} to ${body.to} shards (reshard ${body.id}); the bot logs the cutover`);
    return 0;
  }
  io.err(`gatehouse reshard: ${res.status}: ${body.message ?? 'refused'}`);
  return 1;
}
