import { RequestRefusedError } from '../errors.js';
import type { CallOptions, RestRequester } from '../types.js';

/**
 * Lobbies (social SDK game backends). The spec names one operation and its limit, not its body shape;
 * the shape below follows the public API documentation and stays loose where the spec is silent.
 */

/** Members changed per bulk request (protocol §S4.4). */
export const MAX_LOBBY_BULK_MEMBERS = 25;

export interface LobbyMemberChange {
  id: string;
  metadata?: Record<string, string> | null;
  flags?: number;
  /** Remove this member instead of adding or updating it. */
  remove_member?: boolean;
}

const BULK = '/lobbies/{lobby_id}/members/bulk';

/** Add, update or remove up to 25 lobby members in one request. */
export function bulkUpdateLobbyMembers(
  rest: RestRequester,
  lobbyId: string,
  members: readonly LobbyMemberChange[],
  options: CallOptions = {},
): Promise<unknown> {
  if (members.length === 0 || members.length > MAX_LOBBY_BULK_MEMBERS) {
    return Promise.reject(
      new RequestRefusedError(
        'POST',
        BULK,
        'invalid-input',
        `${members.length} lobby member changes; 1 to ${MAX_LOBBY_BULK_MEMBERS} per request`,
      ),
    );
  }
  return rest.request({ ...options, method: 'POST', route: BULK, params: { lobby_id: lobbyId }, body: members });
}
