import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli.js';
import { run, runSandbox } from '../../src/cli/sandbox.js';
import { readStateFile } from '../../src/sandbox/statefile.js';
import { api, identified, type RawGatewayClient } from './helpers.js';

const dirs: string[] = [];
const clients: RawGatewayClient[] = [];
const stops: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.terminate();
  for (const stop of stops.splice(0)) await stop();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempState(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gh-sandbox-cli-'));
  dirs.push(dir);
  return join(dir, 'state.json');
}

function collector(): CliIo & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return { lines, errors, out: (l) => lines.push(l), err: (l) => errors.push(l) };
}

async function startCli(statePath: string, extra: string[] = []) {
  const io = collector();
  const abort = new AbortController();
  const done = runSandbox(['--port', '0', '--guilds', '2', '--members', '3', '--state-file', statePath, ...extra], io, abort.signal);
  const deadline = Date.now() + 10_000;
  while (!io.lines.some((l) => l.includes('Invoke a command')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  const field = (label: string): string => io.lines.find((l) => l.trim().startsWith(label))!.split(/:\s+/).slice(1).join(': ').trim();
  const info = { rest: field('REST URL'), gateway: field('Gateway URL'), admin: field('Admin URL'), appId: field('Application id'), token: field('Bot token') };
  const stop = async (): Promise<number> => {
    abort.abort();
    return done;
  };
  stops.push(async () => {
    await stop();
  });
  return { io, info, stop };
}

/** A minimal bot: answers every slash command with the options it got. */
async function answeringBot(info: { rest: string; gateway: string; token: string }) {
  const { client } = await identified(info.gateway, info.token, { intents: 1 });
  clients.push(client);
  client.ws.on('message', () => {
    for (const p of client.received.splice(0)) {
      if (p.op !== 0 || p.t !== 'INTERACTION_CREATE') continue;
      const d = p.d as any;
      const opts = (d.data.options ?? []).map((o: any) => `${o.name}=${o.value}`).join(' ');
      void api(info.rest, 'POST', `/interactions/${d.id}/${d.token}/callback`, { body: { type: 4, data: { content: `You rolled ${opts}` } } });
    }
  });
  return client;
}

describe('gatehouse sandbox (run)', () => {
  it('prints its URLs, application id and a bot token, writes the state file, and removes it on stop', async () => {
    const statePath = tempState();
    const { io, info, stop } = await startCli(statePath);
    expect(info.rest).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v10$/);
    expect(info.gateway).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/gateway$/);
    expect(info.admin).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/_sandbox$/);
    expect(info.appId).toMatch(/^\d{17,20}$/);
    const state = readStateFile(statePath)!;
    expect(state).toMatchObject({ pid: process.pid, adminUrl: info.admin, restUrl: info.rest });
    expect(JSON.stringify(state)).not.toContain(info.token);
    const me = await api(info.rest, 'GET', '/users/@me', { token: info.token });
    expect(me.status).toBe(200);
    expect(await stop()).toBe(0);
    expect(existsSync(statePath)).toBe(false);
    expect(io.lines.at(-1)).toMatch(/stopping/);
  });

  it('refuses a non-loopback host and bad numbers with exit code 2', async () => {
    const io = collector();
    expect(await runSandbox(['--host', '0.0.0.0'], io, new AbortController().signal)).toBe(2);
    expect(io.errors.join('\n')).toMatch(/loopback/);
    expect(await runSandbox(['--port', 'x'], io, new AbortController().signal)).toBe(2);
  });
});

describe('gatehouse sandbox invoke', () => {
  it('invokes against the running sandbox (found through the state file) and prints the response', async () => {
    const statePath = tempState();
    const { info } = await startCli(statePath);
    const reg = await api(info.rest, 'POST', `/applications/${info.appId}/commands`, {
      token: info.token,
      body: { name: 'roll', description: 'Roll', options: [{ type: 4, name: 'sides', description: 'Sides', min_value: 2, max_value: 120 }] },
    });
    expect(reg.status).toBe(201);
    await answeringBot(info);
    const io = collector();
    const code = await run(['invoke', 'roll', 'sides:20', '--state-file', statePath], io);
    expect(io.errors).toEqual([]);
    expect(code).toBe(0);
    // Every verb says which sandbox it talked to first.
    expect(io.lines[0]).toBe(`sandbox ${info.admin} (pid ${process.pid}, gatehouse sandbox, in ${process.cwd()})`);
    expect(io.lines[1]).toMatch(/^\/roll sides:20 {2}-> {2}interaction \d+ in guild \d+$/);
    expect(io.lines).toContain('response: CHANNEL_MESSAGE_WITH_SOURCE (4)');
    expect(io.lines).toContain('  You rolled sides=20');
  });

  it('reports what the client would refuse, and a missing sandbox, with exit code 1', async () => {
    const statePath = tempState();
    const { info } = await startCli(statePath);
    await answeringBot(info);
    const io = collector();
    expect(await run(['invoke', 'nope', '--url', info.admin], io)).toBe(1);
    expect(io.errors.join('\n')).toMatch(/no command 'nope'/);
    const none = collector();
    expect(await run(['invoke', 'roll', '--state-file', join(dirs[0]!, 'missing.json')], none)).toBe(1);
    expect(none.errors.join('\n')).toMatch(/no running sandbox/);
    const usage = collector();
    expect(await run(['invoke'], usage)).toBe(2);
  });
});

