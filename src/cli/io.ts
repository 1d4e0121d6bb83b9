/** Where a verb writes: stdout and stderr in the real CLI, arrays in tests. Its own module so verbs need not import cli.ts. */
export interface CliIo {
  out: (line: string) => void;
  err: (line: string) => void;
}
