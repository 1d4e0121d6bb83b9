/**
 * What route helpers put on the wire beyond the operation itself: the audit-log reason header, multipart
 * bodies, query parameters, reaction emojis in the path, local refusals, and the client's limits applying
 * to them. Driven through a real RestClient against the capturing server on loopback.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MessageSearchHasType } from 'discord-api-types/v10';
import { RequestRefusedError, RestClient, type RateLimitedEvent, type RequestEvent } from '../../src/rest/index.js';
import * as routes from '../../src/rest/routes/index.js';
import { multipartParts, startCaptureServer, type Captured, type CaptureServer } from './openapi-capture.js';

const GUILD = '200000000000000001';
const CHANNEL = '200000000000000002';
const MESSAGE = '200000000000000003';
const USER = '200000000000000004';
const ROLE = '200000000000000005';
const WEBHOOK = '200000000000000006';
const EMOJI = '200000000000000007';
const TOKEN = 'a-webhook-token-that-must-not-leak';

let server: CaptureServer;
let rest: RestClient;

beforeEach(async () => {
  server = await startCaptureServer();
  rest = new RestClient({ baseUrl: server.baseUrl, token: 'wire-test-bot-token', retries: 0 });
});
afterEach(async () => {
  rest.close();
  await server.close();
});

function only(): Captured {
  expect(server.requests).toHaveLength(1);
  return server.requests[0]!;
}
const json = (c: Captured): unknown => JSON.parse(c.body.toString('utf8'));

describe('reason: the X-Audit-Log-Reason header', () => {
  it('is sent URI-encoded, exactly once, by the moderation helpers that take it', async () => {
    const reason = 'Spam in #général / raid: 3 warnings, "last" one';
    const calls: [string, () => Promise<unknown>][] = [
      ['kickMember', () => routes.kickMember(rest, GUILD, USER, { reason })],
      ['banMember', () => routes.banMember(rest, GUILD, USER, { delete_message_seconds: 60 }, { reason })],
      ['timeoutMember', () => routes.timeoutMember(rest, GUILD, USER, 60_000, { reason })],
      ['addMemberRole', () => routes.addMemberRole(rest, GUILD, USER, ROLE, { reason })],
      ['deleteChannel', () => routes.deleteChannel(rest, CHANNEL, { reason })],
      ['bulkDeleteMessages', () => routes.bulkDeleteMessages(rest, CHANNEL, [MESSAGE, USER], { reason })],
    ];
    for (const [name, call] of calls) {
      await call();
      const c = server.requests.at(-1)!;
      expect(c.headers['x-audit-log-reason'], name).toBe(encodeURIComponent(reason));
      expect(decodeURIComponent(c.headers['x-audit-log-reason'] as string), name).toBe(reason);
    }
    expect(server.requests).toHaveLength(calls.length);
  });

  it('is absent when no reason is given, and a reason over 512 characters is refused before sending', async () => {
    await routes.kickMember(rest, GUILD, USER);
    expect(only().headers['x-audit-log-reason']).toBeUndefined();
    const refused = await routes.kickMember(rest, GUILD, USER, { reason: 'x'.repeat(513) }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RequestRefusedError);
    expect(server.requests).toHaveLength(1);
  });
});

describe('files: multipart/form-data bodies', () => {
  it('sends a message with files as payload_json plus files[n], bytes and names intact', async () => {
    const bytes = new Uint8Array([0, 1, 2, 253, 254, 255]);
    await routes.createMessage(
      rest,
      CHANNEL,
      { content: 'two files', attachments: [{ id: '0', description: 'raw' }, { id: '1' }] },
      {
        files: [
          { name: 'raw.bin', data: bytes, contentType: 'application/octet-stream' },
          { name: 'note.txt', data: new Blob(['héllo'], { type: 'text/plain' }) },
        ],
      },
    );
    const c = only();
    expect(c.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    const parts = await multipartParts(c);
    expect(parts.map((p) => [p.name, p.filename])).toEqual([
      ['payload_json', null],
      ['files[0]', 'raw.bin'],
      ['files[1]', 'note.txt'],
    ]);
    expect(JSON.parse(parts[0]!.text)).toEqual({
      content: 'two files',
      attachments: [{ id: '0', description: 'raw' }, { id: '1' }],
    });
    const raw = c.body;
    // The binary part arrives byte for byte (a text round-trip would have mangled 0xfd-0xff).
    expect(raw.includes(Buffer.from(bytes))).toBe(true);
    expect(parts[1]!.contentType).toBe('application/octet-stream');
    expect(parts[2]).toMatchObject({ text: 'héllo', contentType: 'text/plain' });
  });

  it('uploads a sticker as plain fields and a part named "file", without payload_json', async () => {
    await routes.createGuildSticker(
      rest,
      GUILD,
      {
        name: 'gate',
        tags: 'door',
        file: { name: 'gate.png', data: new Uint8Array([137, 80, 78, 71]), contentType: 'image/png' },
      },
      { reason: 'new sticker' },
    );
    const c = only();
    const parts = await multipartParts(c);
    expect(parts.map((p) => [p.name, p.filename, p.filename === null ? p.text : p.contentType])).toEqual([
      ['name', null, 'gate'],
      ['tags', null, 'door'],
      ['description', null, ''],
      ['file', 'gate.png', 'image/png'],
    ]);
    expect(c.headers['x-audit-log-reason']).toBe('new%20sticker');
  });

  it('sends JSON when no file is given, and multipart for webhooks, edits and forum posts with files', async () => {
    await routes.editMessage(rest, CHANNEL, MESSAGE, { content: 'plain' });
    expect(server.requests[0]!.headers['content-type']).toBe('application/json');
    const file = { name: 'a.txt', data: new Uint8Array([97]) };
    await routes.editMessage(rest, CHANNEL, MESSAGE, { content: 'with file' }, { files: [file] });
    await routes.executeWebhook(rest, WEBHOOK, TOKEN, { content: 'hook' }, { files: [file] });
    await routes.startThread(rest, CHANNEL, { name: 'post', message: { content: 'first' } }, { files: [file] });
    for (const c of server.requests.slice(1)) {
      const parts = await multipartParts(c);
      expect(parts.map((p) => p.name)).toEqual(['payload_json', 'files[0]']);
    }
  });
});

describe('query parameters', () => {
  it('repeats list-valued keys, writes booleans and numbers as text, leaves out what is unset', async () => {
    await routes.searchGuildMessages(rest, GUILD, {
      author_id: [USER, ROLE],
      has: [MessageSearchHasType.Image, MessageSearchHasType.Link],
      limit: 10,
      pinned: false,
    });
    const c = only();
    expect(c.path).toBe(`/guilds/${GUILD}/messages/search`);
    expect(c.query.getAll('author_id')).toEqual([USER, ROLE]);
    expect(c.query.getAll('has')).toEqual(['image', 'link']);
    expect(c.query.get('limit')).toBe('10');
    expect(c.query.get('pinned')).toBe('false');
    expect([...c.query.keys()].sort()).toEqual(['author_id', 'author_id', 'has', 'has', 'limit', 'pinned'].sort());
  });

  it('sends only the parameters an operation has, whatever else the query object carries', async () => {
    const query = { query: 'ali', limit: 5, after: USER } as unknown as Parameters<typeof routes.searchMembers>[2];
    await routes.searchMembers(rest, GUILD, query);
    expect(Object.fromEntries(only().query)).toEqual({ query: 'ali', limit: '5' });
  });

  it('maps option names to the query: executeWebhook wait/thread_id, webhook messages thread_id, SKU subscription user_id', async () => {
    await routes.executeWebhook(rest, WEBHOOK, TOKEN, { content: 'x' }, { wait: true, threadId: CHANNEL });
    await routes.deleteWebhookMessage(rest, WEBHOOK, TOKEN, MESSAGE, { threadId: CHANNEL });
    await routes.getSkuSubscription(rest, ROLE, MESSAGE, { userId: USER });
    await routes.getSkuSubscription(rest, ROLE, MESSAGE);
    expect(server.requests.map((r) => r.query.toString())).toEqual([
      `wait=true&thread_id=${CHANNEL}`,
      `thread_id=${CHANNEL}`,
      `user_id=${USER}`,
      '',
    ]);
  });

  it('refuses a query value that is no scalar or list of scalars', async () => {
    const query = { query: { nested: true } } as unknown as Parameters<typeof routes.searchMembers>[2];
    // A rejected promise, never a synchronous throw: `.catch` on the call sees every failure.
    const call = routes.searchMembers(rest, GUILD, query);
    await expect(call).rejects.toThrow(/query parameter "query"/);
    expect(server.requests).toHaveLength(0);
  });
});

describe('reactions: the emoji in the path', () => {
  it('encodes a unicode emoji and name:id once, reads message form, and does not encode an encoded one twice', async () => {
    await routes.addReaction(rest, CHANNEL, MESSAGE, '👍');
    await routes.addReaction(rest, CHANNEL, MESSAGE, `wave:${EMOJI}`);
    await routes.addReaction(rest, CHANNEL, MESSAGE, `<a:wave:${EMOJI}>`);
    await routes.addReaction(rest, CHANNEL, MESSAGE, '%F0%9F%91%8D');
    const base = `/channels/${CHANNEL}/messages/${MESSAGE}/reactions`;
    expect(server.requests.map((r) => r.path)).toEqual([
      `${base}/%F0%9F%91%8D/@me`,
      `${base}/wave%3A${EMOJI}/@me`,
      `${base}/wave%3A${EMOJI}/@me`,
      `${base}/%F0%9F%91%8D/@me`,
    ]);
  });
});

describe('members: timeouts', () => {
  it('sends communication_disabled_until from a duration, a Date or an ISO string, and null to end it', async () => {
    const before = Date.now();
    await routes.timeoutMember(rest, GUILD, USER, 10 * 60_000);
    const after = Date.now();
    const sentAt = Date.parse(
      (json(server.requests[0]!) as { communication_disabled_until: string }).communication_disabled_until,
    );
    expect(sentAt).toBeGreaterThanOrEqual(before + 10 * 60_000);
    expect(sentAt).toBeLessThanOrEqual(after + 10 * 60_000);
    await routes.timeoutMember(rest, GUILD, USER, new Date('2030-01-02T03:04:05Z'));
    await routes.timeoutMember(rest, GUILD, USER, '2030-01-02T03:04:05+01:00');
    await routes.timeoutMember(rest, GUILD, USER, null);
    expect(server.requests.slice(1).map((r) => [r.method, r.path, json(r)])).toEqual([
      ['PATCH', `/guilds/${GUILD}/members/${USER}`, { communication_disabled_until: '2030-01-02T03:04:05.000Z' }],
      ['PATCH', `/guilds/${GUILD}/members/${USER}`, { communication_disabled_until: '2030-01-02T02:04:05.000Z' }],
      ['PATCH', `/guilds/${GUILD}/members/${USER}`, { communication_disabled_until: null }],
    ]);
  });

  it('refuses a duration outside 1 ms to 28 days, or a date that is none, before sending', async () => {
    for (const bad of [0, -5, routes.MAX_TIMEOUT_MS + 1, Number.NaN, 'tomorrow']) {
      const e = await routes.timeoutMember(rest, GUILD, USER, bad).catch((err: unknown) => err);
      expect(e, String(bad)).toBeInstanceOf(RequestRefusedError);
    }
    expect(server.requests).toHaveLength(0);
  });
});

describe('local refusals of what the service would refuse', () => {
  it('bulk delete takes 2-100 distinct ids; bulk ban 1-200 users; a ban deletes at most 7 days of messages', async () => {
    const ids = (n: number): string[] => Array.from({ length: n }, (_, i) => String(300000000000000000n + BigInt(i)));
    for (const bad of [ids(1), ids(101), [MESSAGE, MESSAGE]]) {
      await expect(routes.bulkDeleteMessages(rest, CHANNEL, bad)).rejects.toBeInstanceOf(RequestRefusedError);
    }
    for (const bad of [[], ids(201)]) {
      await expect(routes.bulkBan(rest, GUILD, { user_ids: bad })).rejects.toBeInstanceOf(RequestRefusedError);
    }
    for (const bad of [-1, routes.MAX_BAN_DELETE_SECONDS + 1, 1.5]) {
      await expect(routes.banMember(rest, GUILD, USER, { delete_message_seconds: bad })).rejects.toBeInstanceOf(
        RequestRefusedError,
      );
    }
    expect(server.requests).toHaveLength(0);
    await routes.bulkDeleteMessages(rest, CHANNEL, ids(100));
    await routes.bulkBan(rest, GUILD, { user_ids: ids(200) });
    await routes.banMember(rest, GUILD, USER, { delete_message_seconds: routes.MAX_BAN_DELETE_SECONDS });
    expect(server.requests).toHaveLength(3);
  });
});

describe("the client's limits apply to route helpers", () => {
  it('a 429 on a helper is waited out and retried by the client, reported with the template, not the ids', async () => {
    const limited: RateLimitedEvent[] = [];
    rest.on('rateLimited', (e) => limited.push(e));
    server.enqueue({
      status: 429,
      body: { message: 'You are being rate limited.', retry_after: 0.05, global: false },
      headers: {
        'retry-after': '1',
        'x-ratelimit-scope': 'user',
        'x-ratelimit-bucket': 'roles-bucket',
        'x-ratelimit-limit': '10',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset-after': '0.05',
      },
    });
    await routes.addMemberRole(rest, GUILD, USER, ROLE, { reason: 'verified' });
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.path).toBe(server.requests[0]!.path);
    expect(limited).toHaveLength(1);
    expect(limited[0]).toMatchObject({
      method: 'PUT',
      route: '/guilds/{guild_id}/members/{user_id}/roles/{role_id}',
      scope: 'user',
      global: false,
    });
  });

  it('webhook-token helpers send no Authorization and keep the token out of bucket keys', async () => {
    const events: RequestEvent[] = [];
    rest.on('request', (e) => events.push(e));
    await routes.executeWebhook(rest, WEBHOOK, TOKEN, { content: 'x' });
    await routes.getWebhookWithToken(rest, WEBHOOK, TOKEN);
    for (const c of server.requests) expect(c.headers.authorization).toBeUndefined();
    expect(server.requests[0]!.path).toBe(`/webhooks/${WEBHOOK}/${TOKEN}`);
    for (const e of events) {
      expect(e.route).toBe('/webhooks/{webhook_id}/{webhook_token}');
      expect(e.bucket).not.toContain(TOKEN);
    }
  });

  it('OAuth2-only helpers send the user token as Bearer, never the bot token', async () => {
    await routes.getCurrentUserGuildMember(rest, GUILD, 'user-access-token-1');
    await routes.deleteCurrentUserRoleConnection(rest, USER, 'user-access-token-1');
    expect(server.requests.map((r) => r.headers.authorization)).toEqual([
      'Bearer user-access-token-1',
      'Bearer user-access-token-1',
    ]);
  });
});
