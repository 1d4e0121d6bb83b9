import type { Config } from '../runtime/config.js';
import { RestClient, type RestClientOptions } from './client.js';

/** A client for the configured API base (`apiUrl`, e.g. the sandbox's http://127.0.0.1:PORT/api/v10) and token. */
export function restClientFromConfig(
  config: Pick<Config, 'apiUrl' | 'token'>,
  options: Omit<RestClientOptions, 'baseUrl' | 'token'> = {},
): RestClient {
  return new RestClient({ ...options, baseUrl: config.apiUrl, token: config.token });
}
