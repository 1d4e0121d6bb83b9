import { describe, expect, it } from 'vitest';
import { AnomalyLog, anomalyFromText } from '../../src/util/anomaly-log.js';

function setup(options: { windowMs?: number; maxKinds?: number } = {}) {
  const lines: Array<{ fields: Record<string, unknown>; message: string }> = [];
  let now = 1_000;
  const log = new AnomalyLog({ warn: (fields, message) => lines.push({ fields: fields as Record<string, unknown>, message }) }, { ...options, now: () => now });
  return { log, lines, advance: (ms: number) => (now += ms) };
}

describe('AnomalyLog', () => {
  it('warns once per kind (event + field, indexes folded) per window, naming the event and the field', () => {
    const { log, lines } = setup();
    for (let i = 0; i < 50; i++) log.report({ event: 'GUILD_MEMBER_ADD', field: `members[${i}].user.id`, reason: 'expected a snowflake string' });
    log.report({ event: 'GUILD_MEMBER_ADD', field: 'roles', reason: 'expected a list' });
    log.report({ event: 'READY', field: 'session_id', reason: 'expected a string' });
    expect(lines.map((l) => l.fields)).toEqual([
      { event: 'GUILD_MEMBER_ADD', field: 'members[0].user.id', reason: 'expected a snowflake string' },
      { event: 'GUILD_MEMBER_ADD', field: 'roles', reason: 'expected a list' },
      { event: 'READY', field: 'session_id', reason: 'expected a string' },
    ]);
    expect(lines[0]!.message).toBe('malformed payload: GUILD_MEMBER_ADD members[0].user.id: expected a snowflake string');
    expect(log.count).toBe(52);
  });

  it('after the window the next one is logged with the count of those held back', () => {
    const { log, lines, advance } = setup({ windowMs: 1_000 });
    for (let i = 0; i < 10; i++) log.report({ event: 'READY', field: 'session_id', reason: 'missing' });
    advance(999);
    log.report({ event: 'READY', field: 'session_id', reason: 'missing' });
    expect(lines).toHaveLength(1);
    advance(1);
    log.report({ event: 'READY', field: 'session_id', reason: 'missing' });
    expect(lines).toHaveLength(2);
    expect(lines[1]!.fields.repeated).toBe(10);
    expect(lines[1]!.message).toContain('(and 10 more like it since the last report)');
  });

  it('without a field the reason (numbers folded) makes the kind', () => {
    const { log, lines } = setup();
    log.report({ event: 'GUILD_CREATE', reason: 'roles[3] is not a role object' });
    log.report({ event: 'GUILD_CREATE', reason: 'roles[7] is not a role object' });
    log.report({ event: 'GUILD_CREATE', reason: 'members is not a list' });
    expect(lines.map((l) => l.fields.reason)).toEqual(['roles[3] is not a role object', 'members is not a list']);
  });

  it('keeps a bounded table of kinds: a flood of distinct kinds shares one slot until old ones expire', () => {
    const { log, lines, advance } = setup({ maxKinds: 3, windowMs: 100 });
    for (let i = 0; i < 1000; i++) log.report({ event: `EVENT_${String.fromCharCode(65 + (i % 26))}${i}`, reason: 'x' });
    // Three kinds plus one line for the overflow slot.
    expect(lines).toHaveLength(4);
    advance(100);
    log.report({ event: 'NEW', reason: 'y' });
    expect(lines).toHaveLength(5);
  });

  it('reads a field-first text (`path: reason`) as field and reason, anything else as the reason', () => {
    expect(anomalyFromText('GUILD_MEMBER_ADD', 'user.id: expected a snowflake string')).toEqual({
      event: 'GUILD_MEMBER_ADD',
      field: 'user.id',
      reason: 'expected a snowflake string',
    });
    expect(anomalyFromText('GUILD_CREATE', 'members[3].user: missing')).toMatchObject({ field: 'members[3].user', reason: 'missing' });
    expect(anomalyFromText('READY', 'expected a guilds list')).toEqual({ event: 'READY', reason: 'expected a guilds list' });
    expect(anomalyFromText('READY', 'a guild without a snowflake id: x')).toEqual({ event: 'READY', reason: 'a guild without a snowflake id: x' });
  });
});
