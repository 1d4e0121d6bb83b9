import { createRequire } from 'node:module';
import { pino, type Logger, type LevelWithSilent } from 'pino';
import type PinoPretty from 'pino-pretty';
import { redact } from '../util/redact.js';

export type { Logger } from 'pino';
export { silentLogger } from '../util/silent-logger.js';

export interface LoggerOptions {
  level?: LevelWithSilent;
  /** Human-readable output; defaults to true when stdout is a TTY. */
  pretty?: boolean;
  /** Where lines go; defaults to stdout. Tests pass a collecting stream. */
  destination?: NodeJS.WritableStream;
}

/**
 * The root logger. Every line passes through `redact` on its way out, so a token that slips into a message,
 * an error or a bound field never reaches the output. Components take `logger.child({ component })`.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const level = options.level ?? 'info';
  const pretty = options.pretty ?? Boolean(process.stdout.isTTY);
  const hooks = { streamWrite: (line: string) => redact(line) };
  if (pretty) {
    // Loaded only for a terminal: a deployment writing JSON never pays for the pretty printer's modules.
    const pinoPretty = createRequire(import.meta.url)('pino-pretty') as typeof PinoPretty;
    const stream = pinoPretty({
      colorize: true,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname',
      messageKey: 'msg',
      destination: options.destination ?? process.stdout,
      sync: true,
    });
    return pino({ level, hooks, base: undefined }, stream);
  }
  const destination = options.destination ?? pino.destination({ fd: 1, sync: false });
  return pino({ level, hooks, base: undefined }, destination as pino.DestinationStream);
}

/** A logger that writes nothing, for library use and tests that do not look at logs. */
