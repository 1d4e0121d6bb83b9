/**
 * The cost of interactions no plugin handles (issue 14, point 8): 100,000 APPLICATION_COMMAND interactions of
 * 20 unhandled commands through the router, counting the log lines they cause and the time per interaction.
 *
 *   npx tsx bench/unhandled-interactions.ts [REPO_ROOT]
 *
 * REPO_ROOT (default: this checkout) lets the same run measure another tree, e.g. an older commit unpacked
 * with `git archive`.
 */
import { resolve } from 'node:path';
import { Writable } from 'node:stream';

const root = resolve(process.argv[2] ?? resolve(import.meta.dirname, '..'));
const { InteractionRouter } = (await import(`${root}/src/interactions/router.ts`)) as typeof import('../src/interactions/router.js');
const { createLogger } = (await import(`${root}/src/runtime/logger.ts`)) as typeof import('../src/runtime/logger.js');

let lines = 0;
const sink = new Writable({
  write(chunk: Buffer, _encoding, done) {
    lines += String(chunk).split('\n').filter((l) => l.length > 0).length;
    done();
  },
});
const log = createLogger({ level: 'info', pretty: false, destination: sink });
const transport = {
  callback: async () => undefined,
  editOriginal: async () => ({}) as never,
  deleteOriginal: async () => undefined,
  followUp: async () => ({}) as never,
  editFollowUp: async () => ({}) as never,
  deleteFollowUp: async () => undefined,
};
const router = new InteractionRouter({ transport, log, servicesFor: () => ({ log, config: {}, cache: null, plugin: null }) });
const names = Array.from({ length: 20 }, (_, i) => `cmd${i}`);
const interaction = (i: number): never =>
  ({
    id: String(i), application_id: '1', type: 2, token: 't', version: 1, app_permissions: '0', entitlements: [],
    authorizing_integration_owners: {}, guild_id: '2', member: { user: { id: '3', username: 'u' } },
    data: { id: '9', type: 1, name: names[i % names.length] },
  }) as never;

const WARMUP = 2_000;
const N = 100_000;
for (let i = 0; i < WARMUP; i++) await router.handle(interaction(i));
const warmupLines = lines;
lines = 0;
const started = process.hrtime.bigint();
for (let i = 0; i < N; i++) await router.handle(interaction(i));
const ns = Number(process.hrtime.bigint() - started) / N;
await new Promise((r) => setTimeout(r, 100));
console.log(`${root}: ${lines} log lines for ${N.toLocaleString('en')} unhandled interactions (${warmupLines} during the ${WARMUP.toLocaleString('en')} of warm-up); ${ns.toFixed(0)} ns per interaction`);
