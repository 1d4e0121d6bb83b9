/**
 * `gatehouse sandbox`: run the local sandbox alone, or act on a running one (the one of this checkout, found
 * through its state file, or --url):
 *
 *   sandbox [--port N] ...                           run it until Ctrl+C
 *   sandbox invoke NAME [SUB ...] [key:value ...]    invoke a command
 *   sandbox click CUSTOM_ID | select CUSTOM_ID VALUE ... | modal [FIELD:VALUE ...]
 *   sandbox member join|update|leave ...             member events
 *   sandbox entitlement grant|end ...                entitlement events
 *   sandbox permissions COMMAND --role ID:deny ...   command permissions update
 *   sandbox messages [--channel ID] [--guild ID]     what the bot sent in channels and DMs
 *   sandbox webhooks ... | app install|deauthorize|entitle ...   signed HTTP delivery (see sandbox-webhooks.ts)
 *
 * Every verb takes --help (generated from its option table) and prints which sandbox it talked to.
 */
import type { CliIo, Verb, VerbTree } from './io.js';
import { int, parseVerb, str, UsageError, type VerbSpec } from './args.js';
import { loadConfigFor } from './config.js';
import { cli, runVerb, shellQuote } from './hint.js';
import { createLogger } from '../runtime/logger.js';
import { createSandbox } from '../sandbox/index.js';
import { defaultStateFilePath, removeStateFile, writeStateFile, stateOf } from '../sandbox/statefile.js';
import { click, invoke, modal, select } from './sandbox-interact.js';
import { entitlementEnd, entitlementGrant, memberJoin, memberLeave, memberUpdate, permissions } from './sandbox-events.js';
import { messages } from './sandbox-messages.js';
import { appDeauthorize, appEntitle, appInstall, webhooks, webhooksDeliveries, webhooksFault } from './sandbox-webhooks.js';

export { describeRecord } from './sandbox-describe.js';

export const SUBVERBS: VerbTree = new Map<string, Verb | VerbTree>([
  ['', runUntilSignal],
  ['invoke', invoke],
  ['click', click],
  ['select', select],
  ['modal', modal],
  ['member', new Map([['join', memberJoin], ['update', memberUpdate], ['leave', memberLeave]])],
  ['entitlement', new Map([['grant', entitlementGrant], ['end', entitlementEnd]])],
  ['permissions', permissions],
  ['messages', messages],
  ['webhooks', new Map([['', webhooks], ['fault', webhooksFault], ['deliveries', webhooksDeliveries]])],
  ['app', new Map([['install', appInstall], ['deauthorize', appDeauthorize], ['entitle', appEntitle]])],
]);

/** The word names a verb under the group unless it is absent, empty or a flag: then the group's own action ('') runs. */
function pick(tree: VerbTree, word: string | undefined): Verb | VerbTree | undefined {
  return word !== undefined && word !== '' && !word.startsWith('-') ? tree.get(word) : tree.get('');
}

const RUN: VerbSpec = {
  verb: 'sandbox',
  summary: 'Run the local sandbox alone (REST, gateway and admin API on loopback) until Ctrl+C.',
  options: {
    port: { type: 'string', value: 'N', help: 'port (default: sandbox.port, 0 = any free one)' },
    host: { type: 'string', value: '127.0.0.1|::1', help: 'loopback address to listen on' },
    guilds: { type: 'string', value: 'N', help: 'seeded guilds (default: sandbox.guilds)' },
    members: { type: 'string', value: 'N', help: 'seeded members per guild (default: sandbox.membersPerGuild)' },
    seed: { type: 'string', value: 'N', help: 'PRNG seed of the fixture' },
    activities: { type: 'boolean', help: 'the app has an Activity (EMBEDDED)' },
    'no-activities': { type: 'boolean', help: 'the app has no Activity' },
    'state-file': { type: 'string', value: 'PATH', help: 'where to write the state file (default: per checkout)' },
  },
  notes: [
    'acting on a running sandbox:',
    `  ${cli('sandbox invoke')} NAME [SUB ...] [key:value ...]`,
    `  ${cli('sandbox click')} CUSTOM_ID        ${cli('sandbox select')} CUSTOM_ID VALUE ...`,
    `  ${cli('sandbox modal')} [FIELD:VALUE ...]`,
    `  ${cli('sandbox member')} join|update|leave ...    ${cli('sandbox entitlement')} grant|end ...`,
    `  ${cli('sandbox permissions')} COMMAND --role ID:allow|deny ...`,
    `  ${cli('sandbox messages')} [--channel ID] [--guild ID]`,
    `  ${cli('sandbox webhooks')} ...    ${cli('sandbox app')} install|deauthorize|entitle ...`,
    'each takes --help',
  ],
};

