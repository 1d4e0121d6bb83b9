/**
 * GET and PATCH /applications/{application_id}: the application by its id, the same object and the same edit
 * as /applications/@me (./identity.ts); another application's id is refused as the command routes refuse it
 * (20012), a malformed one is a 50035 on the path parameter.
 */
import type { SandboxCore } from '../../core.js';
import { Errors } from '../../errors.js';
import { snowflakeParams } from '../params.js';
import type { RestContext, RouteDef } from '../types.js';
import { applicationObject, editApplication } from './identity.js';

export function applicationByIdRoutes(core: SandboxCore): RouteDef[] {
  const own = (ctx: RestContext): void => {
    snowflakeParams(ctx, { applicationId: 'application_id' });
    if (ctx.params.applicationId !== core.store.applicationId) throw Errors.notAuthorizedForApplication();
  };
  return [
    { method: 'GET', path: '/applications/:applicationId', bucket: 'applications.me', auth: 'bot', handler: (ctx) => (own(ctx), { status: 200, body: applicationObject(core) }) },
    {
      method: 'PATCH',
      path: '/applications/:applicationId',
      bucket: 'applications.edit',
      auth: 'bot',
      handler: async (ctx) => {
        own(ctx);
        return { status: 200, body: await editApplication(core, ctx) };
      },
    },
  ];
}
