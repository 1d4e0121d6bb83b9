/**
 * Reading markdown the way GitHub renders it, for the docs tests: fenced code blocks with their info strings,
 * headings with the anchors GitHub gives them, and the links of the prose (not of code).
 */

/** The ```ts blocks of a markdown text, with the line each starts on (exactly `ts` or `typescript`). */
export function typescriptBlocks(markdown: string): Array<{ line: number; code: string }> {
  return codeBlocks(markdown)
    .filter((b) => b.info === 'ts' || b.info === 'typescript')
    .map(({ line, code }) => ({ line, code }));
}

export interface CodeBlock {
  /** 1-based line of the block's first code line. */
  readonly line: number;
  /** The whole info string after the fence, trimmed (`ts fragment`, `ts file=plugins/hello.ts`). */
  readonly info: string;
  /** Its first word, lowercased: the language GitHub highlights (`ts`). */
  readonly lang: string;
  /** The words after the first (`fragment`, `file=plugins/hello.ts`). */
  readonly attributes: readonly string[];
  readonly code: string;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*(.*)$/;

/** Every fenced code block (``` or ~~~, closed by a fence of the same kind at least as long). */
export function codeBlocks(markdown: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!);
    if (open === null) continue;
    const fence = open[1]!;
    const info = open[2]!.trim();
    let end = i + 1;
    while (end < lines.length && !new RegExp(`^ {0,3}${fence[0] === '`' ? '`' : '~'}{${fence.length},}\\s*$`).test(lines[end]!)) end++;
    const [lang = '', ...attributes] = info.split(/\s+/).filter((w) => w.length > 0);
    blocks.push({ line: i + 2, info, lang: lang.toLowerCase(), attributes, code: lines.slice(i + 1, end).join('\n') });
    i = end;
  }
  return blocks;
}

/** The lines of a markdown text that are prose: fenced code blocks blanked (line numbers stay as they are). */
export function proseLines(markdown: string): string[] {
  const lines = markdown.split('\n');
  const out = [...lines];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!);
    if (open === null) continue;
    const fence = open[1]!;
    let end = i + 1;
    while (end < lines.length && !new RegExp(`^ {0,3}${fence[0] === '`' ? '`' : '~'}{${fence.length},}\\s*$`).test(lines[end]!)) end++;
    for (let j = i; j <= end && j < lines.length; j++) out[j] = '';
    i = end;
  }
  return out;
}

/** A heading's text as GitHub renders it: inline code kept, links reduced to their text, emphasis and HTML dropped. */
export function headingText(raw: string): string {
  return raw
    .replace(/\s+#+\s*$/, '')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/(\*\*|__|\*|_)(\S(?:.*?\S)?)\1/g, '$2')
    .trim();
}

/**
 * GitHub's anchor for a heading text (as github-slugger makes it): lowercased, every character that is not a
 * letter, a mark, a digit, a connector (`_`), a hyphen or a space removed, each space made a hyphen.
 */
export function githubSlug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

export interface Heading {
  readonly line: number;
  readonly depth: number;
  readonly text: string;
  readonly slug: string;
}

/** ATX headings outside code blocks, each with its anchor; repeated anchors get -1, -2, ... as on GitHub. */
export function headings(markdown: string): Heading[] {
  const seen = new Map<string, number>();
  const out: Heading[] = [];
  proseLines(markdown).forEach((line, i) => {
    const m = /^ {0,3}(#{1,6})\s+(.*)$/.exec(line);
    if (m === null) return;
    const text = headingText(m[2]!);
    const base = githubSlug(text);
    const n = seen.get(base);
    seen.set(base, (n ?? -1) + 1);
    out.push({ line: i + 1, depth: m[1]!.length, text, slug: n === undefined ? base : `${base}-${n + 1}` });
  });
  return out;
}

/** Every anchor a link may target in a markdown text: heading anchors and explicit `<a id|name="...">`. */
export function anchors(markdown: string): Set<string> {
  const out = new Set(headings(markdown).map((h) => h.slug));
  for (const m of markdown.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) out.add(m[1]!);
  return out;
}

export interface Link {
  readonly line: number;
  readonly target: string;
}

/** The link targets of the prose: inline links and images, autolinks, reference definitions. */
export function links(markdown: string): Link[] {
  const out: Link[] = [];
  proseLines(markdown).forEach((raw, i) => {
    const line = raw.replace(/`[^`]*`/g, (s) => ' '.repeat(s.length));
    for (const m of line.matchAll(/\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g)) out.push({ line: i + 1, target: m[1]! });
    for (const m of line.matchAll(/<((?:https?|mailto):[^>\s]+)>/g)) out.push({ line: i + 1, target: m[1]! });
    const def = /^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/.exec(line);
    if (def !== null) out.push({ line: i + 1, target: def[1]! });
  });
  return out;
}
