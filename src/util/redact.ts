/**
 * Secret scrubbing shared by every layer that produces text a human may read (logs, errors, CLI output).
 *
 * Two nets: exact values registered at runtime (the bot token, OAuth secrets, passwords of configured URLs), and
 * shapes that are secret whatever their value (bot tokens, the credential part of an Authorization header, the
 * user-info part of a URL such as `redis://:password@host` or `https://user:pass@api`). Interaction tokens are
 * kept out of messages at the source (routes are rendered as templates), so they need no net here.
 */

const REDACTED = '[redacted]';
/** Long-lived secrets (bot token, client secrets): kept for the life of the process. */
const pinned = new Set<string>();
/**
 * Short-lived secrets (OAuth access and refresh tokens) arrive without end in a long-running process; the most
 * recent ones are kept, so the pattern (and the cost of every redacted line) stays bounded.
 */
const transient = new Set<string>();
const MAX_TRANSIENT = 256;
/** Rebuilt lazily on the next redact after a change, so registering many secrets costs nothing per call. */
let registeredPattern: RegExp | null = null;
let patternStale = false;

/** Bot tokens: base64 user id, a dot, a timestamp part, a dot, an HMAC part. */
const BOT_TOKEN_SHAPE = /\b[A-Za-z0-9_-]{23,28}\.[A-Za-z0-9_-]{6,7}\.[A-Za-z0-9_-]{27,}\b/g;
/** The credential after an auth scheme, wherever a header got stringified. */
const AUTH_HEADER_SHAPE = /\b(Bot|Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/g;
/**
 * Credentials in a URL: `scheme://user:password@` keeps the user name and loses the password; `scheme://token@`
 * (user info without a colon, often an API key) loses it all. User info ends at the last `@` before the host.
 */
const URL_CREDENTIALS_SHAPE = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s:@/?#"'<>]*)(:[^\s/?#"'<>]*)?@(?=[^\s@/?#"'<>]*[\w\]])/gi;

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Remember a secret so that `redact` removes it from any text. Short values are ignored to avoid mangling prose.
 * `transient` secrets (OAuth tokens) are kept in a bounded most-recent set; others stay for good.
 */
export function registerSecret(value: string | undefined | null, options: { transient?: boolean } = {}): void {
  if (!value || value.length < 8 || pinned.has(value)) return;
  if (options.transient === true) {
    transient.delete(value);
    transient.add(value);
    if (transient.size > MAX_TRANSIENT) transient.delete(transient.values().next().value as string);
  } else {
    transient.delete(value);
    pinned.add(value);
  }
  patternStale = true;
}

/** For tests: forget every registered secret. */
export function clearSecrets(): void {
  pinned.clear();
  transient.clear();
  registeredPattern = null;
  patternStale = false;
}

function currentPattern(): RegExp | null {
  if (patternStale) {
    const all = [...pinned, ...transient].sort((a, b) => b.length - a.length).map(escapeRegExp);
    registeredPattern = all.length > 0 ? new RegExp(all.join('|'), 'g') : null;
    patternStale = false;
  }
  return registeredPattern;
}

/** Replace every registered secret and every secret-shaped substring. Cheap when the text holds none. */
export function redact(text: string): string {
  let out = text;
  const pattern = currentPattern();
  if (pattern !== null) out = out.replace(pattern, REDACTED);
  out = out.replace(AUTH_HEADER_SHAPE, (_m, scheme: string) => `${scheme} ${REDACTED}`);
  out = out.replace(BOT_TOKEN_SHAPE, REDACTED);
  if (out.includes('@')) out = out.replace(URL_CREDENTIALS_SHAPE, maskUserInfo);
  return out;
}

function maskUserInfo(_match: string, scheme: string, user: string, password: string | undefined): string {
  if (password === undefined) return user === '' ? `${scheme}@` : `${scheme}${REDACTED}@`;
  return `${scheme}${user}:${REDACTED}@`;
}

/**
 * The secret parts of a URL's user info (password, or a user name that stands alone), as written and decoded,
 * for `registerSecret`: a server may echo a password without the URL around it (Redis answers a wrong AUTH
 * with the password in the message). Works on text that is not a valid URL too.
 */
export function urlCredentials(url: string): string[] {
  const m = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)@/i.exec(url.trim());
  if (m === null) return [];
  const info = m[1]!;
  const colon = info.indexOf(':');
  const parts = colon === -1 ? [info] : [info.slice(colon + 1)];
  const out: string[] = [];
  for (const p of parts) {
    if (p === '') continue;
    out.push(p);
    try {
      const decoded = decodeURIComponent(p);
      if (decoded !== p) out.push(decoded);
    } catch {
      // Not percent-encoded text: the raw form is all there is.
    }
  }
  return out;
}

/** Scrub an error in place (message and stack) and return it, for errors built from foreign text. */
export function redactError<E extends Error>(err: E): E {
  err.message = redact(err.message);
  if (err.stack) err.stack = redact(err.stack);
  return err;
}
