/**
 * The decode floor: the very bytes the service sends (the same frames file the server reads), decompressed
 * and parsed and nothing else: zlib-sync (or zstd-napi / fzstd) + JSON.parse, Buffer#toString + JSON.parse
 * for plain JSON. No socket, no WebSocket framing, no cache. Any client must at least do this much.
 */
import { load, frameAt, type TransportFrames } from '../frames.js';
import type { ChildConfig, EventCounts, StateMessage } from '../protocol.js';
import { frameDecoder, type Decode } from './decode.js';
import type { IngestSubject } from './types.js';

export class FloorSubject implements IngestSubject {
  private readonly frames: TransportFrames;
  private readonly decode: Decode;
  private readonly byType: Record<string, number> = Object.create(null) as Record<string, number>;

  constructor(cfg: ChildConfig) {
    this.frames = load(cfg.framesDir, cfg.transport);
    this.decode = frameDecoder(cfg);
  }

  private run(from: number, to: number): void {
    const frames = this.frames;
    const byType = this.byType;
    for (let i = from; i < to; i++) {
      const text = this.decode(frameAt(frames, i));
      if (text === null) continue;
      const t = (JSON.parse(text) as { t: string | null }).t;
      if (t !== null) byType[t] = (byType[t] ?? 0) + 1;
    }
  }

  async start(): Promise<void> {
    this.run(0, this.frames.startupCount + 1);
  }

  async eventsDone(): Promise<EventCounts> {
    const f = this.frames;
    this.run(f.startupCount + 1, f.startupCount + f.eventCount + 1);
    const n = (t: string): number => this.byType[t] ?? 0;
    return {
      memberAdds: n('GUILD_MEMBER_ADD'),
      memberUpdates: n('GUILD_MEMBER_UPDATE'),
      memberRemoves: n('GUILD_MEMBER_REMOVE'),
      entitlementCreates: n('ENTITLEMENT_CREATE'),
      entitlementUpdates: n('ENTITLEMENT_UPDATE'),
      interactions: n('INTERACTION_CREATE'),
      answered: 0,
      byType: { ...this.byType },
    };
  }

  async settle(): Promise<void> {}
  async members(): Promise<number> {
    return 0;
  }
  async verify(): Promise<Omit<StateMessage, 'type'>> {
    return { membersPerGuild: [], sample: [], removedPresent: 0, entitlements: [], extra: {} };
  }
  async stop(): Promise<void> {}
}
