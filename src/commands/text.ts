/**
 * Text rules: how long a string is, and what a CHAT_INPUT name may contain.
 *
 * "Characters" are Unicode code points, not UTF-16 code units and not grapheme clusters:
 * - the spec's own naming regex counts `{1,32}` under the unicode flag, i.e. in code points, and every other
 *   length must agree with it (a 32-letter name of astral letters such as U+1D49C is valid; 33 is not);
 * - the service counts the decoded JSON string, where an astral character is one character;
 * - grapheme clusters would let a name carry unbounded combining marks, and Devanagari/Thai names are built
 *   from combining marks that the regex counts one by one.
 * A lone surrogate (possible in JSON's \uD800 escapes) counts as one.
 */

/** Number of Unicode code points in `s` (astral characters count once). */
export function codePointLength(s: string): number {
  const n = s.length;
  let count = n;
  for (let i = 0; i < n - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        count--;
        i++;
      }
    }
  }
  return count;
}

/** The naming rule of protocol §S2.1, verbatim, with the unicode flag. */
export const CHAT_INPUT_NAME_REGEX = /^[-_'\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$/u;
const NAME_CHAR = /^[-_'\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]$/u;
const NAME_CHARS = /^[-_'\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]*$/u;

function describeChar(ch: string): string {
  const cp = ch.codePointAt(0) ?? 0;
  const hex = cp.toString(16).toUpperCase().padStart(4, '0');
  return ch.trim() === '' ? `U+${hex}` : `'${ch}' (U+${hex})`;
}

/** The first character the naming regex does not allow, described for a message; null when all are allowed. */
export function firstInvalidNameChar(name: string): string | null {
  if (NAME_CHARS.test(name)) return null;
  for (const ch of name) if (!NAME_CHAR.test(ch)) return describeChar(ch);
  return null;
}

/**
 * Naming rule 2: a character that has a lowercase variant must be that variant. Uncased scripts (CJK,
 * Devanagari, Thai, ...) and letters without a lowercase mapping (e.g. U+1D49C MATHEMATICAL SCRIPT CAPITAL A)
 * are allowed. Mapping is locale-independent (String#toLowerCase, the Unicode default case mapping).
 * Returns the first offending character, described, or null.
 */
export function firstUppercaseChar(name: string): string | null {
  if (name.toLowerCase() === name) return null;
  for (const ch of name) if (ch.toLowerCase() !== ch) return describeChar(ch);
  return null;
}
