/** Errors a handler can meet when answering an interaction; all are thrown before anything is sent. */

export class InteractionStateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InteractionStateError';
  }
}

/** User-installed apps may send at most five follow-ups per interaction (protocol §S8). */
export class FollowUpLimitError extends Error {
  constructor(readonly limit: number) {
    super(
      `follow-up limit reached: an interaction of a user-installed app allows at most ${limit} follow-up messages`,
    );
    this.name = 'FollowUpLimitError';
  }
}
