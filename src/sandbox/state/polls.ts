/**
 * Polls and pins of the bot's messages. A poll is stored as the service builds it from the request
 * (discord-api-docs "Poll" resource: answers numbered from 1, `expiry` from `duration` hours, default 24,
 * `results` with the counts), votes are kept per answer and change `results` (MESSAGE_POLL_VOTE_ADD / _REMOVE),
 * and ending it early finalizes it (MESSAGE_UPDATE). Pins keep when each message was pinned.
 */
import { isObject } from '../../util/is-object.js';
import type { MessageRecord } from './messages.js';
import type { SandboxStore } from './store.js';

export type Json = Record<string, unknown>;

const HOUR_MS = 3_600_000;
const votesByMessage = new WeakMap<MessageRecord, Map<number, Set<string>>>();
const pinnedAt = new WeakMap<MessageRecord, number>();

/** The poll of a create request as the service stores it (anything but an object stays absent). */
export function storedPoll(poll: unknown, now = Date.now()): Json | undefined {
  if (!isObject(poll)) return undefined;
  const answers = Array.isArray(poll.answers) ? poll.answers : [];
  const hours = typeof poll.duration === 'number' ? poll.duration : 24;
  return {
    question: isObject(poll.question) ? { ...poll.question } : { text: '' },
    answers: answers.map((a: unknown, i) => ({ answer_id: i + 1, poll_media: isObject(a) && isObject(a.poll_media) ? { ...a.poll_media } : {} })),
    expiry: new Date(now + hours * HOUR_MS).toISOString(),
    allow_multiselect: poll.allow_multiselect === true,
    layout_type: typeof poll.layout_type === 'number' ? poll.layout_type : 1,
    results: { is_finalized: false, answer_counts: [] },
  };
}

export function votesOf(record: MessageRecord): Map<number, Set<string>> {
  let v = votesByMessage.get(record);
  if (v === undefined) votesByMessage.set(record, (v = new Map()));
  return v;
}

/** `results` rebuilt from the votes (`me_voted`: the bot's). */
function refreshResults(record: MessageRecord, botId: string, finalized: boolean): void {
  const poll = record.message.poll as Json;
  const counts = [...votesOf(record).entries()].filter(([, users]) => users.size > 0).sort(([a], [b]) => a - b);
  poll.results = { is_finalized: finalized, answer_counts: counts.map(([id, users]) => ({ id, count: users.size, me_voted: users.has(botId) })) };
}

export function pollOpen(record: MessageRecord): boolean {
  const poll = record.message.poll;
  if (!isObject(poll)) return false;
  const results = poll.results as { is_finalized?: boolean } | undefined;
  return results?.is_finalized !== true && Date.parse(String(poll.expiry)) > Date.now();
}

function voteEvent(store: SandboxStore, record: MessageRecord, t: string, userId: string, answerId: number): void {
  const d: Json = { user_id: userId, channel_id: record.channelId, message_id: record.id, answer_id: answerId };
  if (record.guildId !== null) d.guild_id = record.guildId;
  store.emit(record.guildId, t, JSON.stringify(d));
}

/**
 * A user's votes become `answerIds` (empty: withdrawn): a vote event per answer added or removed. Refuses
 * answers the poll does not have, several answers without `allow_multiselect`, and a closed poll.
 */
export function setVotes(store: SandboxStore, record: MessageRecord, userId: string, answerIds: readonly number[]): string | null {
  if (!pollOpen(record)) return 'the poll is over (or the message has none)';
  const poll = record.message.poll as Json;
  const known = new Set((poll.answers as Array<{ answer_id: number }>).map((a) => a.answer_id));
  if (answerIds.some((id) => !known.has(id))) return `answers are ${[...known].join(', ')}`;
  if (answerIds.length > 1 && poll.allow_multiselect !== true) return 'this poll takes one answer';
  const votes = votesOf(record);
  for (const [id, users] of votes) if (!answerIds.includes(id) && users.delete(userId)) voteEvent(store, record, 'MESSAGE_POLL_VOTE_REMOVE', userId, id);
  for (const id of answerIds) {
    let users = votes.get(id);
    if (users === undefined) votes.set(id, (users = new Set()));
    if (!users.has(userId)) {
      users.add(userId);
      voteEvent(store, record, 'MESSAGE_POLL_VOTE_ADD', userId, id);
    }
  }
  refreshResults(record, store.applicationId, false);
  return null;
}

/** End a poll now: finalized results, expiry now. */
export function expirePoll(store: SandboxStore, record: MessageRecord): void {
  (record.message.poll as Json).expiry = new Date().toISOString();
  refreshResults(record, store.applicationId, true);
}

export function pinTime(record: MessageRecord): number | undefined {
  return pinnedAt.get(record);
}

export function setPinned(record: MessageRecord, pinned: boolean): void {
  if (pinned) pinnedAt.set(record, Date.now());
  else pinnedAt.delete(record);
  record.message.pinned = pinned;
}
