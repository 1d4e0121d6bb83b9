import type {
  RESTPostOAuth2AccessTokenResult,
  RESTPostOAuth2ClientCredentialsResult,
  RESTPostOAuth2RefreshTokenResult,
} from 'discord-api-types/v10';
import { registerSecret } from '../../util/redact.js';
import { basicAuth, type CallOptions, type RestRequester } from '../types.js';

/**
 * The token endpoint (protocol §S4.4, §15.4): form-encoded bodies. The client secret is registered with the
 * redactor before it is used, and the tokens it returns as they arrive, so that none can surface in a log
 * line even by accident. Not retried after a 5xx (POST): an authorization code works once.
 */

/** Register the tokens of a token response with the redactor and pass the response on. */
function remember<T extends { access_token: string }>(response: Promise<T>): Promise<T> {
  return response.then((r) => {
    registerSecret(r.access_token, { transient: true });
    registerSecret((r as { refresh_token?: string }).refresh_token, { transient: true });
    return r;
  });
}

const TOKEN = '/oauth2/token';

export interface AuthorizationCodeExchange {
  clientId: string;
  clientSecret: string;
  code: string;
  redirectUri: string;
}

/** Exchange an authorization code for an access token (grant_type authorization_code). */
export function exchangeAuthorizationCode(
  rest: RestRequester,
  exchange: AuthorizationCodeExchange,
  options: Omit<CallOptions, 'auth'> = {},
): Promise<RESTPostOAuth2AccessTokenResult> {
  registerSecret(exchange.clientSecret);
  return remember(rest.request({
    ...options,
    method: 'POST',
    route: TOKEN,
    auth: false,
    form: {
      client_id: exchange.clientId,
      client_secret: exchange.clientSecret,
      grant_type: 'authorization_code',
      code: exchange.code,
      redirect_uri: exchange.redirectUri,
    },
  }));
}

export interface RefreshTokenExchange {
  clientId: string;
  clientSecret: string;
  refreshToken: string;
}

export function refreshAccessToken(
  rest: RestRequester,
  exchange: RefreshTokenExchange,
  options: Omit<CallOptions, 'auth'> = {},
): Promise<RESTPostOAuth2RefreshTokenResult> {
  registerSecret(exchange.clientSecret);
  return remember(rest.request({
    ...options,
    method: 'POST',
    route: TOKEN,
    auth: false,
    form: {
      client_id: exchange.clientId,
      client_secret: exchange.clientSecret,
      grant_type: 'refresh_token',
      refresh_token: exchange.refreshToken,
    },
  }));
}

export interface ClientCredentialsRequest {
  clientId: string;
  clientSecret: string;
  /** e.g. ['applications.commands.update'] (needed to create and update commands, protocol §S5). */
  scopes: readonly string[];
}

/** A client-credentials Bearer token for the app itself: HTTP Basic auth with id and secret. */
export function getClientCredentialsToken(
  rest: RestRequester,
  request: ClientCredentialsRequest,
  options: Omit<CallOptions, 'auth'> = {},
): Promise<RESTPostOAuth2ClientCredentialsResult> {
  registerSecret(request.clientSecret);
  return remember(rest.request({
    ...options,
    method: 'POST',
    route: TOKEN,
    auth: basicAuth(request.clientId, request.clientSecret),
    form: { grant_type: 'client_credentials', scope: request.scopes.join(' ') },
  }));
}
