/**
 * A startup failure the operator can act on (a busy port, a rejected token): its message says what to do,
 * and the CLI prints it without a stack trace.
 */
export class StartupError extends Error {
  /** `cause` is the error behind it when there is one: the REST ApiError (status 401) for a rejected token. */
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StartupError';
  }
}
