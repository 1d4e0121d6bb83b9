/**
 * Secret scrubbing shared by every layer that produces text a human may read (logs, errors, CLI output).
 *
 * Two nets: exact values registered at runtime (the bot token, OAuth secrets), and shapes that are secret
 * whatever their value (bot tokens, the credential part of an Authorization header). Interaction tokens are
 * kept out of messages at the source (routes are rendered as templates), so they need no net here.
 */

const REDACTED = '[redacted]';
const registered = new Set<string>();
let registeredPattern: RegExp | null = null;

/** Bot tokens: base64 user id, a dot, a timestamp part, a dot, an HMAC part. */
const BOT_TOKEN_SHAPE = /\b[A-Za-z0-9_-]{23,28}\.[A-Za-z0-9_-]{6,7}\.[A-Za-z0-9_-]{27,}\b/g;
/** The credential after an auth scheme, wherever a header got stringified. */
const AUTH_HEADER_SHAPE = /\b(Bot|Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/g;

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Remember a secret so that `redact` removes it from any text. Short values are ignored to avoid mangling prose. */
export function registerSecret(value: string | undefined | null): void {
  if (!value || value.length < 8 || registered.has(value)) return;
  registered.add(value);
  const alternatives = [...registered].sort((a, b) => b.length - a.length).map(escapeRegExp);
  registeredPattern = new RegExp(alternatives.join('|'), 'g');
}

/** For tests: forget every registered secret. */
export function clearSecrets(): void {
  registered.clear();
  registeredPattern = null;
}

/** Replace every registered secret and every secret-shaped substring. Cheap when the text holds none. */
export function redact(text: string): string {
  let out = text;
  if (registeredPattern !== null) out = out.replace(registeredPattern, REDACTED);
  out = out.replace(AUTH_HEADER_SHAPE, (_m, scheme: string) => `${scheme} ${REDACTED}`);
  out = out.replace(BOT_TOKEN_SHAPE, REDACTED);
  return out;
}

/** Scrub an error in place (message and stack) and return it, for errors built from foreign text. */
export function redactError<E extends Error>(err: E): E {
  err.message = redact(err.message);
  if (err.stack) err.stack = redact(err.stack);
  return err;
}
