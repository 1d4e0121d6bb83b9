/**
 * The startup command sync (commands.sync): every plugin's commands validated together and brought up to date
 * with the fewest writes (command-sync.ts). In cluster mode one process syncs and the others wait and skip.
 * `sync()` is also what `gatehouse commands sync|diff` and a dev reload run.
 */
import type { Logger } from 'pino';
import { commandSetFingerprint } from '../../cluster/index.js';
import { applicationFacts, logSyncResult, syncPluginCommands, type ApplicationFacts, type CommandSyncResult } from '../command-sync.js';
import type { Service } from '../lifecycle.js';
import type { RuntimeContext } from '../options.js';
import type { ClusterService } from './cluster-service.js';
import type { PluginsService } from './plugins-service.js';
import type { RestService } from './rest-service.js';

export class CommandsService implements Service {
  readonly name = 'commands';
  /** The startup sync's outcome (null when sync is off, or another process of the bot synced). */
  result: CommandSyncResult | null = null;
  /** The application's facts for validation, read once (a dev reload syncs again and again). */
  private facts: ApplicationFacts | null = null;
  private readonly log: Logger;

  constructor(
    private readonly ctx: RuntimeContext,
    private readonly rest: RestService,
    private readonly plugins: PluginsService,
    private readonly cluster: ClusterService,
  ) {
    this.log = ctx.log.child({ component: 'commands' });
  }

  async start(): Promise<void> {
    if (!this.ctx.config.commands.sync) return;
    const coordinator = this.cluster.coordinator;
    this.result = coordinator !== null ? await this.syncOnce() : await this.sync();
  }

  /**
   * Validate, diff and (unless dryRun) sync every plugin's commands. The outcome is logged unless `quiet`
   * (the CLI prints it itself).
   */
  async sync(options: { dryRun?: boolean; quiet?: boolean } = {}): Promise<CommandSyncResult> {
    const devGuildId = this.ctx.config.commands.devGuildId;
    this.facts ??= await applicationFacts(this.rest.client, this.log);
    const result = await syncPluginCommands({
      host: this.plugins.host,
      rest: this.rest.client,
      applicationId: this.rest.applicationId,
      ...(devGuildId !== undefined ? { devGuildId } : {}),
      dryRun: options.dryRun === true,
      partial: this.ctx.embedded,
      facts: this.facts,
      log: this.log,
    });
    if (options.quiet !== true) logSyncResult(result, this.log);
    return result;
  }

  /** The startup sync in cluster mode: one process syncs, the others wait for it and skip (null result). */
  private async syncOnce(): Promise<CommandSyncResult | null> {
    const devGuildId = this.ctx.config.commands.devGuildId;
    const fingerprint = commandSetFingerprint(
      this.plugins.host.commands().map((c) => c.command),
      devGuildId !== undefined ? { devGuildId } : {},
    );
    const outcome = await this.cluster.coordinator!.withCommandSyncLock(() => this.sync(), {
      fingerprint,
      // A scope that failed (or a sync that could not run) is left for the next process to try again.
      isComplete: (r) => r.status === 'synced' && r.summary.scopes.every((scope) => scope.error === undefined),
    });
    if (outcome.ran) return outcome.result;
    if (outcome.reason === 'timeout') this.log.warn('another process held the command sync lock too long; starting without syncing');
    else this.log.info('commands already synced by another process of this bot');
    return null;
  }

  stop(): void {}
}
