import type { CliIo } from '../cli.js';

export async function run(_args: string[], io: CliIo): Promise<number> {
  io.err('gatehouse sandbox: not implemented yet');
  return 1;
}
