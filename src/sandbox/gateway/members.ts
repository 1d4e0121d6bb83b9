/**
 * Request Guild Members (op 8) -> GUILD_MEMBERS_CHUNK (protocol §10.4, §11.9), and the all-members limit
 * answered with RATE_LIMITED (protocol §8.1, §11.3, §S6).
 */
import { INTENT_BITS } from '../../api/intents.js';
import type { SandboxStore } from '../state/store.js';
import { memberJson } from '../state/serialize.js';
import type { MemberRecord } from '../state/model.js';
import { isSnowflake } from '../../api/snowflake.js';

export const MEMBERS_PER_CHUNK = 1000;
const MAX_QUERY_RESULTS = 100;
const MAX_USER_IDS = 100;
const MAX_NONCE_BYTES = 32;

export interface MemberRequest {
  guildId: string;
  query: string | null;
  limit: number;
  userIds: Array<string | number> | null;
  presences: boolean;
  nonce: string | null;
}

/** Parse op 8's `d`; a string names the problem (the connection closes with 4001). */
export function parseMemberRequest(d: unknown): MemberRequest | string {
  if (typeof d !== 'object' || d === null || Array.isArray(d)) return 'd must be an object';
  const o = d as Record<string, unknown>;
  if (!isSnowflake(o.guild_id)) return 'guild_id must be one snowflake';
  let userIds: Array<string | number> | null = null;
  if (o.user_ids !== undefined && o.user_ids !== null) {
    const list = Array.isArray(o.user_ids) ? o.user_ids : [o.user_ids];
    if (list.length > MAX_USER_IDS) return `user_ids holds at most ${MAX_USER_IDS} ids`;
    for (const id of list) {
      if (!(isSnowflake(id) || (typeof id === 'number' && Number.isInteger(id) && id >= 0))) {
        return 'user_ids must be snowflakes';
      }
    }
    userIds = list as Array<string | number>;
  }
  let query: string | null = null;
  let limit = 0;
  if (userIds === null) {
    if (typeof o.query !== 'string') return 'one of query or user_ids is required';
    query = o.query;
    if (typeof o.limit !== 'number' || !Number.isInteger(o.limit) || o.limit < 0) return 'limit is required with query';
    limit = o.limit;
  }
  if (o.presences !== undefined && typeof o.presences !== 'boolean') return 'presences must be a boolean';
  // An invalid nonce is ignored: the replies then carry none (protocol §10.4).
  const nonce = typeof o.nonce === 'string' && Buffer.byteLength(o.nonce) <= MAX_NONCE_BYTES ? o.nonce : null;
  return { guildId: o.guild_id, query, limit, userIds, presences: o.presences === true, nonce };
}

export function isAllMembersRequest(r: MemberRequest): boolean {
  return r.userIds === null && r.query === '' && r.limit === 0;
}

/**
 * The chunks answering a request, as serialized `d` payloads, or null when the service sends nothing
 * (requesting the member list without the GUILD_MEMBERS intent is silently ignored).
 */
export function memberChunks(store: SandboxStore, request: MemberRequest, intents: number): string[] | null {
  const guild = store.guild(request.guildId);
  if (!guild) return null;
  const members = store.members(guild);
  const selected: MemberRecord[] = [];
  let notFound: Array<string | number> = [];

  if (request.userIds !== null) {
    for (const id of request.userIds) {
      const m = members.get(String(id));
      if (m) selected.push(m);
      else notFound.push(id);
    }
    // The service echoes ids that fit a JSON number as numbers (protocol §1).
    notFound = notFound.map((id) => {
      const n = Number(id);
      return Number.isSafeInteger(n) ? n : String(id);
    });
  } else if (request.query === '') {
    if ((intents & INTENT_BITS.GUILD_MEMBERS) === 0) return null;
    const max = request.limit === 0 ? Infinity : request.limit;
    for (const m of members.values()) {
      if (selected.length >= max) break;
      selected.push(m);
    }
  } else {
    const prefix = request.query!.toLowerCase();
    const max = Math.min(request.limit === 0 ? MAX_QUERY_RESULTS : request.limit, MAX_QUERY_RESULTS);
    for (const m of members.values()) {
      if (selected.length >= max) break;
      const user = store.userOf(m);
      if (user.username.toLowerCase().startsWith(prefix) || (m.nick !== null && m.nick.toLowerCase().startsWith(prefix))) {
        selected.push(m);
      }
    }
  }

  const withPresences = request.presences && (intents & INTENT_BITS.GUILD_PRESENCES) !== 0;
  const count = Math.max(1, Math.ceil(selected.length / MEMBERS_PER_CHUNK));
  const chunks: string[] = [];
  for (let i = 0; i < count; i++) {
    const part = selected.slice(i * MEMBERS_PER_CHUNK, (i + 1) * MEMBERS_PER_CHUNK);
    let json = `{"guild_id":"${guild.id}","members":[${part.map((m) => memberJson(m, store.userJsonOf(m))).join(',')}],"chunk_index":${i},"chunk_count":${count}`;
    if (i === 0 && request.userIds !== null) json += `,"not_found":${JSON.stringify(notFound)}`;
    // Nobody is online in the sandbox: presences are asked for, and there are none.
    if (withPresences) json += ',"presences":[]';
    if (request.nonce !== null) json += `,"nonce":${JSON.stringify(request.nonce)}`;
    chunks.push(`${json}}`);
  }
  return chunks;
}
