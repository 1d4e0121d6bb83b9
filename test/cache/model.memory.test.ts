/**
 * Model-based randomized test of the memory backend: seeded random streams of guild, role, member and
 * entitlement events with repeated deliveries, reconnects (fresh READYs listing fewer guilds), resumes,
 * restarts (a new, empty instance, as a restarted process has), member requests and entitlement syncs,
 * applied to the cache and to a plain reference model (model/reference.ts); after every step the cache
 * answers like the model (model/harness.ts). A failing seed prints its shortest failing step list.
 */
import { describe, it } from 'vitest';
import { check, memoryBackend, SEEDS, STEPS } from './model/check.js';

describe('cache model-based test', () => {
  it(`memory backend answers like the model (${SEEDS.length} seeds x ${STEPS} steps)`, async () => {
    await check('memory', memoryBackend, 1);
  }, 600_000);
});
