/**
 * What a subject counts while the workload flows, shared between the counting plugin (loaded by the runtime's
 * plugin host, as any plugin is) and the benchmark child that reads it.
 */
export interface IngestCounters {
  guildCreates: number;
  memberAdds: number;
  memberUpdates: number;
  memberRemoves: number;
  entitlementCreates: number;
  entitlementUpdates: number;
  interactions: number;
  /** Interactions whose answer the REST side accepted. */
  answered: number;
  answerErrors: number;
  /** The first failed answer's error, for the report. */
  answerError: string | null;
  /** Called after every count: the child checks its targets here. */
  onCount: () => void;
}

const KEY = Symbol.for('gatehouse.bench.ingest.counters');

export function ingestCounters(): IngestCounters {
  const holder = globalThis as { [KEY]?: IngestCounters };
  holder[KEY] ??= {
    guildCreates: 0,
    memberAdds: 0,
    memberUpdates: 0,
    memberRemoves: 0,
    entitlementCreates: 0,
    entitlementUpdates: 0,
    interactions: 0,
    answered: 0,
    answerErrors: 0,
    answerError: null,
    onCount: () => {},
  };
  return holder[KEY];
}
