/**
 * Components and modals as a bot owner sees them: a plugin declares handlers by custom_id, the sandbox
 * delivers real MESSAGE_COMPONENT and MODAL_SUBMIT interactions over the gateway, and records every answer
 * (update 7, deferred update 6, modal 9, Activity 12, replies and follow-ups).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InteractionRecord, Sandbox } from '../../src/sandbox/index.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import { newSandbox, settled, startBot, until, type LogSink } from './helpers.js';

const FIXTURE = 'test/fixtures/plugins/components';

let sandbox: Sandbox;
let runtime: Runtime;
let logs: LogSink;
let guildId: string;

beforeAll(async () => {
  sandbox = await newSandbox();
  ({ runtime, logs } = await startBot(sandbox, [FIXTURE], { deferAfterMs: 800 }));
  guildId = sandbox.state.guildIds[0]!;
});
afterAll(async () => {
  await runtime?.stop({ graceMs: 1_000 });
  await sandbox?.close();
});

async function command(name: string, options?: Record<string, number>): Promise<InteractionRecord> {
  const record = await sandbox.invoke({ name, guildId, ...(options ? { options } : {}) });
  await settled(record);
  return record;
}

async function click(messageId: string, customId: string, values?: string[]): Promise<InteractionRecord> {
  const record = await sandbox.component({ messageId, customId, ...(values ? { values } : {}) });
  await settled(record);
  return record;
}

describe('component handlers', () => {
  let poll: InteractionRecord;
  let messageId: string;
  beforeAll(async () => {
    poll = await command('poll');
    messageId = poll.original!.id as string;
  });

  it('routes a button by its custom_id pattern and updates the message (7), with the parameters parsed', async () => {
    const fresh = await command('poll');
    const id = fresh.id;
    const vote = await click(fresh.original!.id as string, `poll:${id}:yes`);
    expect(vote.callbacks[0]?.type).toBe(7);
    expect(vote.callbacks[0]?.data).toMatchObject({ content: `owner voted yes in poll ${id}`, components: [] });
    // The message the button sat on changed where it lives.
    expect(fresh.original).toMatchObject({ id: fresh.original!.id, content: `owner voted yes in poll ${id}` });
  });

  it('defers the update (6) for a slow handler; its update then edits the message', async () => {
    const fresh = await command('poll');
    const slow = await click(fresh.original!.id as string, `slow:${fresh.id}`);
    expect(slow.callbacks.map((c) => c.type)).toEqual([6]);
    await until(() => fresh.original?.content === `slow done ${fresh.id}`, 'the slow update');
    expect(slow.callbacks).toHaveLength(1);
  });

  it('after deferUpdate, editReply edits the message and reply becomes a follow-up with its own flags', async () => {
    const fresh = await command('poll');
    const quiet = await click(fresh.original!.id as string, `quiet:${fresh.id}`);
    expect(quiet.callbacks.map((c) => c.type)).toEqual([6]);
    expect(fresh.original?.content).toBe('edited after a deferred update');
    expect(quiet.followups).toHaveLength(1);
    expect(quiet.followups[0]).toMatchObject({ content: 'a reply after a deferred update is a follow-up', flags: 64 });
  });

  it('gives every select kind its typed values, with resolved users, roles and channels', async () => {
    const members = sandbox.state.memberIds(guildId).filter((id) => id !== sandbox.applicationId);
    const picked = await click(messageId, `pick:${poll.id}`, ['a', 'b']);
    expect(picked.callbacks[0]?.data?.content).toBe(`picked a+b in ${poll.id}`);
    const users = await click(messageId, 'who', [members[0]!, members[1]!]);
    expect(users.callbacks[0]?.data?.content).toMatch(/^users owner, \S+$/);
    const payloadRoles = (poll.payload.member as { roles: string[] }).roles;
    const role = await click(messageId, 'role', [payloadRoles[0]!]);
    expect(role.callbacks[0]?.data?.content).toMatch(/^role \S+/);
    expect(role.callbacks[0]?.data?.content).not.toBe(`role ${payloadRoles[0]!}`);
    const channelId = poll.payload.channel_id as string;
    const where = await click(messageId, 'where', [channelId]);
    expect(where.callbacks[0]?.data?.content).toBe('channel general');
    const more = await command('more');
    const mention = await click(more.original!.id as string, 'mention', [members[1]!, payloadRoles[0]!]);
    expect(mention.callbacks[0]?.data?.content).toMatch(/^mentioned user \S+, role \S+$/);
  });

  it('opens a modal from a button; the submission reaches the modal handler with text, files and users', async () => {
    const open = await click(messageId, `feedback:${poll.id}`);
    expect(open.callbacks[0]).toMatchObject({ type: 9, data: { custom_id: `feedback-form:${poll.id}`, title: 'Feedback' } });
    const member = sandbox.state.memberIds(guildId).find((id) => id !== sandbox.applicationId)!;
    const submit = await sandbox.submitModal({ interactionId: open.id, values: { words: 'nice bot', shots: ['a.png', 'b.pdf'], others: [member] } });
    await settled(submit);
    expect(submit.callbacks[0]).toMatchObject({ type: 4, data: { content: `thanks for "nice bot" on ${poll.id}; files: a.png, b.pdf; others: 1`, flags: 64 } });
  });

  it('a file upload takes at most its max_values files (0-10)', async () => {
    const open = await click(messageId, `feedback:${poll.id}`);
    await expect(sandbox.submitModal({ interactionId: open.id, values: { words: 'x', shots: ['1.png', '2.png', '3.png', '4.png'] } })).rejects.toThrow(/0-3 files; got 4/);
  });

  it('launches the Activity (12) from a button', async () => {
    const more = await command('more');
    const play = await click(more.original!.id as string, 'play');
    expect(play.callbacks[0]?.type).toBe(12);
  });

  it('answers a throwing handler ephemerally and logs it with the plugin and the handler', async () => {
    const more = await command('more');
    const boom = await click(more.original!.id as string, 'boom');
    expect(boom.callbacks[0]).toMatchObject({ type: 4, data: { flags: 64 } });
    expect(logs.lines.find((l) => l.msg === 'component or modal handler failed' && l.handler === 'component boom')).toMatchObject({ plugin: 'poll' });
  });

  it('refuses a component of another kind than the handler declared, saying which', async () => {
    const more = await command('more');
    const mixed = await click(more.original!.id as string, 'who-button');
    expect(mixed.callbacks[0]).toMatchObject({ type: 4, data: { flags: 64 } });
    const line = logs.lines.find((l) => l.handler === 'component who-button');
    expect(String((line?.err as { message?: string } | undefined)?.message)).toMatch(/handles custom_id "who-button" as userSelect, but a button sent it/);
  });
});

describe('message limits, checked before sending', () => {
  it('sends a Components V2 message (flag 1 << 15) within 40 components', async () => {
    const ok = await command('v2', { components: 39 });
    expect(ok.callbacks[0]?.type).toBe(4);
    expect(ok.original?.flags).toBe(1 << 15);
  });

  it('refuses 41 components in a V2 message, 6 action rows in a legacy one, 26 embed fields: the user gets an error, the log says why', async () => {
    const cases: Array<[string, Record<string, number> | undefined, RegExp]> = [
      ['v2', { components: 40 }, /components: 41 components in total .* allows at most 40/],
      ['rows', undefined, /components: 6 action rows; a message without Components V2 allows at most 5/],
      ['fields', undefined, /embeds\[0\]\.fields: 26 fields; an embed allows at most 25/],
    ];
    for (const [name, options, message] of cases) {
      const record = await command(name, options);
      // The handler's reply never reached the service: the first answer is the router's ephemeral error.
      expect(record.callbacks).toHaveLength(1);
      expect(record.callbacks[0]).toMatchObject({ type: 4, data: { flags: 64 } });
      expect(String(record.callbacks[0]?.data?.content)).toMatch(/Something went wrong/);
      const failure = logs.lines.filter((l) => l.msg === 'command handler failed' && l.command === name).at(-1);
      expect(String((failure?.err as { message?: string }).message)).toMatch(message);
    }
  });
});
