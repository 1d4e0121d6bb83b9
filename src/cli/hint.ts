/**
 * How to run the CLI the way this process runs, for hints and banners: from sources in a clone
 * (`npm run gatehouse --`), compiled (`node dist/src/cli.js`, the Docker image), or installed as a
 * dependency (`npx gatehouse`). And quoting that a POSIX shell accepts as printed.
 */
const here = import.meta.url;

export const CLI: string = here.includes('/node_modules/')
  ? 'npx gatehouse'
  : here.includes('/dist/src/')
    ? 'node dist/src/cli.js'
    : 'npm run gatehouse --';

/**
 * How to run a long-running verb (start, dev): the npm script in a clone, the CLI elsewhere (an installed copy
 * has no such scripts unless the bot's own package.json defines them).
 */
export function runVerb(verb: 'start' | 'dev'): string {
  if (CLI !== 'npm run gatehouse --') return cli(verb);
  return verb === 'start' ? 'npm start' : 'npm run dev';
}

/** `CLI` followed by the verb and its arguments. */
export function cli(...parts: string[]): string {
  return [CLI, ...parts].join(' ');
}

/** A word as a POSIX shell takes it: bare when safe, else in single quotes. */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
