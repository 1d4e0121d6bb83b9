/**
 * V8 flags gatehouse's own launchers start it with: the Docker image's CMD, `npm start`, and the gatehouse
 * subjects of the ingest benchmark (so that it measures what those run). test/build/launch-flags.test.ts
 * keeps the three in step. An owner who launches `dist/src/cli.js` some other way can pass them too, or
 * override them: V8 takes the last of a flag given twice, so `node --max-semi-space-size=2 ... --max-semi-space-size=16`
 * ends with 16 (NODE_OPTIONS is read before the command line and does not override it).
 *
 * --max-semi-space-size=2: the young generation's semi-space capped at 2 MiB instead of Node's 16. Nearly all
 * of a bot's garbage is payload objects that die before the next collection however large it is; the smaller
 * young generation holds 25-28 MiB less resident memory with the memory cache and 200,000 members, at no CPU
 * cost the ingest benchmark could measure (README "Performance" gives the runs).
 */
export const NODE_FLAGS: readonly string[] = ['--max-semi-space-size=2'];
