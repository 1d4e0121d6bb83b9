/**
 * A startup failure the operator can act on (a busy port, a rejected token): its message says what to do,
 * and the CLI prints it without a stack trace.
 */
export class StartupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StartupError';
  }
}
