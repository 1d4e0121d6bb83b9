/** Small helpers for benchmark reports: number formatting and markdown tables. */

export function fmtInt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

export function fmtRatio(n: number): string {
  return n >= 10 ? n.toFixed(1) : n.toFixed(2);
}

/** A GitHub-flavoured markdown table; numeric-looking columns are right-aligned. */
export function markdownTable(header: string[], rows: string[][]): string {
  const numeric = header.map((_, c) => rows.length > 0 && rows.every((r) => /^[-\d.,x/ ]*$|^—$/.test(r[c] ?? '')));
  const widths = header.map((h, c) => Math.max(h.length, 3, ...rows.map((r) => (r[c] ?? '').length)));
  const line = (cells: string[]): string =>
    `| ${cells.map((cell, c) => (numeric[c] ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!))).join(' | ')} |`;
  const rule = `|${widths.map((w, c) => (numeric[c] ? `${'-'.repeat(w + 1)}:` : `${'-'.repeat(w + 2)}`)).join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}