export async function run(args: string[], io: CliIo): Promise<number> {
  const [first, second] = args;
  // An unknown word goes to the sandbox's own verb, whose parser reports it as an unexpected argument.
  const verb = pick(SUBVERBS, first) ?? runUntilSignal;
  if (typeof verb === 'function') return verb(verb === runUntilSignal ? args : args.slice(1), io);
  const action = pick(verb, second);
  if (typeof action === 'function') return action(action === verb.get('') ? args.slice(1) : args.slice(2), io);
  const known = [...verb.keys()].filter((k) => k !== '').join('|');
  if (second === '--help' || second === '-h') {
    io.out(`usage: gatehouse sandbox ${first!} ${known} ...   (each takes --help)`);
    return 0;
  }
  io.err(`gatehouse sandbox ${first!}: ${second === undefined ? 'say what happens' : `unknown action '${second}'`}: ${known}`);
  return 2;
}

/** `gatehouse sandbox [options]`: run it until SIGINT / SIGTERM. */
async function runUntilSignal(args: string[], io: CliIo): Promise<number> {
  const stop = new AbortController();
  const onSignal = (): void => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    return await runSandbox(args, io, stop.signal);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/** Run the sandbox until `stop` aborts. Exported for tests; `run` wires it to SIGINT / SIGTERM. */
export async function runSandbox(args: string[], io: CliIo, stop: AbortSignal): Promise<number> {
  const parsed = parseVerb(RUN, args, io);
  if (typeof parsed === 'number') return parsed;
  const { values } = parsed;
  const config = loadConfigFor('sandbox', io);
  if (config === null) return 2;
  let host: '127.0.0.1' | '::1';
  let port: number;
  let guilds: number;
  let members: number;
  let seed: number | undefined;
  try {
    const h = str(values, 'host') ?? '127.0.0.1';
    if (h !== '127.0.0.1' && h !== '::1') throw new UsageError('--host must be 127.0.0.1 or ::1 (the sandbox listens on loopback only)');
    host = h;
    port = int(values, 'port', 0, 65_535) ?? config.sandbox.port;
    guilds = int(values, 'guilds', 0) ?? config.sandbox.guilds;
    members = int(values, 'members', 0) ?? config.sandbox.membersPerGuild;
    seed = int(values, 'seed', 0);
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`gatehouse sandbox: ${err.message}`);
      return 2;
    }
    throw err;
  }
  const activities = values['no-activities'] === true ? false : values.activities === true ? true : config.sandbox.activities;
  const statePath = str(values, 'state-file') ?? defaultStateFilePath();
  const logger = createLogger({ level: config.log.level, ...(config.log.pretty !== undefined ? { pretty: config.log.pretty } : {}) });

  const sandbox = await createSandbox({
    host,
    port,
    activities,
    seed: { guilds, membersPerGuild: members, ...(seed !== undefined ? { seed } : {}) },
    logger,
  });
  writeStateFile(statePath, stateOf(sandbox, 'gatehouse sandbox'));
  io.out('gatehouse sandbox is running (loopback only)');
  io.out(`  REST URL:        ${sandbox.restUrl}`);
  io.out(`  Gateway URL:     ${sandbox.gatewayUrl}`);
  io.out(`  Admin URL:       ${sandbox.adminUrl}`);
  io.out(`  Application id:  ${sandbox.applicationId}`);
  io.out(`  Bot token:       ${sandbox.botToken}`);
  io.out(`  Client secret:   ${sandbox.clientSecret}`);
  io.out(`  Public key:      ${sandbox.webhooks.publicKey}  (verify_key; DISCORD_PUBLIC_KEY for a bot on transport http/both)`);
  io.out(`  Guilds:          ${guilds} x ${members} members (+ the bot)${activities ? ', Activities on' : ''}`);
  io.out(`  State file:      ${statePath}`);
  io.out(`Point a bot at it: DISCORD_API_URL=${shellQuote(sandbox.restUrl)} DISCORD_TOKEN=${shellQuote(sandbox.botToken)} ${runVerb('start')}`);
  io.out(`Invoke a command: ${cli('sandbox invoke')} NAME [key:value ...]    Stop: Ctrl+C`);

  await new Promise<void>((resolve) => {
    if (stop.aborted) resolve();
    else stop.addEventListener('abort', () => resolve(), { once: true });
  });
  io.out('gatehouse sandbox: stopping');
  await sandbox.close();
  removeStateFile(statePath);
  return 0;
}
