import { RestClient, type RestClientOptions } from './client.js';

/** The two settings the client needs; the runtime's Config satisfies it without rest/ importing runtime/. */
export interface RestEndpointConfig {
  readonly apiUrl: string;
  readonly token: string;
}

/** A client for the configured API base (`apiUrl`, e.g. the sandbox's http://127.0.0.1:PORT/api/v10) and token. */
export function restClientFromConfig(
  config: RestEndpointConfig,
  options: Omit<RestClientOptions, 'baseUrl' | 'token'> = {},
): RestClient {
  return new RestClient({ ...options, baseUrl: config.apiUrl, token: config.token });
}
