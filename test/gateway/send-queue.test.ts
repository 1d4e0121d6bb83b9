import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SendQueue } from '../../src/gateway/send-queue.js';
import { SendQueueFullError } from '../../src/gateway/errors.js';

describe('SendQueue', () => {
  let written: Array<{ text: string; at: number }>;
  const writer = (text: string) => written.push({ text, at: Date.now() });

  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
    written = [];
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  function queue(limit = 120, windowMs = 60_000): SendQueue {
    const q = new SendQueue({ limit, windowMs, marginMs: 0, now: () => Date.now() });
    q.attach(writer);
    return q;
  }

  /** The most sends inside any window of `windowMs` (sliding), from the recorded write times. */
  function maxInAnyWindow(windowMs: number): number {
    let max = 0;
    for (let i = 0; i < written.length; i++) {
      let n = 0;
      for (let j = i; j < written.length && written[j]!.at - written[i]!.at < windowMs; j++) n++;
      max = Math.max(max, n);
    }
    return max;
  }

  it('is bounded: over maxQueued a send is refused at once; withdrawn sends free their place and are never written', () => {
    const q = new SendQueue({ limit: 120, windowMs: 60_000, marginMs: 0, now: () => Date.now(), maxQueued: 2, shardId: 7 });
    q.attach(writer);
    const outcomes: Array<Error | undefined | 'sent'> = [];
    const withdrawA = q.enqueue('a', (e) => outcomes.push(e ?? 'sent'));
    q.enqueue('b', (e) => outcomes.push(e ?? 'sent'));
    q.enqueue('c', (e) => outcomes.push(e ?? 'sent'));
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]).toBeInstanceOf(SendQueueFullError);
    expect((outcomes[0] as SendQueueFullError).shardId).toBe(7);
    expect(q.pending).toBe(2);
    withdrawA();
    withdrawA(); // twice is harmless
    expect(q.pending).toBe(1);
    q.enqueue('d', (e) => outcomes.push(e ?? 'sent'));
    q.open();
    expect(written.map((w) => w.text)).toEqual(['b', 'd']);
    expect(outcomes.slice(1)).toEqual(['sent', 'sent']);
    expect(q.pending).toBe(0);
  });

  it('drops withdrawn sends while closed, so a long outage with callers giving up does not grow the queue', () => {
    const q = new SendQueue({ limit: 120, windowMs: 60_000, marginMs: 0, now: () => Date.now(), maxQueued: 10 });
    q.attach(writer);
    for (let i = 0; i < 5_000; i++) q.enqueue(`x${i}`)();
    expect(q.pending).toBe(0);
    // Internal length stays bounded by the compaction rule (2 x live + 64).
    expect((q as unknown as { queue: unknown[] }).queue.length).toBeLessThanOrEqual(65);
    q.enqueue('kept');
    q.open();
    expect(written.map((w) => w.text)).toEqual(['kept']);
  });

  it('holds ordinary sends until the session is open', () => {
    const q = queue();
    q.enqueue('a');
    expect(written).toEqual([]);
    q.open();
    expect(written.map((w) => w.text)).toEqual(['a']);
  });

  it('sends ordinary payloads only up to limit - reserved per window, the rest later', () => {
    const q = queue(120, 60_000);
    q.setReserved(4);
    q.open();
    for (let i = 0; i < 200; i++) q.enqueue(`m${i}`);
    expect(written.length).toBe(116);
    vi.advanceTimersByTime(59_000);
    expect(written.length).toBe(116);
    vi.advanceTimersByTime(2_000);
    expect(written.length).toBe(200);
    expect(written.map((w) => w.text)).toEqual(Array.from({ length: 200 }, (_, i) => `m${i}`));
    expect(maxInAnyWindow(60_000)).toBeLessThanOrEqual(120);
  });

  it('always leaves room for heartbeats when ordinary sends saturate the window', () => {
    const q = queue(120, 60_000);
    q.setReserved(3);
    q.open();
    for (let i = 0; i < 500; i++) q.enqueue('op8');
    const before = written.length;
    for (let i = 0; i < 3; i++) {
      q.sendPriority('hb');
      vi.advanceTimersByTime(15_000);
    }
    const heartbeats = written.filter((w) => w.text === 'hb');
    expect(heartbeats.length).toBe(3);
    // Each heartbeat went out the moment it was asked for.
    expect(heartbeats.every((h, i) => h.at === i * 15_000)).toBe(true);
    expect(before).toBe(117);
    vi.advanceTimersByTime(10 * 60_000);
    expect(maxInAnyWindow(60_000)).toBeLessThanOrEqual(120);
  });

  it('never exceeds the limit in any sliding window, priority sends included', () => {
    const q = queue(10, 1_000);
    q.setReserved(2);
    q.open();
    for (let step = 0; step < 300; step++) {
      q.enqueue(`m${step}`);
      if (step % 7 === 0) q.sendPriority('hb');
      vi.advanceTimersByTime(37);
    }
    vi.advanceTimersByTime(60_000);
    expect(written.filter((w) => w.text.startsWith('m')).length).toBe(300);
    expect(maxInAnyWindow(1_000)).toBeLessThanOrEqual(10);
  });

  it('keeps ordinary sends across a reconnect and starts a fresh window on attach', () => {
    const q = queue(10, 1_000);
    q.setReserved(1);
    q.open();
    for (let i = 0; i < 12; i++) q.enqueue(`m${i}`);
    expect(written.length).toBe(9);
    q.detach();
    vi.advanceTimersByTime(5_000);
    expect(written.length).toBe(9); // no socket, nothing written
    q.attach(writer);
    q.sendPriority('resume');
    expect(written.length).toBe(10);
    q.open();
    expect(written.map((w) => w.text).slice(9)).toEqual(['resume', 'm9', 'm10', 'm11']);
  });

  it('reports sends and clears the rest with an error', () => {
    const q = queue(10, 1_000);
    q.setReserved(1);
    const results: Array<string> = [];
    q.enqueue('a', (e) => results.push(e ? `a:${e.message}` : 'a:sent'));
    q.enqueue('b', (e) => results.push(e ? `b:${e.message}` : 'b:sent'));
    q.open();
    q.detach();
    q.enqueue('c', (e) => results.push(e ? `c:${e.message}` : 'c:sent'));
    q.clear(new Error('closed'));
    expect(results).toEqual(['a:sent', 'b:sent', 'c:closed']);
    expect(q.pending).toBe(0);
  });

  it('spaces windows by a margin, since the service counts arrivals', () => {
    const q = new SendQueue({ limit: 10, windowMs: 1000, marginMs: 200, now: () => Date.now() });
    q.attach(writer);
    q.setReserved(1);
    q.open();
    for (let i = 0; i < 10; i++) q.enqueue(`m${i}`);
    expect(written.length).toBe(9);
    vi.advanceTimersByTime(1100);
    expect(written.length).toBe(9);
    vi.advanceTimersByTime(200);
    expect(written.length).toBe(10);
    expect(new SendQueue({ windowMs: 60_000 }).marginMs).toBe(1200);
  });

  it('clamps the reservation so ordinary sends keep a slot', () => {
    const q = queue(10, 1_000);
    q.setReserved(50);
    expect(q.reserved).toBe(9);
    q.setReserved(0);
    expect(q.reserved).toBe(1);
  });
});
