/** Send an invocation over the gateway and keep its record. */
import type { AutocompleteOptions, ComponentOptions, InvokeOptions, ModalSubmitOptions } from '../contract.js';
import type { SandboxCore } from '../core.js';
import { SandboxError } from '../errors.js';
import { buildComponentInteraction, buildModalSubmit } from './followon.js';
import { buildInteraction } from './invoke.js';
import type { InteractionMeta, SandboxInteraction } from './store.js';

export function sendInteraction(core: SandboxCore, options: InvokeOptions | AutocompleteOptions, autocomplete: boolean): SandboxInteraction {
  return deliver(core, buildInteraction(core, options, autocomplete));
}

export function sendComponent(core: SandboxCore, options: ComponentOptions): SandboxInteraction {
  return deliver(core, buildComponentInteraction(core, options));
}

export function sendModalSubmit(core: SandboxCore, options: ModalSubmitOptions): SandboxInteraction {
  return deliver(core, buildModalSubmit(core, options));
}

/**
 * Keep the record and deliver: POSTed to the interactions endpoint URL when one is set (instead of the gateway,
 * protocol §11.14), else INTERACTION_CREATE to the shard that holds the guild (shard 0 for DMs).
 */
function deliver(core: SandboxCore, built: { meta: InteractionMeta; guildId: string | null }): SandboxInteraction {
  const overHttp = core.delivery.interactionsEndpointUrl !== null;
  if (overHttp) {
    const record = core.interactions.add(built.meta);
    const json = JSON.stringify(built.meta.payload);
    core.delivery.deliverInteraction(record, json);
    if (core.delivery.alsoGateway && core.gateway.hasReceiver(built.guildId)) {
      if (built.guildId !== null) core.gateway.guild(built.guildId, 'INTERACTION_CREATE', json);
      else core.gateway.global('INTERACTION_CREATE', json);
    }
    return record;
  }
  if (!core.gateway.hasReceiver(built.guildId)) {
    const where = built.guildId === null ? 'shard 0 (DMs)' : `the shard of guild ${built.guildId}`;
    throw new SandboxError('NO_SHARD', `no gateway session (connected or resumable) holds ${where}: nobody would receive the interaction`);
  }
  const record = core.interactions.add(built.meta);
  const json = JSON.stringify(built.meta.payload);
  if (built.guildId !== null) core.gateway.guild(built.guildId, 'INTERACTION_CREATE', json);
  else core.gateway.global('INTERACTION_CREATE', json);
  return record;
}

/** Resolve when the interaction has its first response and then stayed unchanged for `settleMs`. */
export async function settle(record: SandboxInteraction, waitMs: number, settleMs: number): Promise<boolean> {
  try {
    await record.firstResponse(waitMs);
  } catch {
    return false;
  }
  // A deferred response is worth waiting for (up to 15 s), then quiet for settleMs ends the wait.
  const hardStop = Date.now() + Math.max(waitMs, 15_000);
  await new Promise<void>((resolve) => {
    let timer: NodeJS.Timeout;
    const arm = (): void => {
      clearTimeout(timer);
      const remaining = hardStop - Date.now();
      const quiet = record.deferredLoading ? remaining : Math.min(settleMs, remaining);
      timer = setTimeout(done, Math.max(0, quiet));
      timer.unref();
    };
    const off = record.onChange(arm);
    const done = (): void => {
      off();
      resolve();
    };
    arm();
  });
  return true;
}
