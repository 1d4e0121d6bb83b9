import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Heartbeater } from '../../src/gateway/heartbeat.js';

describe('Heartbeater', () => {
  let sends: number[];
  let zombies: number[];
  let hb: Heartbeater;

  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
    sends = [];
    zombies = [];
    hb = new Heartbeater(
      { send: () => sends.push(Date.now()), zombie: () => zombies.push(Date.now()) },
      { random: () => 0.25, now: () => Date.now() },
    );
  });
  afterEach(() => {
    hb.stop();
    vi.useRealTimers();
  });

  it('sends the first heartbeat after interval * jitter, then every interval', () => {
    hb.start(1000);
    vi.advanceTimersByTime(249);
    expect(sends).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(sends).toEqual([250]);
    hb.ack();
    vi.advanceTimersByTime(1000);
    hb.ack();
    vi.advanceTimersByTime(1000);
    expect(sends).toEqual([250, 1250, 2250]);
    expect(zombies).toEqual([]);
  });

  it('declares a zombie when no ACK arrived between two heartbeats, and stops', () => {
    hb.start(1000);
    vi.advanceTimersByTime(250);
    vi.advanceTimersByTime(1000);
    expect(sends).toEqual([250]);
    expect(zombies).toEqual([1250]);
    expect(hb.running).toBe(false);
    vi.advanceTimersByTime(5000);
    expect(sends.length).toBe(1);
    expect(zombies.length).toBe(1);
  });

  it('answers a server heartbeat request at once and measures latency from ACKs', () => {
    hb.start(1000);
    vi.advanceTimersByTime(100);
    hb.beatNow();
    expect(sends).toEqual([100]);
    expect(hb.latency).toBe(-1);
    vi.advanceTimersByTime(42);
    hb.ack();
    expect(hb.latency).toBe(42);
  });

  it('a server-requested beat just before a scheduled one is not taken for a zombie: the schedule restarts from it', () => {
    hb.start(1000);
    vi.advanceTimersByTime(250);
    hb.ack();
    vi.advanceTimersByTime(990); // 1240: the service asks, 10 ms before our own beat is due
    hb.beatNow();
    vi.advanceTimersByTime(30); // the ACK takes 30 ms: our old schedule would have found it missing at 1250
    hb.ack();
    expect(zombies).toEqual([]);
    vi.advanceTimersByTime(1000);
    expect(sends).toEqual([250, 1240, 2240]);
    expect(zombies).toEqual([]);
  });

  it('raises an interval below 100 ms to 100 ms, so an ACK has room for a round trip', () => {
    hb.start(1);
    expect(hb.interval).toBe(100);
    vi.advanceTimersByTime(25); // the first beat: 100 ms x jitter 0.25
    vi.advanceTimersByTime(99); // an ACK 99 ms after its beat is still in time
    expect(zombies).toEqual([]);
    hb.ack();
    vi.advanceTimersByTime(1);
    expect(sends).toEqual([25, 125]);
    expect(zombies).toEqual([]);
  });

  it('refuses an interval its timer cannot hold (over 2^31-1 ms, below 1 ms, not finite)', () => {
    for (const bad of [2 ** 31, 1e12, 0.001, 0, -5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => hb.start(bad), String(bad)).toThrow(RangeError);
    }
    expect(hb.running).toBe(false);
    vi.advanceTimersByTime(10_000);
    expect(sends).toEqual([]);
  });

  it('restarts cleanly on a new connection', () => {
    hb.start(1000);
    vi.advanceTimersByTime(250); // one unacked beat
    hb.start(2000);
    vi.advanceTimersByTime(500);
    expect(sends).toEqual([250, 750]);
    expect(zombies).toEqual([]);
  });
});
