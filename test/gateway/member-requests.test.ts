import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildRequestData, MemberRequestAssembler } from '../../src/gateway/member-requests.js';
import {
  GatewayPayloadError,
  MemberRequestRateLimitedError,
  MemberRequestTimeoutError,
} from '../../src/gateway/errors.js';

const GUILD = '81384788765712384';

function member(id: string) {
  return { user: { id, username: `u${id}` }, roles: [], joined_at: '2020-01-01T00:00:00.000Z', deaf: false, mute: false };
}

describe('MemberRequestAssembler', () => {
  let sent: Array<{ op: number; d: Record<string, unknown> }>;
  let assembler: MemberRequestAssembler;
  let deferSends: boolean;
  let deferred: Array<(error?: Error) => void>;
  /** Queued sends taken back out of the (simulated) send queue. */
  let withdrawn: number;

  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
    sent = [];
    deferred = [];
    deferSends = false;
    withdrawn = 0;
    assembler = new MemberRequestAssembler((text, onSent) => {
      if (deferSends) {
        const release = (error?: Error): void => {
          if (!error) sent.push(JSON.parse(text));
          onSent(error);
        };
        deferred.push(release);
        return () => {
          const i = deferred.indexOf(release);
          if (i >= 0) {
            deferred.splice(i, 1);
            withdrawn++;
          }
        };
      }
      sent.push(JSON.parse(text));
      onSent();
      return () => undefined;
    });
  });
  afterEach(() => vi.useRealTimers());

  function chunk(nonce: string, index: number, count: number, ids: string[], extra: Record<string, unknown> = {}) {
    return { guild_id: GUILD, nonce, chunk_index: index, chunk_count: count, members: ids.map(member), ...extra };
  }

  it('sends op 8 with a nonce and resolves once with every chunk assembled, in any order', async () => {
    const result = assembler.request({ guildId: GUILD, presences: true });
    expect(sent.length).toBe(1);
    expect(sent[0]!.op).toBe(8);
    const d = sent[0]!.d;
    expect(d).toMatchObject({ guild_id: GUILD, query: '', limit: 0, presences: true });
    const nonce = d.nonce as string;
    expect(Buffer.byteLength(nonce)).toBeLessThanOrEqual(32);

    expect(assembler.handleChunk(chunk(nonce, 2, 3, ['5']))).toBe(true);
    expect(assembler.handleChunk(chunk(nonce, 0, 3, ['1', '2'], { presences: [{ user: { id: '1' } }] }))).toBe(true);
    expect(assembler.handleChunk(chunk(nonce, 0, 3, ['1', '2']))).toBe(true); // duplicate: ignored
    expect(assembler.handleChunk(chunk(nonce, 1, 3, ['3', '4'], { not_found: ['9'] }))).toBe(true);
    const r = await result;
    expect(r.members.map((m) => m.user!.id).sort()).toEqual(['1', '2', '3', '4', '5']);
    expect(r.notFound).toEqual(['9']);
    expect(r.presences.length).toBe(1);
    expect(r.chunkCount).toBe(3);
    expect(assembler.size).toBe(0);
    // Late duplicates are not ours any more.
    expect(assembler.handleChunk(chunk(nonce, 2, 3, ['5']))).toBe(false);
  });

  it('leaves chunks with unknown nonces or another guild alone', () => {
    void assembler.request({ guildId: GUILD, userIds: ['1'] });
    const nonce = sent[0]!.d.nonce as string;
    expect(assembler.handleChunk(chunk('someone-else', 0, 1, ['1']))).toBe(false);
    expect(assembler.handleChunk({ ...chunk(nonce, 0, 1, ['1']), guild_id: '1' })).toBe(false);
    expect(assembler.handleChunk({ guild_id: GUILD, chunk_index: 0, chunk_count: 1, members: [] })).toBe(false);
    expect(assembler.size).toBe(1);
  });

  it('on RATE_LIMITED waits retry_after, asks again with the same nonce, and resolves once', async () => {
    const settled = vi.fn();
    const result = assembler.request({ guildId: GUILD });
    result.then(settled, settled);
    const nonce = sent[0]!.d.nonce as string;
    expect(assembler.handleRateLimited({ opcode: 8, retry_after: 2.5, meta: { guild_id: GUILD, nonce } })).toBe(true);
    await vi.advanceTimersByTimeAsync(2499);
    expect(sent.length).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(sent.length).toBe(2);
    expect(sent[1]!.d.nonce).toBe(nonce);
    assembler.handleChunk(chunk(nonce, 0, 1, ['1', '2']));
    const r = await result;
    expect(r.members.length).toBe(2);
    expect(r.attempts).toBe(2);
    expect(settled).toHaveBeenCalledTimes(1);
  });

  it('rejects with a typed error when told not to retry', async () => {
    const result = assembler.request({ guildId: GUILD, retryOnRateLimit: false });
    const nonce = sent[0]!.d.nonce as string;
    assembler.handleRateLimited({ opcode: 8, retry_after: 10, meta: { guild_id: GUILD, nonce } });
    const error = await result.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MemberRequestRateLimitedError);
    expect((error as MemberRequestRateLimitedError).retryAfter).toBe(10);
    expect((error as Error).message).toContain(GUILD);
  });

  it('bounds the retries', async () => {
    const result = assembler.request({ guildId: GUILD, maxAttempts: 3 });
    const caught = result.catch((e: unknown) => e);
    const nonce = sent[0]!.d.nonce as string;
    for (let i = 0; i < 3; i++) {
      assembler.handleRateLimited({ opcode: 8, retry_after: 1, meta: { guild_id: GUILD, nonce } });
      await vi.advanceTimersByTimeAsync(1000);
    }
    const error = await caught;
    expect(error).toBeInstanceOf(MemberRequestRateLimitedError);
    expect((error as MemberRequestRateLimitedError).attempts).toBe(3);
    expect(sent.length).toBe(3);
  });

  it('ignores RATE_LIMITED for other opcodes or nonces', () => {
    void assembler.request({ guildId: GUILD });
    const nonce = sent[0]!.d.nonce as string;
    expect(assembler.handleRateLimited({ opcode: 31, retry_after: 1, meta: { nonce } })).toBe(false);
    expect(assembler.handleRateLimited({ opcode: 8, retry_after: 1, meta: { guild_id: GUILD, nonce: 'x' } })).toBe(false);
  });

  it('the deadline counts from the call: chunks that keep coming do not extend it', async () => {
    const result = assembler.request({ guildId: GUILD, timeoutMs: 1000 });
    const caught = result.catch((e: unknown) => e);
    const nonce = sent[0]!.d.nonce as string;
    await vi.advanceTimersByTimeAsync(600);
    assembler.handleChunk(chunk(nonce, 0, 2, ['1']));
    await vi.advanceTimersByTimeAsync(399);
    expect(assembler.size).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    const error = await caught;
    expect(error).toBeInstanceOf(MemberRequestTimeoutError);
    expect((error as Error).message).toMatch(/1\/2 chunk/);
  });

  it('a rate limit whose retry_after passes the deadline rejects at once', async () => {
    const result = assembler.request({ guildId: GUILD, timeoutMs: 2000 });
    const caught = result.catch((e: unknown) => e);
    const nonce = sent[0]!.d.nonce as string;
    await vi.advanceTimersByTimeAsync(100);
    assembler.handleRateLimited({ opcode: 8, retry_after: 5, meta: { guild_id: GUILD, nonce } });
    const error = await caught;
    expect(error).toBeInstanceOf(MemberRequestRateLimitedError);
    expect(sent.length).toBe(1);
    expect(assembler.size).toBe(0);
  });

  it('the deadline includes time in the send queue; a request still queued at its deadline leaves the queue', async () => {
    deferSends = true;
    const result = assembler.request({ guildId: GUILD, timeoutMs: 1000 });
    const caught = result.catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(999);
    expect(assembler.size).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    const error = await caught;
    expect(error).toBeInstanceOf(MemberRequestTimeoutError);
    expect((error as Error).message).toMatch(/before it could be sent/);
    expect((error as MemberRequestTimeoutError).neverSent).toBe(true);
    // Taken out of the queue: it is never written for nobody.
    expect(withdrawn).toBe(1);
    expect(deferred).toEqual([]);
    expect(sent).toEqual([]);
  });

  it('asks again in a new session only for requests already written', async () => {
    const a = assembler.request({ guildId: GUILD, nonce: 'a' });
    assembler.handleChunk(chunk('a', 0, 2, ['1']));
    deferSends = true;
    void assembler.request({ guildId: GUILD, nonce: 'b' }); // still queued: never written
    deferSends = false;
    assembler.restartAll();
    expect(sent.map((p) => p.d.nonce)).toEqual(['a', 'a']);
    // Chunks from the first attempt were dropped: two new chunks are needed.
    assembler.handleChunk(chunk('a', 0, 2, ['1']));
    assembler.handleChunk(chunk('a', 1, 2, ['2']));
    expect((await a).members.length).toBe(2);
  });

  it('after a resume asks again only for requests written on a lost connection that got no chunk', async () => {
    const answered = assembler.request({ guildId: GUILD, nonce: 'answered' });
    void assembler.request({ guildId: GUILD, nonce: 'lost' });
    assembler.handleChunk(chunk('answered', 0, 2, ['1']));
    assembler.connectionChanged();
    void assembler.request({ guildId: GUILD, nonce: 'fresh' }); // written on the new connection
    assembler.resendUnanswered();
    expect(sent.map((p) => p.d.nonce)).toEqual(['answered', 'lost', 'fresh', 'lost']);
    // A duplicate answer to the re-sent request is harmless: chunk indexes already seen are dropped.
    assembler.handleChunk(chunk('answered', 1, 2, ['2']));
    expect((await answered).members.length).toBe(2);
  });

  it('rejects every pending request on rejectAll', async () => {
    const a = assembler.request({ guildId: GUILD });
    assembler.rejectAll(new Error('shard closed'));
    await expect(a).rejects.toThrow('shard closed');
    expect(assembler.size).toBe(0);
  });

  it('reports bad options as a rejection, not a synchronous throw', async () => {
    let result: Promise<unknown> | undefined;
    expect(() => (result = assembler.request({ guildId: GUILD, limit: -1 }))).not.toThrow();
    await expect(result).rejects.toBeInstanceOf(GatewayPayloadError);
    expect(sent.length).toBe(0);
    expect(assembler.size).toBe(0);
  });

  it('refuses a duplicate pending nonce', async () => {
    void assembler.request({ guildId: GUILD, nonce: 'same' });
    await expect(assembler.request({ guildId: GUILD, nonce: 'same' })).rejects.toBeInstanceOf(GatewayPayloadError);
  });
});

