/**
 * Received WebSocket message -> gateway payload: the hot path's first half (frame -> inflate -> JSON.parse).
 *
 * One decoder per connection. Binary frames go through the connection's zlib-stream inflater (text arrives
 * complete, possibly asynchronously with node:zlib); text frames are parsed directly. Each message is decoded
 * with one Buffer#toString (or none, when zlib-sync hands over a string) and parsed with one JSON.parse; the
 * only per-message allocations are the string and the parsed object.
 */
import { GatewayDecodeError } from './errors.js';
import type { Inflater, InflaterFactory } from './inflate.js';
import { asReceivedPayload, type ReceivedPayload } from './protocol.js';

export interface DecoderSink {
  payload(payload: ReceivedPayload): void;
  /** The connection cannot be read any further: reset it. Called at most once. */
  error(error: GatewayDecodeError): void;
}

export class PayloadDecoder {
  private readonly inflater: Inflater | null;
  private failed = false;

  constructor(
    private readonly sink: DecoderSink,
    makeInflater: InflaterFactory | null,
  ) {
    this.inflater =
      makeInflater === null
        ? null
        : makeInflater({ message: (text) => this.text(text), error: (error) => this.fail(error) });
  }

  /** Feed one received WebSocket message. */
  push(data: Buffer, isBinary: boolean): void {
    if (this.failed) return;
    if (isBinary && this.inflater !== null) this.inflater.push(data);
    else this.text(data.toString()); // no-argument toString is Node's UTF-8 fast path
  }

  /** Parse one complete message's text (for transports that hand over strings). */
  text(text: string): void {
    if (this.failed) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      this.fail(new GatewayDecodeError('received a message that is not valid JSON', { cause: error }));
      return;
    }
    const payload = asReceivedPayload(parsed);
    if (payload === null) {
      this.fail(new GatewayDecodeError('received a message that is not a gateway payload'));
      return;
    }
    this.sink.payload(payload);
  }

  /** Run `fn` once every message fed so far has been delivered (at once when nothing is pending). */
  whenIdle(fn: () => void): void {
    if (this.inflater === null) fn();
    else this.inflater.whenIdle(fn);
  }

  destroy(): void {
    this.failed = true;
    this.inflater?.destroy();
  }

  private fail(error: GatewayDecodeError): void {
    if (this.failed) return;
    this.failed = true;
    this.inflater?.destroy();
    this.sink.error(error);
  }
}
