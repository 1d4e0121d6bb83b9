/**
 * Glue between gateway tests and the sandbox: a GET /gateway/bot adapter over fetch (the REST client is wired
 * in later by the runtime), and a recorder that sees every dispatch through the allocation-free hook.
 */
import type { APIGatewayBotInfo } from 'discord-api-types/v10';
import type { Sandbox } from '../../../src/sandbox/contract.js';
import type { GatewayBotPort } from '../../../src/gateway/manager.js';

export function gatewayBotPort(sandbox: Sandbox): GatewayBotPort {
  return {
    async getGatewayBot(): Promise<APIGatewayBotInfo> {
      const response = await fetch(`${sandbox.restUrl}/gateway/bot`, {
        headers: { Authorization: `Bot ${sandbox.botToken}`, 'User-Agent': 'DiscordBot (gatehouse-tests, 0)' },
      });
      if (!response.ok) throw new Error(`GET /gateway/bot answered ${response.status}`);
      return (await response.json()) as APIGatewayBotInfo;
    },
  };
}

export interface Recorded {
  shardId: number;
  t: string;
  s: number;
  d: unknown;
}

/** Every dispatch delivered, in delivery order. */
export class DispatchRecorder {
  readonly all: Recorded[] = [];
  private waiters: Array<{ check: () => boolean; resolve: () => void }> = [];

  readonly hook = (shardId: number, t: string, d: unknown, s: number): void => {
    this.all.push({ shardId, t, s, d });
    if (this.waiters.length > 0) this.waiters = this.waiters.filter((w) => (w.check() ? (w.resolve(), false) : true));
  };

  of(shardId: number): Recorded[] {
    return this.all.filter((r) => r.shardId === shardId);
  }

  /** User ids of GUILD_MEMBER_ADD dispatches, in order (duplicates kept, so tests can see them). */
  memberAdds(shardId?: number): string[] {
    return this.all
      .filter((r) => r.t === 'GUILD_MEMBER_ADD' && (shardId === undefined || r.shardId === shardId))
      .map((r) => (r.d as { user: { id: string } }).user.id);
  }

  /** Resolve when `check` holds; reject after `timeoutMs` with `what` in the message. */
  waitFor(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
    if (check()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter = { check, resolve: () => (clearTimeout(timer), resolve()) };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }
}

/** Poll `check` every 10 ms until it holds or `timeoutMs` passes. */
export async function eventually(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let i = 0; i < 100_000 && Date.now() < deadline; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  if (!check()) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
