/**
 * The initial response of an interaction received over HTTP, carried by the HTTP response itself.
 *
 * discord-api-docs, "Receiving and Responding" > "Interaction Callback" (inline HTTP response behaviour): an
 * app that receives interactions over HTTP may answer the POST with 200 and an interaction response object as
 * the body; an app that answers through the callback endpoint instead answers the POST with 202 and no body.
 * Either way the initial response is due within 3 seconds of receipt.
 *
 * Each interaction received gets an open exchange here, keyed by interaction id. The first interaction
 * response given for that id (`answer`) becomes the HTTP body; anything after it (edits of @original,
 * follow-ups) goes through REST as for gateway interactions. When nobody answered by the deadline, or the
 * handling finished without an answer, the exchange is released with 202: a later answer (if any) then goes
 * to the callback endpoint, which is exactly what happens to a gateway interaction answered late.
 */

export type InitialOutcome =
  | { kind: 'inline'; json: string; sent(delivered: boolean): void }
  | { kind: 'accepted'; reason: 'deadline' | 'unanswered' | 'closed' };

interface Exchange {
  resolve(outcome: InitialOutcome): void;
  timer: NodeJS.Timeout;
}

export class InitialResponses {
  private readonly open = new Map<string, Exchange>();

  /** Exchanges waiting for their initial response. */
  get size(): number {
    return this.open.size;
  }

  has(interactionId: string): boolean {
    return this.open.has(interactionId);
  }

  /**
   * Open the exchange of a received interaction; resolves with what the HTTP response should be. The caller
   * must make sure the id is not open already (it dedupes interaction ids before opening).
   */
  wait(interactionId: string, deadlineMs: number): Promise<InitialOutcome> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.settle(interactionId, { kind: 'accepted', reason: 'deadline' }), deadlineMs);
      timer.unref();
      this.open.set(interactionId, { resolve, timer });
    });
  }

  /**
   * Answer inline: resolves once the response has been handed to the socket, rejects when the requester is
   * gone. Null when the interaction has no open exchange (it came over the gateway, was released, or was
   * answered already): the caller then uses the callback endpoint.
   */
  answer(interactionId: string, body: unknown): Promise<void> | null {
    if (!this.open.has(interactionId)) return null;
    const json = JSON.stringify(body);
    return new Promise<void>((resolve, reject) => {
      this.settle(interactionId, {
        kind: 'inline',
        json,
        sent: (delivered) =>
          delivered ? resolve() : reject(new Error('the interactions endpoint request closed before the initial response was sent')),
      });
    });
  }

  /** Nobody answered and nobody will through this exchange (the handling is over): answer 202. */
  release(interactionId: string): void {
    this.settle(interactionId, { kind: 'accepted', reason: 'unanswered' });
  }

  /** Release every open exchange (shutdown). */
  releaseAll(): void {
    for (const id of [...this.open.keys()]) this.settle(id, { kind: 'accepted', reason: 'closed' });
  }

  private settle(interactionId: string, outcome: InitialOutcome): void {
    const exchange = this.open.get(interactionId);
    if (exchange === undefined) return;
    this.open.delete(interactionId);
    clearTimeout(exchange.timer);
    exchange.resolve(outcome);
  }
}
