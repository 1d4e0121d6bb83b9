/** A pino destination for tests: every JSON line the logger writes, parsed, with a few ways to look them up. */
import { Writable } from 'node:stream';

export type LogLine = Record<string, unknown>;

export class LogSink extends Writable {
  readonly lines: LogLine[] = [];

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: () => void): void {
    for (const line of chunk.toString().split('\n')) if (line.trim() !== '') this.lines.push(JSON.parse(line) as LogLine);
    cb();
  }

  /** Lines whose message matches. */
  matching(pattern: RegExp): LogLine[] {
    return this.lines.filter((l) => pattern.test(String(l.msg)));
  }

  find(pred: (l: LogLine) => boolean): LogLine | undefined {
    return this.lines.find(pred);
  }

  /** Messages, of one level or all. */
  messages(level?: number): string[] {
    return this.lines.filter((l) => level === undefined || l.level === level).map((l) => String(l.msg));
  }
}
