/**
 * What a denied precondition tells the user: the plugin's translation for the interaction's locale (the exact
 * locale, then its language: `pt-BR`, then `pt`), English otherwise.
 */
import { own } from '../../util/dict.js';
import type { PreconditionTexts, PreconditionTranslations } from './types.js';

export const ENGLISH_TEXTS: PreconditionTexts = {
  cooldown: 'You are doing that too often. Try again {retry}.',
  memberPermissions: 'You need these permissions here: {permissions}.',
  botPermissions: 'I need these permissions here: {permissions}.',
  entitlement: 'This needs a premium subscription.',
  guildOnly: 'This works only in a server.',
  dmOnly: 'This works only in direct messages.',
  owners: 'Only the owners of this app can do that.',
  nsfw: 'This works only in age-restricted channels.',
};

/** The text of `key` for `locale`, with `{name}` placeholders filled from `values`. */
export function denialText(
  key: keyof PreconditionTexts,
  locale: string | undefined,
  translations: PreconditionTranslations | undefined,
  values: Readonly<Record<string, string>> = {},
): string {
  const template = translated(key, locale, translations) ?? ENGLISH_TEXTS[key];
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => own(values, name) ?? whole);
}

function translated(key: keyof PreconditionTexts, locale: string | undefined, translations: PreconditionTranslations | undefined): string | undefined {
  if (locale === undefined || translations === undefined) return undefined;
  const language = locale.split('-')[0]!;
  for (const candidate of [locale, language]) {
    const text = own(translations, candidate)?.[key];
    if (typeof text === 'string') return text;
  }
  return undefined;
}

/** The platform's relative timestamp markup for a time in ms (protocol §14 message formatting): `<t:UNIX:R>`. */
export function relativeTime(ms: number): string {
  return `<t:${Math.ceil(ms / 1000)}:R>`;
}
