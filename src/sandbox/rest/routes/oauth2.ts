/**
 * POST /oauth2/token (protocol §S4.4, §S5, §15.4): form-encoded; client authentication by HTTP Basic or
 * client_id / client_secret fields; grants authorization_code, client_credentials and refresh_token.
 * Errors use the OAuth2 shape ({error, error_description}), as token endpoints do.
 */
import { timingSafeEqual } from 'node:crypto';
import { registerSecret } from '../../../util/redact.js';
import type { SandboxCore } from '../../core.js';
import { ACCESS_TOKEN_LIFETIME_S, type BearerToken } from '../../state/oauth.js';
import type { RestContext, RestResult, RouteDef } from '../types.js';

function oauthError(status: number, error: string, description: string): RestResult {
  return { status, body: { error, error_description: description } };
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function tokenBody(t: BearerToken): RestResult {
  const body: Record<string, unknown> = {
    access_token: t.accessToken,
    token_type: 'Bearer',
    expires_in: ACCESS_TOKEN_LIFETIME_S,
    scope: [...t.scopes].join(' '),
  };
  if (t.refreshToken !== null) body.refresh_token = t.refreshToken;
  registerSecret(t.accessToken, { transient: true });
  registerSecret(t.refreshToken, { transient: true });
  return { status: 200, body, headers: { 'cache-control': 'no-store' } };
}

export function oauth2Routes(core: SandboxCore): RouteDef[] {
  const clientOk = (ctx: RestContext, fields: URLSearchParams): boolean => {
    let id = fields.get('client_id');
    let secret = fields.get('client_secret');
    const header = ctx.headers.authorization;
    if (header?.startsWith('Basic ')) {
      const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon > 0) {
        try {
          id = decodeURIComponent(decoded.slice(0, colon));
          secret = decodeURIComponent(decoded.slice(colon + 1));
        } catch {
          return false; // not URL-encoded text: no client of ours
        }
      }
    }
    return id === core.store.applicationId && secret !== null && safeEqual(secret, core.clientSecret);
  };

  const handler = (ctx: RestContext): RestResult => {
    if (ctx.body.kind !== 'form') return oauthError(400, 'invalid_request', 'the body must be application/x-www-form-urlencoded');
    const f = ctx.body.fields;
    if (!clientOk(ctx, f)) return oauthError(401, 'invalid_client', 'unknown client or wrong client secret');
    const grant = f.get('grant_type');
    switch (grant) {
      case 'authorization_code': {
        const code = f.get('code');
        if (!code) return oauthError(400, 'invalid_request', 'code is required');
        const t = core.oauth.exchange(code, f.get('redirect_uri'));
        if (!t) return oauthError(400, 'invalid_grant', 'Invalid "code" in request.');
        return tokenBody(t);
      }
      case 'client_credentials': {
        const scopes = (f.get('scope') ?? '').split(/\s+/).filter((s) => s.length > 0);
        if (scopes.length === 0) return oauthError(400, 'invalid_scope', 'scope is required');
        // A client-credentials token stands for the application owner and has no refresh token.
        const owner = core.store.fixture.userId(0);
        return tokenBody(core.oauth.issue(scopes, owner, { clientCredentials: true, refresh: false }));
      }
      case 'refresh_token': {
        const refresh = f.get('refresh_token');
        const t = refresh ? core.oauth.refreshToken(refresh) : null;
        if (!t) return oauthError(400, 'invalid_grant', 'Invalid "refresh_token" in request.');
        return tokenBody(t);
      }
      default:
        return oauthError(400, 'unsupported_grant_type', `unsupported grant_type ${JSON.stringify(grant)}`);
    }
  };

  return [
    { method: 'POST', path: '/oauth2/token', bucket: 'oauth2.token', auth: 'none', handler },
    {
      method: 'POST',
      path: '/oauth2/token/revoke',
      bucket: 'oauth2.token',
      auth: 'none',
      handler: (ctx) => {
        if (ctx.body.kind !== 'form') return oauthError(400, 'invalid_request', 'the body must be application/x-www-form-urlencoded');
        if (!clientOk(ctx, ctx.body.fields)) return oauthError(401, 'invalid_client', 'unknown client or wrong client secret');
        const token = ctx.body.fields.get('token');
        if (token) core.oauth.revoke(token);
        return { status: 200, body: {} };
      },
    },
  ];
}
