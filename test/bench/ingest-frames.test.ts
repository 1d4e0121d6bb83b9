/**
 * The ingest benchmark's service inserts heartbeat ACKs, compressed on their own, into pre-compressed streams
 * at reset points. A client must read every message and every ACK as sent: checked here with gatehouse's own
 * decoders, for zlib-stream and zstd-stream, with an ACK after every reset point and none elsewhere.
 */
import { describe, expect, it } from 'vitest';
import { createInflater, loadZlibSync, type InflatePreference, type TransportCompression } from '../../src/gateway/inflate.js';
import { loadZstdNapi } from '../../src/util/zstd.js';
import { encode, frameAt, isResetPoint, RESET_EVERY, type Transport } from '../../bench/ingest/frames.js';
import { IngestWorkload } from '../../bench/ingest/workload.js';

const ACK = '{"t":null,"s":null,"op":11,"d":null}';

describe.each<[Transport, InflatePreference]>([
  ['zlib-stream', 'zlib-sync'],
  ['zlib-stream', 'node:zlib'],
  ['zstd-stream', 'zstd-napi'],
  ['zstd-stream', 'fzstd'],
])('ingest bench frames over %s, read by %s', (transport, inflate) => {
  const missing = (transport === 'zstd-stream' && loadZstdNapi() === null) || (inflate === 'zlib-sync' && loadZlibSync() === null);
  it.skipIf(missing)('decode to the messages, with ACKs inserted at every reset point', async () => {
    const built = new IngestWorkload({ guilds: 3, membersPerGuild: 80, quietPerGuild: 10, sharedPerGuild: 4, sharedUsers: 10, events: RESET_EVERY * 2 + 7 }).build();
    const messages = [built.hello, ...built.startup, ...built.events];
    const frames = await encode(transport, messages, built.startup.length, built.events.length);
    const expected: string[] = [];
    const texts: string[] = [];
    const errors: Error[] = [];
    const inflater = createInflater({ message: (t) => void texts.push(t), error: (e) => void errors.push(e) }, inflate, transport as TransportCompression);
    let resets = 0;
    for (let i = 0; i < messages.length; i++) {
      inflater.push(Buffer.from(frameAt(frames, i)));
      expected.push(messages[i]!);
      if (isResetPoint(frames, i)) {
        resets++;
        inflater.push(Buffer.from(frames.ack));
        expected.push(ACK);
      }
    }
    await new Promise<void>((resolve) => inflater.whenIdle(resolve));
    expect(errors).toEqual([]);
    // HELLO, the end of the startup burst, two full blocks of events and the last event.
    expect(resets).toBe(5);
    expect(texts).toEqual(expected);
  });
});

describe('ingest bench workload', () => {
  it('is deterministic and its expected state follows from its events', () => {
    const options = { guilds: 4, membersPerGuild: 60, quietPerGuild: 10, sharedPerGuild: 4, sharedUsers: 8, events: 3000 };
    const a = new IngestWorkload(options).build();
    const b = new IngestWorkload(options).build();
    expect(b.events).toEqual(a.events);
    const e = a.expected;
    const adds = e.events.GUILD_MEMBER_ADD;
    const removes = e.events.GUILD_MEMBER_REMOVE;
    expect(e.members).toBe(options.guilds * options.membersPerGuild + adds - removes);
    expect(e.membersPerGuild.reduce((n, [, c]) => n + c, 0)).toBe(e.members);
    expect(Object.values(e.events).reduce((n, c) => n + c, 0)).toBe(options.events);
    expect(e.entitlements.filter((x) => x.endsAt !== null)).toHaveLength(e.events.ENTITLEMENT_UPDATE);
    // Every update changes the nick, so every library reports it as a change.
    const updates = a.events.filter((m) => m.includes('"GUILD_MEMBER_UPDATE"')).map((m) => JSON.parse(m) as { d: { nick: string | null } });
    expect(updates.every((u) => typeof u.d.nick === 'string')).toBe(true);
  });
});
