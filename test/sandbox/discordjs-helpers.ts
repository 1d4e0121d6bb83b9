/**
 * The unmodified discord.js Client logged in to a fresh sandbox, as the discord.js acceptance tests use it: the
 * intents a typical bot asks for, @discordjs/rest pointed at the sandbox's REST URL, and both closed after each test.
 */
import { Client, Events, GatewayIntentBits, type Guild } from 'discord.js';
import { afterEach } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';

const sandboxes: Sandbox[] = [];
const clients: Client[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) await c.destroy();
  for (const sb of sandboxes.splice(0)) await sb.close();
});

/** Log a new Client in to `sb` and resolve once it is ready (15 s at most); it is destroyed after the test. */
async function loginDiscordjs(sb: Sandbox, extraIntents: readonly GatewayIntentBits[] = []): Promise<Client<true>> {
  const client = new Client({
    intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMembers, GatewayIntentBits.GuildMessages, GatewayIntentBits.DirectMessages, ...extraIntents],
    // @discordjs/rest builds `${api}/v${version}${route}`; one retry keeps a 5xx answer quick.
    rest: { api: sb.restUrl.replace(/\/v10$/, ''), retries: 1, timeout: 10_000 },
  });
  clients.push(client);
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('discord.js did not get ready within 15 s')), 15_000);
    client.once(Events.ClientReady, () => {
      clearTimeout(timer);
      resolve();
    });
  });
  await client.login(sb.botToken);
  await ready;
  return client as Client<true>;
}

/**
 * A sandbox (2 guilds x 12 members) with a discord.js Client logged in, and the first guild as it sees it.
 * `extraIntents` go beside the usual ones (moderation, reactions, polls).
 */
export async function startDiscordjs(extraIntents: readonly GatewayIntentBits[] = []): Promise<{ sb: Sandbox; client: Client<true>; guild: Guild }> {
  const sb = await createSandbox({ seed: { guilds: 2, membersPerGuild: 12 }, gateway: { identifyWindowMs: 0, heartbeatIntervalMs: 5_000 } });
  sandboxes.push(sb);
  const client = await loginDiscordjs(sb, extraIntents);
  return { sb, client, guild: client.guilds.cache.get(sb.state.guildIds[0]!)! };
}
