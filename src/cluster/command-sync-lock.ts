/**
 * Exactly one process syncs the application commands; the others wait for it and then go on without
 * syncing (several processes racing to bulk-overwrite the same commands is what this prevents).
 *
 * The lock is a key set with SET NX PX and renewed (compare-and-extend) while the holder syncs, so a holder
 * that dies frees it within `lockMs`. A completed sync records the fingerprint of the command set it wrote;
 * a process that finds the fingerprint of its own commands there skips the sync, immediately or once the
 * holder releases. A waiter that sees the lock freed without that record (the holder failed or died) takes
 * the lock and syncs itself. Every wait is bounded by `waitMs`.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { ClusterKeys } from './keys.js';
import { NOT_SYNCED, withClusterScripts, type ScriptedRedis } from './scripts.js';
import { sleep } from '../util/sleep.js';

export interface CommandSyncLockOptions {
  redis: Redis;
  keys: ClusterKeys;
  /** Lock expiry; renewed every lockMs / 3 while the sync runs. Default 30000. */
  lockMs?: number;
  /** Longest wait for another process's sync. Default 120000. */
  waitMs?: number;
  /** Poll interval while waiting. Default 200. */
  pollMs?: number;
  /** How long a completed sync's fingerprint is remembered. Default 600000 (10 minutes). */
  syncedTtlMs?: number;
  logger?: Logger;
}

export interface CommandSyncRunOptions<T> {
  /** Identifies the command set; a process whose set was synced already skips. Default: any set. */
  fingerprint?: string;
  /**
   * Whether the result counts as a completed sync (recorded for the others). Default: any result; a failed
   * scope, say, should not count, so that a waiting process tries again.
   */
  isComplete?: (result: T) => boolean;
}

/** A fingerprint of a command set: the definitions as JSON (handlers drop out) plus the scope settings. */
export function commandSetFingerprint(commands: readonly unknown[], scope: { devGuildId?: string } = {}): string {
  return createHash('sha256')
    .update(JSON.stringify({ dev: scope.devGuildId ?? null, commands }))
    .digest('hex')
    .slice(0, 32);
}

export type CommandSyncLockResult<T> =
  /** This process held the lock and ran the sync. */
  | { ran: true; result: T }
  /** Another process synced the same command set (now or earlier). */
  | { ran: false; reason: 'synced-elsewhere'; result?: undefined }
  /** No outcome within `waitMs`: the lock stayed held. The caller goes on without syncing. */
  | { ran: false; reason: 'timeout'; result?: undefined };

export class CommandSyncLock {
  readonly lockMs: number;
  readonly waitMs: number;
  readonly pollMs: number;
  readonly syncedTtlMs: number;
  private readonly redis: ScriptedRedis;
  private readonly keys: ClusterKeys;
  private readonly logger: Logger | undefined;

  constructor(options: CommandSyncLockOptions) {
    this.redis = withClusterScripts(options.redis);
    this.keys = options.keys;
    this.lockMs = options.lockMs ?? 30_000;
    this.waitMs = options.waitMs ?? 120_000;
    this.pollMs = options.pollMs ?? 200;
    this.syncedTtlMs = options.syncedTtlMs ?? 600_000;
    if (!(this.lockMs >= 300)) throw new RangeError(`command sync lockMs must be at least 300, got ${this.lockMs}`);
    if (!(this.pollMs > 0) || !(this.waitMs > 0)) throw new RangeError('command sync pollMs and waitMs must be > 0');
    this.logger = options.logger;
  }

  /**
   * Run `fn` if this process gets the lock and the command set (`fingerprint`) is not synced yet; otherwise
   * wait for the holder. Errors of `fn` propagate (the lock is released without recording a sync, so a
   * waiter tries next).
   */
  async run<T>(fn: () => Promise<T>, options: CommandSyncRunOptions<T> = {}): Promise<CommandSyncLockResult<T>> {
    const fingerprint = options.fingerprint && options.fingerprint.length > 0 ? options.fingerprint : 'any';
    const token = randomBytes(12).toString('hex');
    const deadline = performance.now() + this.waitMs;
    let logged = false;
    for (let attempt = 0; attempt < 1_000_000; attempt++) {
      if ((await this.redis.get(this.keys.commandsSynced)) === fingerprint) {
        return { ran: false, reason: 'synced-elsewhere' };
      }
      const got = await this.redis.set(this.keys.commandLock, token, 'PX', this.lockMs, 'NX');
      if (got === 'OK') {
        // Someone may have finished between the check above and taking the lock.
        if ((await this.redis.get(this.keys.commandsSynced)) === fingerprint) {
          await this.redis.ghClusterLockRelease(this.keys.commandLock, this.keys.commandsSynced, token, NOT_SYNCED, 0);
          return { ran: false, reason: 'synced-elsewhere' };
        }
        return { ran: true, result: await this.holding(token, fingerprint, fn, options.isComplete) };
      }
      if (!logged) {
        this.logger?.info('another process is syncing commands; waiting for it');
        logged = true;
      }
      const left = deadline - performance.now();
      if (left <= 0) break;
      await sleep(Math.min(this.pollMs, left));
    }
    this.logger?.warn({ waitedMs: this.waitMs }, 'gave up waiting for the command sync of another process');
    return { ran: false, reason: 'timeout' };
  }

  private async holding<T>(
    token: string,
    fingerprint: string,
    fn: () => Promise<T>,
    isComplete: ((result: T) => boolean) | undefined,
  ): Promise<T> {
    let lost = false;
    const renew = setInterval(() => {
      this.redis.ghClusterRenew(1, this.keys.commandLock, token, this.lockMs).then(
        (reply) => {
          if (!lost && Array.isArray(reply) && Number(reply[0]) !== 1) {
            lost = true;
            this.logger?.warn('the command sync lock expired while syncing (another process may sync too)');
          }
        },
        (error: unknown) => this.logger?.warn({ err: error }, 'could not renew the command sync lock'),
      );
    }, Math.max(100, Math.floor(this.lockMs / 3)));
    renew.unref?.();
    let completed = false;
    try {
      const result = await fn();
      completed = isComplete === undefined || isComplete(result);
      return result;
    } finally {
      clearInterval(renew);
      await this.redis
        .ghClusterLockRelease(this.keys.commandLock, this.keys.commandsSynced, token, completed ? fingerprint : NOT_SYNCED, this.syncedTtlMs)
        .catch((error: unknown) => this.logger?.warn({ err: error }, 'could not release the command sync lock'));
    }
  }
}
