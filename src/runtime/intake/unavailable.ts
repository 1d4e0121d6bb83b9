/**
 * What a user is told when no plugin handles the interaction they sent (a command left registered after a failed
 * sync or a removed plugin, a button on an old message, a stale client): an ephemeral "not available right now",
 * rather than the client's "This interaction failed". The text is configurable and localizable by the
 * interaction's `locale` (the user's client language), as command names are (`name_localizations`).
 */
import type { Config } from '../config.js';

export const DEFAULT_UNAVAILABLE_TEXT = 'This command is not available right now.';

/**
 * The text for a locale: an exact localization ("pt-BR"), else one for its language ("pt"), else the default.
 * Locales come from the peer: the localizations are read from a Map, never by indexing an object.
 */
export function unavailableText(commands: Pick<Config['commands'], 'unavailableText' | 'unavailableTextLocalizations'>): (locale: string | undefined) => string {
  const fallback = commands.unavailableText ?? DEFAULT_UNAVAILABLE_TEXT;
  const localized = new Map(Object.entries(commands.unavailableTextLocalizations ?? {}));
  if (localized.size === 0) return () => fallback;
  return (locale) => {
    if (typeof locale !== 'string') return fallback;
    return localized.get(locale) ?? localized.get(locale.split('-', 1)[0]!) ?? fallback;
  };
}
