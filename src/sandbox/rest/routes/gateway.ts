/** GET /gateway and GET /gateway/bot (protocol §4). */
import type { SandboxCore } from '../../core.js';
import type { RouteDef } from '../types.js';

export function gatewayRoutes(core: SandboxCore): RouteDef[] {
  return [
    {
      method: 'GET',
      path: '/gateway',
      bucket: 'gateway',
      auth: 'none',
      handler: () => ({ status: 200, body: { url: core.urls.gateway } }),
    },
    {
      method: 'GET',
      path: '/gateway/bot',
      bucket: 'gateway',
      auth: 'bot',
      handler: () => ({
        status: 200,
        body: {
          url: core.urls.gateway,
          shards: core.gateway.recommendedShards(),
          session_start_limit: core.gateway.sessionStartLimit(),
        },
      }),
    },
  ];
}
