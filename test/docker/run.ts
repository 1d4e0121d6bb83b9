/**
 * `npm run test:docker`: the Dockerfile and docker-compose.yml, for real. Not part of `npm test`: it needs a
 * Docker engine (on these machines `bash ../shared/tools/local-docker.sh` installs one, with local stand-ins
 * for the base images) and docker-compose, and takes minutes on a cold build cache.
 *
 * 1. Build the image.
 * 2. Without DISCORD_TOKEN the production image refuses to start: exit 2, a message saying why.
 * 3. One container against a sandbox on this host (the container uses the host network and points
 *    DISCORD_API_URL at it): /readyz and Docker's HEALTHCHECK report healthy, a command invoked from inside
 *    the container (the compiled CLI) is answered by the bot, SIGTERM ends it with exit 0.
 * 4. docker-compose: Redis and two replicas sharing four shards against another sandbox on this host: they
 *    split 2/2; one is killed (SIGKILL); the other RESUMEs its shards (no IDENTIFY) and answers there.
 *
 * Every wait is bounded; whatever was started is removed at the end, also on failure. Prints what it saw,
 * with timings. Exit 0 when everything held, 1 otherwise.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createSandbox } from '../../src/sandbox/index.js';
import type { Sandbox } from '../../src/sandbox/contract.js';
import { shardForGuild } from '../../src/api/snowflake.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const IMAGE = process.env.GATEHOUSE_TEST_IMAGE ?? 'gatehouse:test-docker';
const RUN_ID = randomBytes(3).toString('hex');
const started = Date.now();

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

function log(line: string): void {
  process.stdout.write(`[test:docker +${((Date.now() - started) / 1000).toFixed(1)}s] ${line}\n`);
}

class Failure extends Error {}

function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Failure(message);
}

/** Run a command to completion (killed after `timeoutMs`); `echo` streams its output through. */
function run(command: string, args: string[], options: { env?: NodeJS.ProcessEnv; timeoutMs?: number; echo?: boolean } = {}): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env: options.env ?? process.env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (options.echo) process.stdout.write(d);
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (options.echo) process.stderr.write(d);
    });
    const timeoutMs = options.timeoutMs ?? 120_000;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Failure(`${command} ${args.join(' ')}: no exit within ${timeoutMs} ms\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

async function mustRun(command: string, args: string[], options: Parameters<typeof run>[2] = {}): Promise<string> {
  const result = await run(command, args, options);
  check(result.code === 0, `${command} ${args.join(' ')} exited with ${result.code}\n${result.stdout}\n${result.stderr}`);
  return result.stdout.trim();
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function waitFor<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let i = 0; i < 100_000 && Date.now() < deadline; i++) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    await sleep(250);
  }
  throw new Failure(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

interface Readiness {
  ready: boolean;
  shards: Array<{ id: number; status: string }>;
}

async function readiness(port: number): Promise<Readiness> {
  const response = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(2_000) });
  const body = (await response.json()) as { shards?: Array<{ id: number; status: string }> };
  return { ready: response.status === 200, shards: body.shards ?? [] };
}

const readyShards = (r: Readiness): number[] => r.shards.filter((s) => s.status === 'ready').map((s) => s.id).sort();

// ---- the steps --------------------------------------------------------------------------------------------

async function build(): Promise<void> {
  log(`building ${IMAGE}`);
  const t = Date.now();
  // No bridge network on these machines: the build's RUN steps (npm ci) use the host's.
  await mustRun('docker', ['build', '--network', 'host', '-t', IMAGE, '.'], { timeoutMs: 30 * 60_000, echo: process.env.GATEHOUSE_TEST_DOCKER_VERBOSE === '1' });
  log(`built ${IMAGE} in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  const plugins = await mustRun('docker', ['run', '--rm', '--network', 'host', '--entrypoint', 'sh', IMAGE, '-c', 'ls dist/plugins']);
  log(`plugins in the image (dist/plugins): ${plugins.split(/\s+/).join(' ')}`);
}

async function refusesWithoutToken(): Promise<void> {
  log('production image without DISCORD_TOKEN');
  const port = await freePort();
  const result = await run('docker', ['run', '--rm', '--network', 'host', '-e', `GATEHOUSE_HTTP_PORT=${port}`, IMAGE], { timeoutMs: 60_000 });
  check(result.code === 2, `expected exit 2 without a token, got ${result.code}\n${result.stdout}\n${result.stderr}`);
  check(/DISCORD_TOKEN is not set\. In production/.test(result.stderr), `expected the reason on stderr, got:\n${result.stderr}`);
  log(`exit ${result.code}: ${result.stderr.trim().split('\n').pop()!.trim()}`);
}

