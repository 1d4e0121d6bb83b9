/**
 * The Redis backend's write queue: commands go on one pipeline, sent at the end of the tick (or as soon as it
 * holds `pipelineSize` commands, so pipelines leave in command order and stay a bounded size); member records
 * are gathered into ghMembers calls of `memberBatch` records. Every command carries what it concerns (a guild,
 * the entitlements, or nothing) and the event it came from, so that a failed command is reported where it
 * happened (`onFailure`), once per guild it concerned.
 */
import type { ChainableCommander, Redis } from 'ioredis';
import type { Scripted } from './scripts.js';
import { encodeMemberRecords } from './codec.js';

/** What a queued command concerns: a guild id (or the entitlements' stale key), every guild of a member batch, or nothing. */
export type WriteTag = string | readonly string[] | null;

export interface WriteQueueOptions {
  redis: Redis;
  pipelineSize: number;
  memberBatch: number;
  /** The ghMembers arguments before the records (keys and header, see scripts.ts MEMBERS). */
  memberScriptHead: () => (string | number)[];
  /** A command failed: `tag` and `event` as queued (`event` is per record for a member batch). */
  onFailure: (error: Error, tag: WriteTag, event: string | readonly string[]) => void;
  /** A pipeline that wanted it (`wantJobs`) ran. */
  onJobsWanted: () => void;
}

export class WriteQueue {
  /** The dispatch being applied: commands queued without an explicit event are tagged with it. */
  event = '';
  private pipe: ChainableCommander | null = null;
  private queued = 0;
  private tags: WriteTag[] = [];
  private events: (string | readonly string[])[] = [];
  private records: (string | number)[] = [];
  private recordCount = 0;
  private recordGuilds: string[] = [];
  private recordEvents: string[] = [];
  private scheduled = false;
  private jobsWanted = false;
  private readonly inflight = new Set<Promise<void>>();

  constructor(private readonly options: WriteQueueOptions) {}

  /** The pipeline to queue one command on (after any member records waiting, to keep event order). */
  command(tag: WriteTag, event: string = this.event): ChainableCommander & Scripted {
    if (this.recordCount > 0) this.queueRecords();
    const pipe = this.rawPipeline();
    this.tags.push(tag);
    this.events.push(event);
    return pipe;
  }

  /**
   * The array to append one member record to (see scripts.ts MEMBERS), then `closeMemberRecord`; records
   * go out together. Nothing else may be queued between the two calls.
   */
  openMemberRecord(): (string | number)[] {
    return this.records;
  }

  closeMemberRecord(guildId: string): void {
    this.recordGuilds.push(guildId);
    this.recordEvents.push(this.event);
    // A record weighs one command against pipelineSize, so a pipeline stays a bounded size.
    if (++this.recordCount >= this.options.memberBatch || this.queued + this.recordCount >= this.options.pipelineSize) this.queueRecords();
    else this.schedule();
  }

  /** Look for background jobs once the pipeline queued so far has run (it creates one). */
  wantJobs(): void {
    this.jobsWanted = true;
  }

  /** Send what is queued and wait for every pipeline in flight. Never throws (failures are reported). */
  async drain(): Promise<void> {
    this.send();
    while (this.inflight.size > 0) await Promise.all(this.inflight);
  }

  private rawPipeline(): ChainableCommander & Scripted {
    if (this.pipe !== null && this.queued >= this.options.pipelineSize) this.send();
    if (this.pipe === null) {
      this.pipe = this.options.redis.pipeline();
      this.schedule();
    }
    this.queued++;
    return this.pipe as ChainableCommander & Scripted;
  }

  private queueRecords(): void {
    const records = this.records;
    const count = this.recordCount;
    const guilds = this.recordGuilds;
    const events = this.recordEvents;
    this.records = [];
    this.recordCount = 0;
    this.recordGuilds = [];
    this.recordEvents = [];
    const pipe = this.rawPipeline();
    this.queued += count - 1;
    this.tags.push(guilds);
    this.events.push(events);
    pipe.ghMembers(...this.options.memberScriptHead(), encodeMemberRecords(records));
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.send();
    });
  }

  private send(): void {
    if (this.recordCount > 0) this.queueRecords();
    if (this.pipe === null) return;
    const pipe = this.pipe;
    const tags = this.tags;
    const events = this.events;
    const wantJobs = this.jobsWanted;
    this.jobsWanted = false;
    this.pipe = null;
    this.queued = 0;
    this.tags = [];
    this.events = [];
    const { onFailure, onJobsWanted } = this.options;
    const done = pipe.exec().then(
      (results) => {
        if (results === null) return;
        for (let i = 0; i < results.length; i++) {
          const err = results[i]![0];
          if (err) onFailure(err, tags[i] ?? null, events[i] ?? '');
        }
        if (wantJobs) onJobsWanted();
      },
      (err: unknown) => {
        const error = err instanceof Error ? err : new Error(String(err));
        for (let i = 0; i < tags.length; i++) onFailure(error, tags[i]!, events[i]!);
      },
    );
    const tracked: Promise<void> = done.finally(() => this.inflight.delete(tracked));
    this.inflight.add(tracked);
  }
}
