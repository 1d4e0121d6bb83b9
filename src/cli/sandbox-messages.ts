/** `gatehouse sandbox messages`: what the bot sent in channels and DMs (edits and deletes shown), by channel. */
import type { CliIo } from './io.js';
import { parseVerb, str, type VerbSpec } from './args.js';
import { admin, AdminError, findSandbox, TARGET_OPTIONS } from './sandbox-client.js';
import { describeMessage } from './sandbox-describe.js';

const MESSAGES: VerbSpec = {
  verb: 'sandbox messages',
  summary: 'List the messages the bot sent in channels and DMs of a running sandbox (edits and deletes shown), by channel.',
  options: {
    channel: { type: 'string', value: 'ID', id: true, help: 'only this channel' },
    guild: { type: 'string', value: 'ID', id: true, help: 'only channels of this guild' },
    ...TARGET_OPTIONS,
  },
};

interface AdminMessageRecord {
  id: string;
  channelId: string;
  guildId: string | null;
  recipientId: string | null;
  message: Record<string, unknown>;
  createdAt: number;
  editedAt: number | null;
  deletedAt: number | null;
  edits: number;
}

export async function messages(args: string[], io: CliIo): Promise<number> {
  const parsed = parseVerb(MESSAGES, args, io);
  if (typeof parsed === 'number') return parsed;
  const target = findSandbox(parsed.values, io, MESSAGES.verb);
  if (target === null) return 1;
  io.out(target.description);
  const query = new URLSearchParams();
  const channel = str(parsed.values, 'channel');
  const guild = str(parsed.values, 'guild');
  if (channel !== undefined) query.set('channel_id', channel);
  if (guild !== undefined) query.set('guild_id', guild);
  let records: AdminMessageRecord[];
  try {
    records = await admin<AdminMessageRecord[]>(target, 'GET', `/messages${query.size > 0 ? `?${query.toString()}` : ''}`);
  } catch (err) {
    const why = err instanceof AdminError ? err.message : `cannot reach the sandbox admin API at ${target.adminUrl} (${err instanceof Error ? err.message : String(err)})`;
    io.err(`gatehouse ${MESSAGES.verb}: ${why}`);
    return 1;
  }
  if (records.length === 0) {
    io.out('no messages');
    return 0;
  }
  const byChannel = new Map<string, AdminMessageRecord[]>();
  for (const rec of records) {
    let list = byChannel.get(rec.channelId);
    if (list === undefined) byChannel.set(rec.channelId, (list = []));
    list.push(rec);
  }
  for (const list of byChannel.values()) {
    const first = list[0]!;
    io.out(first.guildId !== null ? `channel ${first.channelId} in guild ${first.guildId}:` : `DM ${first.channelId} with user ${first.recipientId ?? '?'}:`);
    for (const rec of list) {
      const state = [rec.edits > 0 ? `edited ${rec.edits}x` : null, rec.deletedAt !== null ? 'deleted' : null].filter(Boolean);
      io.out(`  ${new Date(rec.createdAt).toISOString()}  message ${rec.id}${state.length > 0 ? ` (${state.join(', ')})` : ''}`);
      for (const line of describeMessage(rec.message, '    ')) io.out(line);
    }
  }
  return 0;
}