describe('buildRequestData', () => {
  it('validates options with messages naming them', () => {
    expect(() => buildRequestData({ guildId: 'abc' })).toThrow(/guildId/);
    expect(() => buildRequestData({ guildId: GUILD, query: 'a', userIds: ['1'] })).toThrow(/either query or userIds/);
    expect(() => buildRequestData({ guildId: GUILD, userIds: [] })).toThrow(/userIds/);
    expect(() => buildRequestData({ guildId: GUILD, userIds: Array.from({ length: 101 }, (_, i) => String(i)) })).toThrow(
      /1 to 100/,
    );
    expect(() => buildRequestData({ guildId: GUILD, limit: -1 })).toThrow(/limit/);
    expect(() => buildRequestData({ guildId: GUILD, nonce: 'x'.repeat(33) })).toThrow(/32 bytes/);
  });

  it('builds query and user_ids requests', () => {
    expect(buildRequestData({ guildId: GUILD, query: 'ab', limit: 10, nonce: 'n' })).toEqual({
      guild_id: GUILD,
      query: 'ab',
      limit: 10,
      nonce: 'n',
    });
    expect(buildRequestData({ guildId: GUILD, userIds: '5', nonce: 'n' })).toEqual({
      guild_id: GUILD,
      user_ids: '5',
      limit: 0,
      nonce: 'n',
    });
  });
});
