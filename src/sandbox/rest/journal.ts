/**
 * The REST requests the sandbox answered, newest last, in a bounded ring: what a bot did in answer to an
 * event (`gatehouse sandbox member join` prints it). Paths keep their route template's shape with the ids
 * filled in, except tokens (interaction and webhook tokens never appear); bodies of writes are kept short.
 */
export interface JournalEntry {
  readonly seq: number;
  readonly at: string;
  readonly method: string;
  /** e.g. /channels/123/messages or /interactions/456/:token/callback */
  readonly path: string;
  readonly status: number;
  readonly auth: 'bot' | 'bearer' | 'none';
  /** The JSON body of a write, if it had one (truncated when long). */
  readonly body?: unknown;
}

const MAX_ENTRIES = 500;
const MAX_BODY_CHARS = 4_000;

export class RequestJournal {
  private readonly entries: JournalEntry[] = [];
  private seq = 0;

  get last(): number {
    return this.seq;
  }

  record(entry: Omit<JournalEntry, 'seq' | 'at'>): void {
    const body = entry.body === undefined ? undefined : shorten(entry.body);
    this.entries.push({ ...entry, ...(body !== undefined ? { body } : {}), seq: ++this.seq, at: new Date().toISOString() });
    if (this.entries.length > MAX_ENTRIES) this.entries.splice(0, this.entries.length - MAX_ENTRIES);
  }

  /** Entries after `seq` (all kept ones when 0). */
  after(seq: number): JournalEntry[] {
    return this.entries.filter((e) => e.seq > seq);
  }
}

function shorten(body: unknown): unknown {
  const text = JSON.stringify(body);
  if (text === undefined || text.length <= MAX_BODY_CHARS) return body;
  return `${text.slice(0, MAX_BODY_CHARS)}… (${text.length} characters)`;
}

/** A route template with its parameters filled in, tokens excepted. */
export function journalPath(template: string, params: Readonly<Record<string, string>>): string {
  return template.replace(/:([A-Za-z]+)/g, (whole, name: string) =>
    name.toLowerCase().includes('token') || !Object.prototype.hasOwnProperty.call(params, name) ? whole : encodeURIComponent(params[name]!),
  );
}
