import { Writable } from 'node:stream';
import { inspect } from 'node:util';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/runtime/logger.js';
import * as api from '../../src/rest/index.js';
import { RestClient, bearerAuth, type RestClientOptions } from '../../src/rest/index.js';
import { clearSecrets } from '../../src/util/redact.js';
import { globalRateLimited, startFakeApi, userRateLimited, type FakeApi } from './helpers/fake-api.js';

/**
 * No bot token, bearer token, client secret or interaction token may appear in a log line, an error, or
 * anything the client emits. Run every path that produces text (success, 4xx, 50035, 429 of each scope,
 * 5xx retries, timeouts, dropped connections, local refusals, aborts) and search all of it.
 */

const BOT = 'MTIzNDU2Nzg5MDEyMzQ1Njc4.GhIjKl.secretbotsecretbotsecretbot0123456789';
const BEARER = 'bearerSecretValue0123456789abcdef';
const CLIENT_SECRET = 'clientSecretValue-0123456789';
const ITOKEN = 'aW50ZXJhY3Rpb246c2VjcmV0LWludGVyYWN0aW9uLXRva2Vu';
const SECRETS = [BOT, BEARER, CLIENT_SECRET, ITOKEN];
const APP = '111111111111111111';

class Collect extends Writable {
  text = '';
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    this.text += chunk.toString('utf8');
    done();
  }
}

const open: Array<{ close(): unknown }> = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
  clearSecrets();
});

/** Everything a human could read from an error. */
function renderError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  return [String(err), err.stack ?? '', JSON.stringify(err), inspect(err, { depth: 10, showHidden: true })].join('\n');
}

async function exercise(server: FakeApi, rest: RestClient): Promise<{ errors: unknown[]; emitted: string }> {
  const emitted: string[] = [];
  for (const event of ['request', 'response', 'rateLimited', 'invalidRequestWarning'] as const) {
    rest.on(event, (e: unknown) => emitted.push(JSON.stringify(e)));
  }
  server.script('GET', /^\/users\/@me$/, [
    { status: 401, body: { message: '401: Unauthorized', code: 0 } },
    userRateLimited(50),
    globalRateLimited(50),
    { status: 200, body: { id: '1' } },
    { status: 502 },
    { status: 502 },
    { status: 200, body: { id: '1' } },
    { status: 200, delayMs: 2000 },
  ]);
  server.script('POST', /^\/interactions\//, [
    { status: 404, body: { message: 'Unknown interaction', code: 10062 } },
    // A callback reset before any answer byte is sent once more (a repeat that arrived is refused 40060): both dropped.
    { status: 0, destroy: true },
    { status: 0, destroy: true },
    { status: 200, delayMs: 2000 },
  ]);
  server.script('GET', /^\/webhooks\//, [
    { status: 0, destroy: true },
    { status: 0, destroy: true },
    { status: 0, destroy: true },
  ]);
  server.script('PATCH', /^\/webhooks\//, [
    {
      status: 400,
      body: { code: 50035, message: 'Invalid Form Body', errors: { content: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 2000 or fewer in length.' }] } } },
    },
  ]);
  server.script('POST', /^\/oauth2\/token$/, [{ status: 400, body: { error: 'invalid_grant' } }]);
  server.script('GET', /^\/applications\/@me$/, [{ status: 401, body: { message: '401: Unauthorized', code: 0 } }]);

  const calls: Array<() => Promise<unknown>> = [
    () => api.getCurrentUser(rest), // 401
    () => api.getCurrentUser(rest), // 429 user, 429 global, 200
    () => api.getCurrentUser(rest), // 502, 502, 200
    () => api.getCurrentUser(rest, { timeoutMs: 100 }), // timeout
    () => api.createInteractionResponse(rest, '444', ITOKEN, { type: 4, data: { content: 'x' } }), // 404
    () => api.createInteractionResponse(rest, '445', ITOKEN, { type: 4, data: { content: 'x' } }), // dropped twice (a callback is retried once) -> network error
    () => api.getOriginalResponse(rest, APP, ITOKEN), // dropped x3 (retried) -> network error
    () => api.createInteractionResponse(rest, '446', ITOKEN, { type: 5 }, { timeoutMs: 100 }), // timeout
    () => api.editOriginalResponse(rest, APP, ITOKEN, { content: 'x'.repeat(3000) }), // 50035
    () => api.getOriginalResponse(rest, APP, ITOKEN, { signal: AbortSignal.abort() }), // aborted
    () => api.exchangeAuthorizationCode(rest, { clientId: '1', clientSecret: CLIENT_SECRET, code: 'c', redirectUri: 'https://x.example' }),
    () => api.getCurrentApplication(rest, { auth: bearerAuth(BEARER) }), // 401 with a bearer token
    () => api.editCommandPermissions(rest, APP, '2', '3', [], { bearerToken: BOT }), // refused locally
    () => rest.request({ method: 'PUT', route: '/applications/{application_id}/guilds/{guild_id}/commands/{command_id}/permissions', params: { application_id: APP, guild_id: '2', command_id: '3' }, body: {} }),
  ];
  const errors: unknown[] = [];
  for (const call of calls) {
    try {
      await call();
    } catch (err) {
      errors.push(err);
    }
  }
  emitted.push(JSON.stringify(rest.queueDepths()), JSON.stringify(rest.stats()));
  return { errors, emitted: emitted.join('\n') };
}

