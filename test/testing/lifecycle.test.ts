/**
 * Starting and closing bots with the test kit: plugins as objects, module files, plugin folders and plugin
 * directories; configuration and environment; refusing to start on broken plugins; cleanup through the test
 * framework's hook; and the kit never reaching past its sandbox whatever the shell or the project configures.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { definePlugin } from '../../src/index.js';
import { BotStartError, startBot, startSandbox, testKit, type CleanupHook } from '../../src/testing/index.js';

const kit = testKit(afterEach);

const hello = definePlugin({
  name: 'hello',
  commands: [{ name: 'hello', description: 'Say hello', async run(ctx) { await ctx.reply(`Hello, ${ctx.user.username}!`); } }],
});

describe('startBot', () => {
  it('loads plugin objects, a module file, a plugin folder and a plugin directory together', async () => {
    const bot = await kit.startBot({
      plugins: [hello, 'test/testing/fixtures/shop.ts', 'test/testing/fixtures/greeter', 'test/testing/fixtures/more'],
    });
    expect(bot.runtime.plugins.loaded.map((p) => p.name).sort()).toEqual(['echo', 'greeter', 'hello', 'ping', 'shop']);
    expect(bot.runtime.commandSync?.status).toBe('synced');
    expect((await bot.invoke('hello')).content).toBe('Hello, owner!');
    expect((await bot.invoke('greet')).content).toBe('Hello, owner!');
    expect((await bot.invoke('ping')).content).toBe('pong');
    const echo = await bot.invoke('echo', { options: { text: 'hi' } });
    expect([echo.content, echo.ephemeral]).toEqual(['hi', true]);
    expect(bot.warnings).toEqual([]);
    expect(bot.runtime.sandbox).toBe(bot.sandbox);
  });

  it('gives plugins their configuration section, and environment variables only when the test passes them', async () => {
    const bot = await kit.startBot({
      plugins: ['test/testing/fixtures/greeter'],
      config: { plugins: { config: { greeter: { greeting: 'Howdy' } } } },
      env: { GATEHOUSE_PLUGIN__GREETER__TIMES: '2' },
    });
    expect((await bot.invoke('greet')).content).toBe('Howdy, owner! Howdy, owner!');
  });

  it('never reads the shell\'s environment or the project\'s config files, and refuses a token', async () => {
    // A project whose config/local.json holds a token and a plugin section, in a shell with a token.
    const project = mkdtempSync(join(tmpdir(), 'gatehouse-kit-project-'));
    mkdirSync(join(project, 'config'));
    writeFileSync(join(project, 'config', 'local.json'), JSON.stringify({ token: 'a.real.token-from-a-file', plugins: { config: { greeter: { greeting: 'from the file' } } } }));
    vi.stubEnv('DISCORD_TOKEN', 'a.real.token-from-the-shell');
    vi.stubEnv('GATEHOUSE_PLUGIN__GREETER__GREETING', 'from the shell');
    try {
      const bot = await kit.startBot({ plugins: [resolve('test/testing/fixtures/greeter')], cwd: project });
      expect(bot.config.token).toBeUndefined();
      expect(bot.runtime.embedded).toBe(true);
      expect((await bot.invoke('greet')).content).toBe('Hello, owner!');
    } finally {
      vi.unstubAllEnvs();
      rmSync(project, { recursive: true, force: true });
    }
    await expect(kit.startBot({ plugins: [hello], config: { token: 'x.y.z' } })).rejects.toThrow(/sandbox\.mode: "embedded".*token/);
  });

  it('refuses to start, naming plugin and field, when a command is invalid, a setup throws or a module is missing', async () => {
    const invalid = definePlugin({ name: 'invalid', commands: [{ name: 'Bad Name', description: 'x', run: () => undefined }] });
    const broken = definePlugin({
      name: 'broken',
      setup() {
        throw new Error('no database');
      },
    });
    const error = await startBot({ plugins: [hello, invalid, broken] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BotStartError);
    const problems = (error as BotStartError).problems;
    expect(problems).toContainEqual(expect.stringMatching(/^plugin broken \(plugin object "broken" .*\): setup failed: no database$/));
    expect(problems).toContainEqual(expect.stringMatching(/^plugin invalid .*commands not synced: .*name/));
    expect(problems).toHaveLength(2);

    await expect(startBot({ plugins: ['test/testing/fixtures/nothing-here.ts'] })).rejects.toThrow(/plugins\[0\]: test\/testing\/fixtures\/nothing-here\.ts does not exist/);
    await expect(startBot({ plugins: [{ name: 'shapeless', commands: 'roll' } as never] })).rejects.toThrow(/shapeless.*commands/);
    await expect(startBot({ plugins: [hello, hello] })).rejects.toThrow(/"hello" is already used/);
  });

  it('with strict: false, starts anyway and the broken plugin is left out', async () => {
    const broken = definePlugin({ name: 'broken', setup() { throw new Error('no database'); } });
    const bot = await kit.startBot({ plugins: [hello, broken], strict: false });
    expect(bot.runtime.plugins.loaded.find((p) => p.name === 'broken')?.state).toBe('failed');
    expect(bot.warnings.some((l) => (l.err as { message?: unknown } | undefined)?.message === 'no database')).toBe(true);
    expect((await bot.invoke('hello')).content).toBe('Hello, owner!');
  });
});

describe('cleanup', () => {
  it('testKit registers one hook that closes every bot and sandbox started since', async () => {
    const hooks: Array<() => Promise<void>> = [];
    const register: CleanupHook = (fn) => void hooks.push(fn);
    const own = testKit(register);
    expect(hooks).toHaveLength(1);
    const bot = await own.startBot({ plugins: [hello] });
    const bare = await own.startSandbox();
    await hooks[0]!();
    expect(bot.runtime.state).toBe('stopped');
    await expect(fetch(`${bot.restUrl}/gateway`)).rejects.toThrow();
    await expect(fetch(`${bare.restUrl}/gateway`)).rejects.toThrow();
    // Nothing is left to close; closing again is harmless.
    await hooks[0]!();
    await bot.close();
  });

  it('close() stops the runtime before its sandbox, once, however often it is called', async () => {
    const bot = await startBot({ plugins: [hello] });
    const bare = await startSandbox();
    await Promise.all([bot.close(), bot.close(), bare.close()]);
    expect(bot.runtime.state).toBe('stopped');
    await bot.close();
    await expect(fetch(`${bot.restUrl}/gateway`)).rejects.toThrow();
  });
});
