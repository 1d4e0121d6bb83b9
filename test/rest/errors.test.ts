import { afterEach, describe, expect, it } from 'vitest';
import {
  ApiError,
  RestClient,
  bulkOverwriteGlobalCommands,
  createGlobalCommand,
  flattenErrorTree,
} from '../../src/rest/index.js';
import { startFakeApi, type FakeApi } from './helpers/fake-api.js';

const open: Array<{ close(): unknown }> = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});

async function setup(): Promise<{ api: FakeApi; rest: RestClient }> {
  const api = await startFakeApi();
  open.push(api);
  const rest = new RestClient({ baseUrl: api.baseUrl, token: 'errors-test-token' });
  open.push(rest);
  return { api, rest };
}

const INVALID_FORM = {
  code: 50035,
  message: 'Invalid Form Body',
  errors: {
    options: {
      '0': {
        name: { _errors: [{ code: 'BASE_TYPE_REQUIRED', message: 'This field is required' }] },
        choices: {
          '5': { value: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 100 or fewer in length.' }] } },
        },
      },
    },
    description: {
      _errors: [
        { code: 'BASE_TYPE_BAD_LENGTH', message: 'Must be between 1 and 100 in length.' },
        { code: 'APPLICATION_COMMAND_INVALID_DESCRIPTION', message: 'Invalid description' },
      ],
    },
  },
};

describe('50035 rendering', () => {
  it('renders the nested errors tree as one readable line per field path', async () => {
    const { api, rest } = await setup();
    api.script('POST', /commands$/, [{ status: 400, body: INVALID_FORM }]);
    const err = await createGlobalCommand(rest, '111', { name: 'x', description: '' }).catch((e: unknown) => e);

    expect(err).toBeInstanceOf(ApiError);
    const e = err as ApiError;
    expect(e).toMatchObject({ status: 400, code: 50035, method: 'POST', route: '/applications/{application_id}/commands' });
    expect(e.apiMessage).toBe('Invalid Form Body');
    expect(e.lines).toEqual([
      'options[0].name: This field is required (BASE_TYPE_REQUIRED)',
      'options[0].choices[5].value: Must be 100 or fewer in length. (BASE_TYPE_MAX_LENGTH)',
      'description: Must be between 1 and 100 in length. (BASE_TYPE_BAD_LENGTH)',
      'description: Invalid description (APPLICATION_COMMAND_INVALID_DESCRIPTION)',
    ]);
    expect(e.message).toBe(
      [
        'POST /applications/{application_id}/commands: 400 Invalid Form Body (code 50035)',
        '  options[0].name: This field is required (BASE_TYPE_REQUIRED)',
        '  options[0].choices[5].value: Must be 100 or fewer in length. (BASE_TYPE_MAX_LENGTH)',
        '  description: Must be between 1 and 100 in length. (BASE_TYPE_BAD_LENGTH)',
        '  description: Invalid description (APPLICATION_COMMAND_INVALID_DESCRIPTION)',
      ].join('\n'),
    );
  });

  it('names array elements of a bulk overwrite with a leading index, and whole-body errors as (body)', async () => {
    const { api, rest } = await setup();
    api.script('PUT', /commands$/, [
      {
        status: 400,
        body: {
          code: 50035,
          message: 'Invalid Form Body',
          errors: {
            '2': { options: { '1': { name: { _errors: [{ code: 'APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS', message: 'Option names must be unique' }] } } } },
            _errors: [{ code: 'APPLICATION_COMMAND_TOO_LARGE', message: 'Command exceeds maximum size (8000)' }],
          },
        },
      },
    ]);
    const err = (await bulkOverwriteGlobalCommands(rest, '111', []).catch((e: unknown) => e)) as ApiError;
    expect(err.lines).toEqual([
      '[2].options[1].name: Option names must be unique (APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS)',
      '(body): Command exceeds maximum size (8000) (APPLICATION_COMMAND_TOO_LARGE)',
    ]);
  });

  it('keeps plain errors to one line with status, message and code', async () => {
    const { api, rest } = await setup();
    api.script('GET', /^\/users\/@me$/, [{ status: 401, body: { message: '401: Unauthorized', code: 0 } }]);
    const err = (await rest.request({ method: 'GET', route: '/users/@me' }).catch((e: unknown) => e)) as ApiError;
    expect(err.message).toBe('GET /users/@me: 401 401: Unauthorized (code 0)');
    expect(err.fieldErrors).toEqual([]);
  });

  it('copes with a non-JSON error page', async () => {
    const { api, rest } = await setup();
    api.script('GET', /^\/users\/@me$/, [
      { status: 403, body: '<html>\n<body>Access denied</body>\n</html>', headers: { 'content-type': 'text/html' } },
    ]);
    const err = (await rest.request({ method: 'GET', route: '/users/@me' }).catch((e: unknown) => e)) as ApiError;
    expect(err).toMatchObject({ status: 403, code: null });
    expect(err.message).toBe('GET /users/@me: 403 HTTP 403: <html> <body>Access denied</body> </html>');
  });
});

describe('flattenErrorTree', () => {
  it('ignores malformed nodes instead of throwing', () => {
    expect(flattenErrorTree(undefined)).toEqual([]);
    expect(flattenErrorTree('nope')).toEqual([]);
    expect(flattenErrorTree({ a: { _errors: 'x' }, b: { _errors: [null, { message: 'm' }] } })).toEqual([
      { path: 'b', code: 'UNKNOWN', message: 'invalid' },
      { path: 'b', code: 'UNKNOWN', message: 'm' },
    ]);
  });

  it('is bounded on hostile depth', () => {
    let tree: Record<string, unknown> = { _errors: [{ code: 'DEEP', message: 'deep' }] };
    for (let i = 0; i < 500; i++) tree = { a: tree };
    expect(flattenErrorTree(tree)).toEqual([]);
  });
});
