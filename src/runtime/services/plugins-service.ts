/**
 * The plugin host: plugins are loaded (imported and checked, without setup) when this service starts, and torn
 * down, in reverse load order and each within its timeout, when it stops. Their setup runs when the intake
 * opens (intake/intake-service.ts), right before the first interaction or event can reach them.
 */
import type { MemberRequestResult, RequestMembersOptions } from '../../gateway/index.js';
import { PluginHost } from '../../plugins/host.js';
import { intentBits } from '../config.js';
import type { Service, StopOptions } from '../lifecycle.js';
import type { RuntimeContext } from '../options.js';
import type { CacheService } from './cache-service.js';
import type { RestService } from './rest-service.js';

export class PluginsService implements Service {
  readonly name = 'plugins';
  private hostValue: PluginHost | null = null;

  constructor(
    private readonly ctx: RuntimeContext,
    private readonly rest: RestService,
    private readonly cache: CacheService,
    private readonly requestMembers: (options: RequestMembersOptions) => Promise<MemberRequestResult>,
  ) {}

  get host(): PluginHost {
    if (this.hostValue === null) throw new Error('runtime: plugins is not available before start()');
    return this.hostValue;
  }

  async start(): Promise<void> {
    const { config, options } = this.ctx;
    const host = new PluginHost({
      log: this.ctx.log.child({ component: 'plugins' }),
      services: {
        cache: this.cache.cache,
        rest: this.rest.client,
        applicationId: this.rest.applicationId,
        requestMembers: this.requestMembers,
      },
      pluginConfig: config.plugins.config,
      pluginEnvironment: config.pluginEnvironment ?? [],
      disabled: config.plugins.disabled,
      intents: intentBits(config),
      ...(config.plugins.setupTimeoutMs !== undefined ? { setupTimeoutMs: config.plugins.setupTimeoutMs } : {}),
      ...(config.plugins.teardownTimeoutMs !== undefined ? { teardownTimeoutMs: config.plugins.teardownTimeoutMs } : {}),
      ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    });
    this.hostValue = host;
    await host.load(config.plugins.dirs);
  }

  async stop(_options: StopOptions): Promise<void> {
    await this.hostValue?.teardownAll();
  }
}
