/** Where a verb writes: stdout and stderr in the real CLI, arrays in tests. Its own module so verbs need not import cli.ts. */
export interface CliIo {
  out: (line: string) => void;
  err: (line: string) => void;
}

/** A verb: its arguments after the verb's words, and where to write; resolves to the exit code. */
export type Verb = (args: string[], io: CliIo) => Promise<number>;

/**
 * The words under a group verb (`sandbox member join`): each a verb or a further group. The key '' is the
 * group's own action, taken when no word follows (or a flag does): `sandbox webhooks --events URL`.
 */
export type VerbTree = ReadonlyMap<string, Verb | VerbTree>;

/** What a top-level verb's module exports: its entry, and the words under it when it is a group. */
export interface VerbModule {
  run: Verb;
  SUBVERBS?: VerbTree;
}
