/**
 * Preconditions are checked when a plugin loads: a misspelt permission, a window that is not a number, an unknown
 * rule or text keeps the plugin from loading with the field named, instead of letting everyone (or no one) through.
 */
import { describe, expect, it } from 'vitest';
import { checkPluginShape } from '../../../src/plugins/shape.js';
import { stripRuntimeFields } from '../../../src/commands/payload.js';

const run = async (): Promise<void> => undefined;

describe('precondition declarations', () => {
  it('a valid plugin has no problems', () => {
    expect(
      checkPluginShape({
        name: 'ok',
        preconditions: { guildOnly: true, cooldown: { windowMs: 1_000, limit: 2, per: 'member', bucket: 'all' } },
        preconditionTexts: { fr: { cooldown: 'Réessayez {retry}.' } },
        commands: [{ name: 'a', description: 'a', preconditions: { permissions: { member: ['ManageMessages'], bot: 8n } }, options: [{ type: 1, name: 'b', description: 'b', preconditions: { entitlement: '1' } }] }],
        components: [{ customId: 'x', run, preconditions: { custom: [() => true] } }],
        modals: [{ customId: 'm', run, preconditions: { owners: true, nsfw: true } }],
      }),
    ).toEqual([]);
  });

  it('names each problem by its field', () => {
    const problems = checkPluginShape({
      name: 'bad',
      preconditions: { guildOnly: true, dmOnly: true, cooldwon: {} },
      preconditionTexts: { fr: { cooldwon: 'x' } },
      commands: [
        {
          name: 'a',
          description: 'a',
          preconditions: { cooldown: { windowMs: '10s' }, permissions: { member: ['ManageMesages'] } },
          options: [{ type: 1, name: 'b', description: 'b', preconditions: { entitlement: { sku: '1', owner: 'team' } } }],
        },
      ],
      components: [{ customId: 'x', run, preconditions: { custom: 'no' } }],
    });
    expect(problems.map((p) => `${p.path}: ${p.message}`)).toEqual([
      'commands[0].preconditions.cooldown.windowMs: must be a number of milliseconds, 1 or more',
      'commands[0].preconditions.permissions.member[0]: "ManageMesages" is not a permission; did you mean "ManageMessages"?',
      'commands[0].options[0].preconditions.entitlement.owner: must be "user" or "guild"',
      'components[0].preconditions.custom: must be a function (or a list of them) returning true or the reason',
      'preconditions.cooldwon: unknown precondition; did you mean "cooldown"?',
      'preconditions.dmOnly: cannot hold together with guildOnly: nobody could run this',
      'preconditionTexts.fr.cooldwon: unknown text; did you mean "cooldown"?',
    ]);
  });

  it('are never sent with the command, on commands, subcommands and groups', () => {
    const payload = stripRuntimeFields({
      name: 'a',
      description: 'a',
      preconditions: { guildOnly: true },
      options: [{ type: 2, name: 'g', description: 'g', preconditions: {}, options: [{ type: 1, name: 's', description: 's', preconditions: {} }] }],
    });
    expect(JSON.stringify(payload)).not.toContain('preconditions');
  });
});
