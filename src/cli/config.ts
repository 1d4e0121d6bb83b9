import type { CliIo } from './io.js';
import { ConfigError, loadConfig, type Config } from '../runtime/config.js';

/** Load the configuration for a verb; on invalid configuration print every problem and return null (exit 2). */
export function loadConfigFor(verb: string, io: CliIo): Config | null {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      io.err(`gatehouse ${verb}: ${err.message}`);
      return null;
    }
    throw err;
  }
}
