/** Locales of the service (protocol §15.3) and how a requester's locale picks a localization. */

export const LOCALES = [
  'id', 'da', 'de', 'en-GB', 'en-US', 'es-ES', 'es-419', 'fr', 'hr', 'it', 'lt', 'hu', 'nl', 'no', 'pl', 'pt-BR',
  'ro', 'fi', 'sv-SE', 'vi', 'tr', 'cs', 'el', 'bg', 'ru', 'uk', 'hi', 'th', 'zh-CN', 'ja', 'zh-TW', 'ko',
] as const;

const BY_LOWER = new Map<string, string>(LOCALES.map((l) => [l.toLowerCase(), l]));
const BY_LANGUAGE = new Map<string, string>([['en', 'en-US'], ['es', 'es-ES'], ['pt', 'pt-BR'], ['sv', 'sv-SE'], ['zh', 'zh-CN']]);

/** A locale of the service from a header value (X-Discord-Locale or one Accept-Language tag), or null. */
export function normalizeLocale(tag: string | undefined | null): string | null {
  if (!tag) return null;
  const clean = tag.trim().split(';')[0]!.trim();
  const exact = BY_LOWER.get(clean.toLowerCase());
  if (exact) return exact;
  const language = clean.split('-')[0]!.toLowerCase();
  return BY_LOWER.get(language) ?? BY_LANGUAGE.get(language) ?? null;
}

/** The requester's locale: X-Discord-Locale first, then the first usable Accept-Language tag. */
export function requesterLocale(xDiscordLocale: string | undefined, acceptLanguage: string | undefined): string | null {
  const fromHeader = normalizeLocale(xDiscordLocale);
  if (fromHeader) return fromHeader;
  for (const part of (acceptLanguage ?? '').split(',')) {
    const l = normalizeLocale(part);
    if (l) return l;
  }
  return null;
}

/** Locales tried in order for a requester's locale (fallbacks: en-US <-> en-GB, es-419 -> es-ES). */
export function localeChain(locale: string): string[] {
  if (locale === 'en-US') return ['en-US', 'en-GB'];
  if (locale === 'en-GB') return ['en-GB', 'en-US'];
  if (locale === 'es-419') return ['es-419', 'es-ES'];
  return [locale];
}

/** The localization of a dictionary for a locale, with fallbacks; undefined when none applies. */
export function pickLocalization(dict: unknown, locale: string): string | undefined {
  if (typeof dict !== 'object' || dict === null) return undefined;
  for (const l of localeChain(locale)) {
    const v = Object.hasOwn(dict, l) ? (dict as Record<string, unknown>)[l] : undefined;
    if (typeof v === 'string') return v;
  }
  return undefined;
}
