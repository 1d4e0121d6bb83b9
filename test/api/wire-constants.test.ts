/** Protocol constants come from the wire-types dependency: the local tables hold its values, not copies. */
import {
  ApplicationCommandOptionType,
  ApplicationCommandType,
  GatewayCloseCodes,
  GatewayIntentBits,
  GatewayOpcodes,
  InteractionResponseType,
  InteractionType,
} from 'discord-api-types/v10';
import { describe, expect, it } from 'vitest';
import { ALL_INTENTS, INTENT_BITS } from '../../src/api/intents.js';
import { CommandType, OptionType } from '../../src/commands/constants.js';
import { GATEWAY_CLOSE_POLICIES } from '../../src/gateway/close-codes.js';
import { Op } from '../../src/gateway/protocol.js';
import { CallbackType, InteractionType as SandboxInteractionType } from '../../src/sandbox/interactions/store.js';

const numericValues = (e: object): number[] => Object.values(e).filter((v): v is number => typeof v === 'number');

describe('wire constants', () => {
  it('gateway opcodes are the package enum itself', () => {
    expect(Op).toBe(GatewayOpcodes);
  });

  it('every close code with a policy is one the package names, and the package names none without one', () => {
    const withPolicy = Object.keys(GATEWAY_CLOSE_POLICIES).map(Number).sort();
    expect(withPolicy).toEqual([...new Set(numericValues(GatewayCloseCodes))].sort());
  });

  it('intent bits are the package bits (its deprecated aliases aside)', () => {
    const bits = new Set(numericValues(GatewayIntentBits));
    for (const v of Object.values(INTENT_BITS)) expect(bits.has(v)).toBe(true);
    expect(ALL_INTENTS).toBe([...bits].reduce((a, b) => a | b, 0));
  });

  it('command, option, interaction and callback types hold the package values', () => {
    expect(new Set(Object.values(CommandType))).toEqual(new Set(numericValues(ApplicationCommandType)));
    expect(new Set(Object.values(OptionType))).toEqual(new Set(numericValues(ApplicationCommandOptionType)));
    expect(new Set(Object.values(SandboxInteractionType))).toEqual(new Set(numericValues(InteractionType)));
    expect(new Set(Object.values(CallbackType))).toEqual(new Set(numericValues(InteractionResponseType)));
  });
});
