import type { RESTGetAPIGatewayBotResult, RESTGetAPIGatewayResult } from 'discord-api-types/v10';
import type { CallOptions, RestRequester } from '../types.js';

/** Gateway URL; needs no token. */
export function getGateway(rest: RestRequester, options: Omit<CallOptions, 'auth'> = {}): Promise<RESTGetAPIGatewayResult> {
  return rest.request({ ...options, method: 'GET', route: '/gateway', auth: false });
}

/** Gateway URL, recommended shard count and session start limits (`reset_after` in ms). Bot token only. */
export function getGatewayBot(rest: RestRequester, options: CallOptions = {}): Promise<RESTGetAPIGatewayBotResult> {
  return rest.request({ ...options, method: 'GET', route: '/gateway/bot' });
}
