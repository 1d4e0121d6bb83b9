/**
 * The intake: the interaction router with every plugin's routes, and the pipeline everything is delivered
 * through (intake/pipeline.ts). Starting it runs the plugins' setup (each within its timeout) right before the
 * routes are registered, so every interaction finds its handler set up. Stopping it closes the pipeline to HTTP
 * intake and lets the handlers still running answer, for at most the stop's grace.
 */
import { MessageFlags } from 'discord-api-types/v10';
import { InteractionRouter } from '../../interactions/router.js';
import { InitialResponses } from '../../transports/http/index.js';
import type { Service, StopOptions } from '../lifecycle.js';
import { inlineTransport } from '../http-endpoint.js';
import type { RuntimeContext } from '../options.js';
import { interactionTransport } from '../rest-adapters.js';
import type { CacheService } from '../services/cache-service.js';
import type { PluginsService } from '../services/plugins-service.js';
import type { RestService } from '../services/rest-service.js';
import type { IntakeCounters } from './counters.js';
import { INTERACTION_DEDUPE_TTL_MS, IntakePipeline } from './pipeline.js';
import { dedupeTtlMs } from './webhook-receipt.js';
import { unavailableText } from './unavailable.js';
import { preconditionGate } from './preconditions.js';

export class IntakeService implements Service {
  readonly name = 'intake';
  /** Interactions received over HTTP whose initial response is still open (transport "both" and "http"). */
  readonly responses: InitialResponses | null;
  private made: { pipeline: IntakePipeline; router: InteractionRouter<unknown, unknown> } | null = null;
  private draining: Promise<void> | null = null;

  constructor(
    private readonly ctx: RuntimeContext,
    private readonly rest: RestService,
    private readonly cache: CacheService,
    private readonly plugins: PluginsService,
    private readonly counters: IntakeCounters,
  ) {
    this.responses = ctx.config.transport === 'gateway' ? null : new InitialResponses();
  }

  get pipeline(): IntakePipeline {
    return this.part().pipeline;
  }
  get router(): InteractionRouter<unknown, unknown> {
    return this.part().router;
  }

  async start(signal: AbortSignal): Promise<void> {
    const { config, options, log } = this.ctx;
    const host = this.plugins.host;
    const rest = interactionTransport(this.rest.client);
    const text = options.unavailableText ?? unavailableText(config.commands);
    const router = new InteractionRouter<unknown, unknown>({
      transport: this.responses !== null ? inlineTransport(this.responses, rest) : rest,
      log: log.child({ component: 'interactions' }),
      servicesFor: (plugin) => {
        const hosted = host.loaded.find((p) => p.name === plugin);
        if (hosted === undefined) throw new Error(`no plugin named ${plugin}`);
        const c = hosted.context;
        return { log: c.log, config: c.config, cache: c.cache, plugin: c };
      },
      unhandled: (kind, interaction) => {
        this.counters.countUnhandled(kind);
        return { content: text((interaction as { locale?: string }).locale), flags: MessageFlags.Ephemeral };
      },
      gate: preconditionGate(this.ctx, this.rest, this.cache, this.plugins, this.counters),
      ...(options.deferAfterMs !== undefined ? { deferAfterMs: options.deferAfterMs } : {}),
    });
    await host.setupAll(signal);
    signal.throwIfAborted();
    const devGuildId = config.commands.devGuildId;
    host.registerRoutes(router, devGuildId !== undefined ? { devGuildId } : {});
    const pipeline = new IntakePipeline({
      cache: this.cache.cache,
      host,
      router,
      counters: this.counters,
      anomalies: this.ctx.anomalies,
      log: log.child({ component: 'intake' }),
      // A replay of a signed interaction is let in as long as its timestamp is inside the window: remember as long.
      interactionTtlMs: dedupeTtlMs(config.endpoint.timestampWindowSeconds, INTERACTION_DEDUPE_TTL_MS),
      entitlementCopies: config.transport === 'both',
      ...(options.observeDispatch !== undefined ? { observeDispatch: options.observeDispatch } : {}),
    });
    this.made = { pipeline, router };
  }

  /** Let the handlers already running answer, for at most `graceMs` (once per stop, whoever asks first). */
  drain(graceMs: number): Promise<void> {
    this.draining ??= this.counters.drain(graceMs).then((timedOut) => {
      if (timedOut) {
        this.ctx.log.warn({ interactions: this.counters.inFlight.size, graceMs }, 'interaction handlers still running at shutdown; stopping without them');
      }
    });
    return this.draining;
  }

  async stop(options: StopOptions): Promise<void> {
    this.made?.pipeline.close();
    await this.drain(options.graceMs);
  }

  private part(): { pipeline: IntakePipeline; router: InteractionRouter<unknown, unknown> } {
    if (this.made === null) throw new Error('runtime: router is not available before start()');
    return this.made;
  }
}
