/**
 * The unmodified discord.js Client logged in to a sandbox, as the discord.js acceptance tests use it: the
 * intents a typical bot asks for, @discordjs/rest pointed at the sandbox's REST URL.
 */
import { Client, Events, GatewayIntentBits } from 'discord.js';
import type { Sandbox } from '../../src/sandbox/index.js';

/** Log a new Client in to `sb` and resolve once it is ready (15 s at most); `clients` collects it for cleanup. */
export async function loginDiscordjs(sb: Sandbox, clients: Client[]): Promise<Client<true>> {
  const client = new Client({
    intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMembers, GatewayIntentBits.GuildMessages, GatewayIntentBits.DirectMessages],
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
