/**
 * Example: a slash command with subcommands and autocomplete.
 *   /dice roll sides:<autocomplete> [count]   /dice flip
 */
import { definePlugin, defineSubcommand } from 'gatehouse';

const COMMON_DICE = [4, 6, 8, 10, 12, 20, 100];

function rollDie(sides: number): number {
  return 1 + Math.floor(Math.random() * sides);
}

const roll = defineSubcommand({
  type: 1,
  name: 'roll',
  description: 'Roll one or more dice',
  options: [
    { type: 4, name: 'sides', description: 'Sides per die', required: true, min_value: 2, max_value: 1000, autocomplete: true },
    { type: 4, name: 'count', description: 'How many dice (default 1)', min_value: 1, max_value: 20 },
  ],
  async run(ctx) {
    const { sides, count = 1 } = ctx.options;
    const rolls = Array.from({ length: count }, () => rollDie(sides));
    const total = rolls.reduce((a, b) => a + b, 0);
    await ctx.reply(
      count === 1 ? `You rolled ${total} (d${sides})` : `You rolled ${rolls.join(' + ')} = ${total} (${count}d${sides})`,
    );
  },
  // Autocomplete gets partial input: suggest the usual dice whose size starts with what was typed.
  autocomplete(ctx) {
    const typed = String(ctx.focused.value).trim();
    return COMMON_DICE.filter((n) => String(n).startsWith(typed)).map((n) => ({ name: `d${n}`, value: n }));
  },
});

const flip = defineSubcommand({
  type: 1,
  name: 'flip',
  description: 'Flip a coin',
  async run(ctx) {
    await ctx.reply(Math.random() < 0.5 ? 'Heads' : 'Tails');
  },
});

export default definePlugin({
  name: 'dice',
  commands: [
    {
      name: 'dice',
      description: 'Roll dice or flip a coin',
      name_localizations: { fr: 'des', de: 'wuerfel' },
      contexts: [0, 1, 2],
      integration_types: [0, 1],
      options: [roll, flip],
    },
  ],
});
