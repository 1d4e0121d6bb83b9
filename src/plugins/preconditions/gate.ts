/**
 * The router's gate (src/interactions/router.ts InteractionGate) made of the plugins' preconditions: finds the
 * rules of the handler, evaluates them, and on a denial counts it, tells the plugin (`preconditionDenied`) and
 * gives the router the answer: the message, and for a missing entitlement a premium button (component style 6
 * with the SKU, which replaces the deprecated PREMIUM_REQUIRED callback type 10, protocol §14.4).
 */
import type { APIInteractionResponseCallbackData } from 'discord-api-types/v10';
import type { Logger } from 'pino';
import type { GatedInteraction, GateTarget, InteractionGate } from '../../interactions/router.js';
import type { PluginDefinition } from '../types.js';
import type { PreconditionEvaluator, Verdict } from './evaluate.js';
import { resolveRules } from './resolve.js';
import type { PreconditionDenial, PreconditionName } from './types.js';

/** Component type BUTTON, and the PREMIUM button style (protocol §14.4). */
const BUTTON = 2;
const ACTION_ROW = 1;
const PREMIUM_STYLE = 6;

export interface PreconditionGateDeps {
  readonly evaluator: PreconditionEvaluator;
  /** The plugin's definition by name (undefined once it is gone: then nothing is checked). */
  readonly pluginNamed: (name: string) => PluginDefinition | undefined;
  /** Deliver `preconditionDenied` to that plugin only. */
  readonly tell: (plugin: string, denial: PreconditionDenial) => void;
  readonly count: (precondition: PreconditionName, target: string) => void;
  readonly log: Logger;
}

export class PreconditionGate implements InteractionGate {
  constructor(private readonly deps: PreconditionGateDeps) {}

  async check(target: GateTarget, interaction: GatedInteraction): Promise<APIInteractionResponseCallbackData | null> {
    const plugin = this.deps.pluginNamed(target.plugin);
    if (plugin === undefined) return null;
    const resolved = resolveRules(plugin, target);
    if (resolved === null) return null;
    const verdict = await this.deps.evaluator.evaluate(resolved, interaction);
    if (verdict === null) return null;
    this.deps.count(verdict.precondition, target.label);
    this.deps.log.debug({ plugin: target.plugin, handler: target.label, precondition: verdict.precondition }, 'precondition denied');
    this.deps.tell(target.plugin, denialEvent(verdict, target, interaction));
    return answerOf(verdict);
  }
}

function answerOf(verdict: Verdict): APIInteractionResponseCallbackData {
  if (verdict.skuId === undefined) return { content: verdict.message };
  return {
    content: verdict.message,
    components: [{ type: ACTION_ROW, components: [{ type: BUTTON, style: PREMIUM_STYLE, sku_id: verdict.skuId }] }],
  };
}

function denialEvent(verdict: Verdict, target: GateTarget, interaction: GatedInteraction): PreconditionDenial {
  return {
    precondition: verdict.precondition,
    target: target.label,
    interactionId: interaction.id,
    userId: (interaction.member?.user ?? interaction.user)?.id ?? '',
    guildId: interaction.guild_id,
    channelId: interaction.channel?.id ?? interaction.channel_id,
    message: verdict.message,
    ...(verdict.missing !== undefined ? { missing: verdict.missing } : {}),
    ...(verdict.whose !== undefined ? { whose: verdict.whose } : {}),
    ...(verdict.retryAt !== undefined ? { retryAt: verdict.retryAt } : {}),
    ...(verdict.skuId !== undefined ? { skuId: verdict.skuId } : {}),
  };
}