async function singleContainer(containers: string[]): Promise<void> {
  const sandbox = await createSandbox({ activities: true, seed: { guilds: 2, membersPerGuild: 10 } });
  try {
    const name = `gh-test-${RUN_ID}-single`;
    const port = await freePort();
    log(`one container against the sandbox at ${sandbox.restUrl}; health on 127.0.0.1:${port}`);
    await mustRun('docker', [
      'run', '-d', '--network', 'host', '--name', name,
      '-e', `DISCORD_TOKEN=${sandbox.botToken}`,
      '-e', `DISCORD_API_URL=${sandbox.restUrl}`,
      '-e', `GATEHOUSE_HTTP_PORT=${port}`,
      IMAGE,
    ]);
    containers.push(name);
    const t = Date.now();
    await waitFor('/readyz 200', 120_000, async () => ((await readiness(port)).ready ? true : undefined));
    log(`/readyz 200 after ${((Date.now() - t) / 1000).toFixed(1)} s`);
    await waitFor("Docker's HEALTHCHECK to say healthy", 120_000, async () => {
      const status = await mustRun('docker', ['inspect', '--format', '{{.State.Health.Status}}', name]);
      return status === 'healthy' ? true : undefined;
    });
    log(`docker inspect: healthy after ${((Date.now() - t) / 1000).toFixed(1)} s`);

    const invoked = await mustRun('docker', [
      'exec', name, 'node', 'dist/src/cli.js', 'sandbox', 'invoke', 'dice', 'roll', 'sides:20', '--url', sandbox.adminUrl,
    ], { timeoutMs: 60_000 });
    check(/You rolled \d+/.test(invoked), `the invoked command was not answered as expected:\n${invoked}`);
    log(`invoked inside the container: ${invoked.split('\n').find((l) => /You rolled/.test(l))!.trim()}`);

    const stopAt = Date.now();
    await mustRun('docker', ['kill', '--signal', 'SIGTERM', name]);
    const code = await mustRun('docker', ['wait', name], { timeoutMs: 45_000 });
    const logs = await run('docker', ['logs', name]);
    check(code === '0', `expected exit 0 after SIGTERM, got ${code}\n${logs.stdout}\n${logs.stderr}`);
    check(!/"level":60/.test(logs.stdout + logs.stderr), `a fatal line in the container's log:\n${logs.stdout}`);
    log(`SIGTERM: exit ${code} after ${((Date.now() - stopAt) / 1000).toFixed(1)} s`);
  } finally {
    await sandbox.close();
  }
}

