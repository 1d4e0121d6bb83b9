/** "Did you mean" for misspelt names (config keys, intents, events, plugin sections). */

/** Levenshtein distance; inputs are short names. */
export function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length]!;
}

/**
 * The known name closest to `key` (case and the separators "-", "_", "." ignored), when it is close enough
 * to be a slip: at most 2 edits, and fewer than half of the name's characters.
 */
export function closest(key: string, known: Iterable<string>): string | null {
  const norm = (s: string): string => s.toLowerCase().replace(/[-_.]/g, '');
  const k = norm(key);
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const d = distance(k, norm(candidate));
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best !== null && bestDistance <= 2 && bestDistance * 2 < Math.max(k.length, 2) ? best : null;
}

/** `; did you mean "x"?` or the empty string. */
export function suggestion(key: string, known: Iterable<string>): string {
  const best = closest(key, known);
  return best === null ? '' : `; did you mean "${best}"?`;
}
