import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the service and its operators can find the library (protocol §2.2). */
export const LIBRARY_URL = 'https://github.com/gatehouse/gatehouse';

/**
 * The package version, read once from our own package.json. Walks up from this module because the
 * sources run from src/rest/ and the build from dist/src/rest/.
 */
function readVersion(): string {
  try {
    let dir = dirname(fileURLToPath(import.meta.url));
    for (let i = 0; i < 6; i++) {
      try {
        const pkg: unknown = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
        if (typeof pkg === 'object' && pkg !== null && (pkg as { name?: unknown }).name === 'gatehouse') {
          const version = (pkg as { version?: unknown }).version;
          if (typeof version === 'string') return version;
        }
      } catch {
        // no package.json here: keep walking up
      }
      const parent = dirname(dir);
      if (parent === dir) break;
      dir = parent;
    }
  } catch {
    // not a file URL (bundled): fall through
  }
  return '0.0.0';
}

export const LIBRARY_VERSION = readVersion();

/** `DiscordBot ($url, $versionNumber)`, the form the service requires; extra text may follow. */
export function userAgent(suffix?: string): string {
  const base = `DiscordBot (${LIBRARY_URL}, ${LIBRARY_VERSION})`;
  return suffix ? `${base} ${suffix}` : base;
}
