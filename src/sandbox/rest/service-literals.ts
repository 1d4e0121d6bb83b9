/**
 * Routes of the service whose literal segment sits where a modelled route has a parameter: without this list,
 * `GET /guilds/{id}/roles/member-counts` would reach `/guilds/:guildId/roles/:roleId` and answer a plausible 50035
 * ("member-counts" is not a snowflake), which a bot would take for the service refusing it. These are not modelled, so
 * they get the marker like every other unmodelled route, whatever the method.
 */
const SERVICE_ONLY = [
  '/guilds/:guildId/roles/member-counts',
].map((template) => template.split('/').filter((s) => s.length > 0));

/** `segments` (decoded, after /api/v10) name one of the service's routes the sandbox does not model. */
export function isServiceOnlyPath(segments: readonly string[]): boolean {
  outer: for (const template of SERVICE_ONLY) {
    if (template.length !== segments.length) continue;
    for (let i = 0; i < template.length; i++) {
      const t = template[i]!;
      if (!t.startsWith(':') && t !== segments[i]) continue outer;
    }
    return true;
  }
  return false;
}
