import { describe, expect, it, afterEach } from 'vitest';
import { Writable } from 'node:stream';
import { clearSecrets, redact, redactError, registerSecret } from '../../src/util/redact.js';
import { createLogger } from '../../src/runtime/logger.js';

afterEach(() => clearSecrets());

describe('redact', () => {
  it('removes registered secrets wherever they occur', () => {
    registerSecret('super-secret-value-1');
    expect(redact('a super-secret-value-1 b super-secret-value-1')).toBe('a [redacted] b [redacted]');
  });

  it('removes token-shaped strings and Authorization credentials it was never told about', () => {
    const token = 'MTIzNDU2Nzg5MDEyMzQ1Njc4.GaBcDe.abcdefghijklmnopqrstuvwxyz0123';
    expect(redact(`token=${token}`)).toBe('token=[redacted]');
    expect(redact('Authorization: Bearer abcdefghijkl123')).toBe('Authorization: Bearer [redacted]');
    expect(redact('a short Bot hi')).toBe('a short Bot hi');
  });

  it('masks the credentials of URLs wherever they occur, keeping scheme, user name and host', () => {
    expect(redact('connecting to redis://:hunter2hunter2@10.0.0.5:6379/0')).toBe('connecting to redis://:[redacted]@10.0.0.5:6379/0');
    expect(redact('{"url":"https://user:p%40ss@api.example.com/api/v10"}')).toBe('{"url":"https://user:[redacted]@api.example.com/api/v10"}');
    expect(redact('rediss://default:pw@[::1]:6380')).toBe('rediss://default:[redacted]@[::1]:6380');
    // User info without a colon is usually a key on its own.
    expect(redact('https://APIKEY123456@host.example/x')).toBe('https://[redacted]@host.example/x');
    // Not credentials: an address, an @ in a path, a URL without user info.
    expect(redact('mail a@b.example or https://host.example/x@y or redis://127.0.0.1:6379')).toBe(
      'mail a@b.example or https://host.example/x@y or redis://127.0.0.1:6379',
    );
  });

  it('scrubs error messages and stacks', () => {
    registerSecret('another-secret-xyz');
    const err = redactError(new Error('failed with another-secret-xyz'));
    expect(err.message).toBe('failed with [redacted]');
    expect(err.stack).not.toContain('another-secret-xyz');
  });
});

describe('logger', () => {
  function collect(): { stream: Writable; text: () => string } {
    const chunks: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _enc, cb) {
        chunks.push(chunk.toString());
        cb();
      },
    });
    return { stream, text: () => chunks.join('') };
  }

  it('never writes a registered secret, in messages, fields or errors', () => {
    const secret = 'the-bot-token-0123456789';
    registerSecret(secret);
    const out = collect();
    const log = createLogger({ pretty: false, destination: out.stream }).child({ component: 'test' });
    log.info({ token: secret, nested: { header: `Bot ${secret}` } }, `using ${secret}`);
    log.error({ err: new Error(`boom ${secret}`) }, 'failed');
    const text = out.text();
    expect(text).toContain('"component":"test"');
    expect(text).toContain('[redacted]');
    expect(text).not.toContain(secret);
  });

  it('redacts pretty output too', () => {
    const secret = 'pretty-secret-0123456789';
    registerSecret(secret);
    const out = collect();
    createLogger({ pretty: true, destination: out.stream }).warn(`leak ${secret}?`);
    expect(out.text()).toContain('leak [redacted]?');
  });
});

describe('registered secrets stay bounded', () => {
  it('keeps long-lived secrets for good and only the most recent transient ones', () => {
    registerSecret('bot-token-that-stays-0000');
    for (let i = 0; i < 1000; i++) registerSecret(`oauth-token-${String(i).padStart(6, '0')}`, { transient: true });
    expect(redact('bot-token-that-stays-0000')).toBe('[redacted]');
    expect(redact('oauth-token-000999')).toBe('[redacted]');
    expect(redact('oauth-token-000744')).toBe('[redacted]');
    // Evicted: the oldest of the 1,000 transient tokens (256 are kept).
    expect(redact('oauth-token-000000')).toBe('oauth-token-000000');
  });

  it('a transient secret registered again as long-lived is kept for good', () => {
    registerSecret('client-secret-xyz-123', { transient: true });
    registerSecret('client-secret-xyz-123');
    for (let i = 0; i < 300; i++) registerSecret(`other-token-${String(i).padStart(6, '0')}`, { transient: true });
    expect(redact('client-secret-xyz-123')).toBe('[redacted]');
  });
});
