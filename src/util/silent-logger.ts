import { pino, type Logger } from 'pino';

/** A logger that drops everything: the default wherever a caller passes none (sandbox, tests). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