async function composeReplicas(projects: string[]): Promise<void> {
  const sandbox: Sandbox = await createSandbox({
    activities: true,
    seed: { guilds: 8, membersPerGuild: 3, seed: 3 },
    gateway: { recommendedShards: 4, maxConcurrency: 4 },
  });
  const identifies: Array<{ shard: number; at: number }> = [];
  const resumes: Array<{ shard: number; at: number }> = [];
  sandbox.gatewayEvents.on('identify', (e) => identifies.push({ shard: e.shard[0], at: e.at }));
  sandbox.gatewayEvents.on('resume', (e) => resumes.push({ shard: e.shard[0], at: e.at }));
  const project = `ghtest${RUN_ID}`;
  const [redisPort, portA, portB] = [await freePort(), await freePort(), await freePort()];
  const leaseMs = 5_000;
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    DOCKER_HOST: process.env.DOCKER_HOST,
    GATEHOUSE_IMAGE: IMAGE,
    DISCORD_TOKEN: sandbox.botToken,
    DISCORD_API_URL: sandbox.restUrl,
    GATEHOUSE_REDIS_PORT: String(redisPort),
    GATEHOUSE_HTTP_PORT_A: String(portA),
    GATEHOUSE_HTTP_PORT_B: String(portB),
    GATEHOUSE_CLUSTER_LEASE_MS: String(leaseMs),
  };
  const compose = (args: string[], timeoutMs = 180_000) => mustRun('docker-compose', ['-p', project, ...args], { env, timeoutMs });
  try {
    log(`docker-compose project ${project}: Redis on 127.0.0.1:${redisPort}, bot-a health on :${portA}, bot-b on :${portB}`);
    projects.push(project);
    await compose(['up', '-d', '--no-build']);
    const t = Date.now();
    const split = await waitFor('two replicas with two live shards each', 180_000, async () => {
      const [a, b] = [await readiness(portA), await readiness(portB)];
      const [ra, rb] = [readyShards(a), readyShards(b)];
      if (!a.ready || !b.ready || ra.length !== 2 || rb.length !== 2) return undefined;
      return { a: ra, b: rb };
    });
    check([...split.a, ...split.b].sort().join() === '0,1,2,3', `shards not split between the replicas: ${JSON.stringify(split)}`);
    log(`split after ${((Date.now() - t) / 1000).toFixed(1)} s: bot-a runs ${split.a}, bot-b runs ${split.b}`);

    const containerB = await compose(['ps', '-q', 'bot-b']);
    const identifiesBefore = identifies.length;
    const killedAt = Date.now();
    await mustRun('docker', ['kill', containerB]);
    log(`killed bot-b (SIGKILL); lease ${leaseMs} ms`);
    const all = await waitFor("bot-a running all four shards", 60_000, async () => {
      const a = await readiness(portA);
      return a.ready && readyShards(a).length === 4 ? readyShards(a) : undefined;
    });
    check(all.join() === '0,1,2,3', `bot-a runs ${all}`);
    check(identifies.length === identifiesBefore, `IDENTIFY after the kill: ${JSON.stringify(identifies.slice(identifiesBefore))}`);
    for (const shard of split.b) {
      const resume = resumes.find((r) => r.shard === shard && r.at >= killedAt);
      check(resume !== undefined, `no RESUME of shard ${shard} after the kill`);
      log(`shard ${shard} RESUMEd by bot-a ${((resume.at - killedAt) / 1000).toFixed(1)} s after the kill`);
    }
    const guildId = sandbox.state.guildIds.find((g) => shardForGuild(g, 4) === split.b[0])!;
    const record = await sandbox.invoke({ name: 'dice', subcommand: ['flip'], guildId });
    const answer = await record.firstResponse(10_000);
    check(/^(Heads|Tails)$/.test(String(answer.data?.content)), `unexpected answer ${JSON.stringify(answer)}`);
    log(`a command in a guild of shard ${split.b[0]} was answered by bot-a: ${String(answer.data?.content)}`);
  } catch (error) {
    const logs = await run('docker-compose', ['-p', project, 'logs', '--no-color', '--tail', '30'], { env, timeoutMs: 60_000 }).catch(() => null);
    if (logs !== null) process.stdout.write(`---- docker-compose logs (last 30 lines per service) ----\n${logs.stdout}${logs.stderr}\n`);
    throw error;
  } finally {
    await sandbox.close();
  }
}

// ---- main -------------------------------------------------------------------------------------------------

const containers: string[] = [];
const projects: string[] = [];
let failed = false;
try {
  const info = await run('docker', ['info', '--format', '{{.ServerVersion}}'], { timeoutMs: 30_000 }).catch(() => null);
  check(
    info !== null && info.code === 0,
    'no Docker engine answers: run `bash ../shared/tools/local-docker.sh` (or start dockerd) first',
  );
  log(`Docker engine ${info.stdout.trim()}; ${(await mustRun('docker-compose', ['version', '--short'])).trim()} (docker-compose)`);
  await build();
  await refusesWithoutToken();
  await singleContainer(containers);
  await composeReplicas(projects);
  log('all checks passed');
} catch (error) {
  failed = true;
  log(`FAILED: ${error instanceof Error ? error.message : String(error)}`);
} finally {
  for (const project of projects) {
    const down = await run('docker-compose', ['-p', project, 'down', '-v', '--remove-orphans', '-t', '10'], {
      timeoutMs: 120_000,
      env: { ...process.env, DISCORD_TOKEN: 'unused' },
    }).catch((e: unknown) => ({ code: -1, stdout: '', stderr: String(e) }));
    if (down.code !== 0) log(`could not remove compose project ${project}: ${down.stderr.trim()}`);
  }
  for (const name of containers) await run('docker', ['rm', '-f', name], { timeoutMs: 60_000 }).catch(() => undefined);
}
process.exitCode = failed ? 1 : 0;