describe('gatehouse sandbox messages', () => {
  it('shows what the bot sent in channels and DMs, edits and deletes included, grouped by channel', async () => {
    const statePath = tempState();
    const { info } = await startCli(statePath);
    const guilds = (await fetch(`${info.admin}/guilds`).then((r) => r.json())) as Array<{ id: string }>;
    const guildId = guilds[0]!.id;
    const channels = (await api(info.rest, 'GET', `/guilds/${guildId}/channels`, { token: info.token })).body as Array<{ id: string; type: number }>;
    const channel = channels.find((c) => c.type === 0)!.id;
    const first = await api(info.rest, 'POST', `/channels/${channel}/messages`, { token: info.token, body: { content: 'hello there' } });
    await api(info.rest, 'PATCH', `/channels/${channel}/messages/${first.body.id}`, { token: info.token, body: { content: 'hello again' } });
    const second = await api(info.rest, 'POST', `/channels/${channel}/messages`, { token: info.token, body: { content: 'gone soon' } });
    await api(info.rest, 'DELETE', `/channels/${channel}/messages/${second.body.id}`, { token: info.token });
    const members = (await fetch(`${info.admin}/guilds/${guildId}/members`).then((r) => r.json())) as string[];
    const dm = await api(info.rest, 'POST', '/users/@me/channels', { token: info.token, body: { recipient_id: members[2] } });
    await api(info.rest, 'POST', `/channels/${dm.body.id}/messages`, { token: info.token, body: { content: 'psst' } });

    const io = collector();
    expect(await run(['messages', '--state-file', statePath], io)).toBe(0);
    expect(io.errors).toEqual([]);
    const text = io.lines.join('\n');
    // Every verb says first which sandbox it talked to.
    expect(io.lines[0]).toMatch(/^sandbox http:\/\/127\.0\.0\.1:\d+\/_sandbox /);
    io.lines.shift();
    expect(io.lines[0]).toBe(`channel ${channel} in guild ${guildId}:`);
    expect(text).toMatch(new RegExp(`message ${first.body.id} \\(edited 1x\\)\n    hello again`));
    expect(text).toMatch(new RegExp(`message ${second.body.id} \\(deleted\\)\n    gone soon`));
    expect(text).toContain(`DM ${dm.body.id} with user ${members[2]}:`);
    expect(text).toContain('    psst');

    const onlyDm = collector();
    expect(await run(['messages', '--channel', dm.body.id, '--url', info.admin], onlyDm)).toBe(0);
    onlyDm.lines.shift();
    expect(onlyDm.lines[0]).toBe(`DM ${dm.body.id} with user ${members[2]}:`);
    expect(onlyDm.lines.join('\n')).not.toContain('hello');
    const none = collector();
    expect(await run(['messages', '--guild', '1', '--url', info.admin], none)).toBe(0);
    expect(none.lines.slice(1)).toEqual(['no messages']);
    expect(await run(['messages', 'extra', '--url', info.admin], collector())).toBe(2);
  });
});

describe('gatehouse sandbox as a process', () => {
  it('runs until SIGINT and exits 0, removing its state file', async () => {
    const statePath = tempState();
    const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=gatehouse-source', 'src/cli.ts', 'sandbox', '--port', '0', '--state-file', statePath], {
      cwd: process.cwd(),
      env: { ...process.env, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const deadline = Date.now() + 20_000;
    while (!stdout.includes('Admin URL') && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 50));
    expect(stdout).toContain('Admin URL');
    expect(existsSync(statePath)).toBe(true);
    child.kill('SIGINT');
    const code = await Promise.race([exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 10_000))]);
    if (code === 'timeout') child.kill('SIGKILL');
    expect(code).toBe(0);
    expect(existsSync(statePath)).toBe(false);
  }, 40_000);
});
