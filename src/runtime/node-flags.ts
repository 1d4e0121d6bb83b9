/**
 * How gatehouse's own launchers start node: the Docker image (ENV and CMD), `npm start`, and the gatehouse
 * subjects of the ingest benchmark (so that it measures what those run). test/build/launch-flags.test.ts
 * keeps the three in step. An owner who launches `dist/src/cli.js` some other way can pass them too, or
 * override them: V8 takes the last of a flag given twice, so `node --max-semi-space-size=2 ... --max-semi-space-size=16`
 * ends with 16 (NODE_OPTIONS is read before the command line and does not override it).
 *
 * --max-semi-space-size=2: the young generation's semi-space capped at 2 MiB instead of Node's 16. Nearly all
 * of a bot's garbage is payload objects that die before the next collection however large it is; the smaller
 * young generation holds 25-28 MiB less resident memory with the memory cache and 200,000 members, at no CPU
 * cost the ingest benchmark could measure (docs/performance.md "Node flags" gives the runs).
 */
export const NODE_FLAGS: readonly string[] = ['--max-semi-space-size=2'];

/**
 * Environment the launchers set for node.
 *
 * MALLOC_MMAP_THRESHOLD_=131072 pins glibc malloc's mmap threshold at its initial 128 KiB. By default glibc
 * raises the threshold (and the heap trim threshold, to twice that) to the size of any mmap-ed block freed, up
 * to 32 MiB: once V8's compiler threads free a 660 KiB zone, or a cache column is replaced by a larger one,
 * every later block below that size is carved out of the main heap, where freed holes between live column
 * tables are never returned to the system. Pinned, blocks of 128 KiB and more are mapped and unmapped on their
 * own. With 200,000 members cached this holds 12-25 MiB less resident memory (docs/performance.md
 * "glibc's mmap threshold"); glibc only (musl and other platforms ignore the variable).
 */
export const LAUNCH_ENV: Readonly<Record<string, string>> = Object.freeze({ MALLOC_MMAP_THRESHOLD_: '131072' });