function clientOptions(server: FakeApi): RestClientOptions {
  return { baseUrl: server.baseUrl, token: BOT, retries: 2, retryBaseDelayMs: 5 };
}

describe('secrets', () => {
  it('no token or secret in log lines (through the runtime logger), errors or events', async () => {
    const server = await startFakeApi();
    open.push(server);
    const out = new Collect();
    const logger = createLogger({ destination: out, level: 'trace', pretty: false });
    const rest = new RestClient({ ...clientOptions(server), logger });
    open.push(rest);

    const { errors, emitted } = await exercise(server, rest);
    logger.flush();

    // The run did reach the server with the secrets, and did produce text to search.
    expect(server.requests.some((r) => r.headers.authorization === `Bot ${BOT}`)).toBe(true);
    expect(server.requests.some((r) => r.path.includes(ITOKEN))).toBe(true);
    expect(server.requests.some((r) => r.body.includes(CLIENT_SECRET))).toBe(true);
    expect(errors.map((e) => (e as Error).name).sort()).toEqual(
      ['ApiError', 'ApiError', 'ApiError', 'ApiError', 'ApiError', 'NetworkError', 'NetworkError', 'RequestAbortedError', 'RequestRefusedError', 'RequestRefusedError', 'TimeoutError', 'TimeoutError'].sort(),
    );
    expect(out.text.split('\n').length).toBeGreaterThan(15);
    expect(out.text).toContain('/interactions/{interaction_id}/{interaction_token}/callback');
    expect(out.text).toContain('network error, retrying');

    const everything = [out.text, emitted, ...errors.map(renderError)].join('\n');
    for (const secret of SECRETS) expect(everything).not.toContain(secret);
  });

  it('the client itself writes no secret, even to a logger without the redactor', async () => {
    const server = await startFakeApi();
    open.push(server);
    const out = new Collect();
    // A bare pino logger: nothing between the client's log calls and the output.
    const logger = pino({ level: 'trace' }, out);
    const rest = new RestClient({ ...clientOptions(server), logger });
    open.push(rest);
    // Forget what the client registered, so that only the client's own discipline stands.
    clearSecrets();

    const { errors, emitted } = await exercise(server, rest);
    logger.flush();
    const everything = [out.text, emitted, ...errors.map(renderError)].join('\n');
    expect(out.text).toContain('"route":"/webhooks/{application_id}/{interaction_token}/messages/@original"');
    for (const secret of SECRETS) expect(everything).not.toContain(secret);
  });
});
