/**
 * Emojis and stickers of the sandbox through gatehouse's RestClient (the product path): guild emojis with the
 * CREATE_ / MANAGE_GUILD_EXPRESSIONS checks, image data validation and the 256 KiB cap, GUILD_EMOJIS_UPDATE with
 * the whole list behind GUILD_EXPRESSIONS; application emojis (`{items}`, names unique); reactions with a guild's
 * own emoji; stickers (multipart upload) with GUILD_STICKERS_UPDATE.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  createApplicationEmoji,
  createGuildEmoji,
  deleteApplicationEmoji,
  deleteGuildEmoji,
  editApplicationEmoji,
  editGuildEmoji,
  getApplicationEmoji,
  getGuildEmoji,
  listApplicationEmojis,
  listGuildEmojis,
  createGuildSticker,
  deleteGuildSticker,
  editGuildSticker,
  getGuildSticker,
  getSticker,
  listGuildStickers,
} from '../../src/rest/index.js';
import { cleanup, connect, refusal, start } from './assets-helpers.js';
import { PNG_DATA_URI } from './openapi-session-assets.js';

const GUILDS = 1;
const GUILD_EXPRESSIONS = 1 << 3;

afterEach(cleanup);

describe('guild emojis', () => {
  it('create, list, get, modify and delete, each change a GUILD_EMOJIS_UPDATE with the whole list', async () => {
    const { sb, rest, g, roles } = await start();
    const gw = await connect(sb, GUILDS | GUILD_EXPRESSIONS);
    const created = await createGuildEmoji(rest, g, { name: 'gate', image: PNG_DATA_URI });
    expect(created).toMatchObject({ name: 'gate', roles: [], animated: false, managed: false, require_colons: true, available: true, user: { id: sb.applicationId } });
    const first = await gw.nextDispatch('GUILD_EMOJIS_UPDATE');
    expect(first.d).toEqual({ guild_id: g, emojis: [expect.objectContaining({ id: created.id, name: 'gate' })] });
    const gif = await createGuildEmoji(rest, g, { name: 'spin', image: 'data:image/gif;base64,R0lGODlhAQABAAAAACw=' });
    expect(gif.animated).toBe(true);
    const second = await gw.nextDispatch('GUILD_EMOJIS_UPDATE');
    expect((second.d as { emojis: unknown[] }).emojis).toHaveLength(2);

    expect((await listGuildEmojis(rest, g)).map((e) => e.name)).toEqual(['gate', 'spin']);
    const edited = await editGuildEmoji(rest, g, created.id!, { name: 'gate_2', roles: [roles[1]!] });
    expect(edited).toMatchObject({ id: created.id, name: 'gate_2', roles: [roles[1]] });
    expect(await getGuildEmoji(rest, g, created.id!)).toMatchObject({ name: 'gate_2' });
    const afterEdit = await gw.nextDispatch('GUILD_EMOJIS_UPDATE');
    expect((afterEdit.d as { emojis: Array<{ name: string }> }).emojis.map((e) => e.name)).toEqual(['gate_2', 'spin']);
    await deleteGuildEmoji(rest, g, created.id!);
    expect(((await gw.nextDispatch('GUILD_EMOJIS_UPDATE')).d as { emojis: Array<{ id: string }> }).emojis.map((e) => e.id)).toEqual([gif.id]);
    expect((await refusal(getGuildEmoji(rest, g, created.id!))).code).toBe(10014);
  });

  it('without CREATE_GUILD_EXPRESSIONS: 403 / 50013, nothing made, no event; the GUILDS intent alone gets none', async () => {
    const { sb, rest, g } = await start({ admin: false });
    const gw = await connect(sb, GUILDS);
    const e = await refusal(createGuildEmoji(rest, g, { name: 'gate', image: PNG_DATA_URI }));
    expect([e.status, e.code]).toEqual([403, 50013]);
    expect(await listGuildEmojis(rest, g)).toEqual([]);
    sb.state.updateMember(g, sb.applicationId, { roles: [sb.state.roleIds(g).at(-1)!, sb.state.roleIds(g).at(-2)!] });
    await createGuildEmoji(rest, g, { name: 'gate', image: PNG_DATA_URI });
    // A later dispatch the session does receive proves the emoji update was held back, not late.
    await rest.request({ method: 'POST', route: '/guilds/{guild_id}/roles', params: { guild_id: g }, body: { name: 'x' } });
    await gw.nextDispatch('GUILD_ROLE_CREATE');
    expect(gw.dispatches('GUILD_EMOJIS_UPDATE')).toEqual([]);
  });

  it('validates name (2-32 letters, digits, _) and image data (type, 256 KiB) with the 50035 tree', async () => {
    const { rest, g } = await start();
    const bad = await refusal(createGuildEmoji(rest, g, { name: 'a b', image: 'https://example.com/x.png' }));
    expect(bad.code).toBe(50035);
    expect(bad.fieldErrors.map((f) => [f.path, f.code])).toEqual([
      ['name', 'STRING_TYPE_REGEX'],
      ['image', 'IMAGE_INVALID'],
    ]);
    const short = await refusal(createGuildEmoji(rest, g, { name: 'a', image: PNG_DATA_URI }));
    expect(short.fieldErrors.map((f) => [f.path, f.code])).toEqual([['name', 'BASE_TYPE_BAD_LENGTH']]);
    const big = `data:image/png;base64,${Buffer.alloc(256 * 1024 + 1).toString('base64')}`;
    const tooBig = await refusal(createGuildEmoji(rest, g, { name: 'big', image: big }));
    expect(tooBig.fieldErrors.map((f) => [f.path, f.code])).toEqual([['image', 'BINARY_TYPE_MAX_SIZE']]);
    const justRight = `data:image/png;base64,${Buffer.alloc(256 * 1024).toString('base64')}`;
    expect((await createGuildEmoji(rest, g, { name: 'fits', image: justRight })).name).toBe('fits');
  });

  it('a guild holds 50 static emojis at boost tier 0: the 51st is 30008', async () => {
    const { rest, g } = await start({ fast: true });
    for (let i = 0; i < 50; i++) await createGuildEmoji(rest, g, { name: `e${i}`, image: PNG_DATA_URI });
    const e = await refusal(createGuildEmoji(rest, g, { name: 'one_more', image: PNG_DATA_URI }));
    expect([e.status, e.code]).toEqual([400, 30008]);
    // Animated ones have their own 50 slots.
    expect((await createGuildEmoji(rest, g, { name: 'spin', image: 'data:image/gif;base64,R0lGODlhAQABAAAAACw=' })).animated).toBe(true);
  }, 30_000);

  it('the uploader shows only to a bot that may create or manage expressions', async () => {
    const { sb, rest, g, botRole } = await start();
    const made = await createGuildEmoji(rest, g, { name: 'gate', image: PNG_DATA_URI });
    sb.state.updateMember(g, sb.applicationId, { roles: [botRole] });
    expect((await getGuildEmoji(rest, g, made.id!)).user).toBeUndefined();
    expect((await listGuildEmojis(rest, g))[0]!.user).toBeUndefined();
    const e = await refusal(editGuildEmoji(rest, g, made.id!, { name: 'nope' }));
    expect(e.code).toBe(50013);
  });

  it('the bot reacts with its guild emoji; an emoji of no guild it can use is 10014', async () => {
    const { sb, rest, g, channel } = await start();
    const gw = await connect(sb, GUILDS | (1 << 10));
    const emoji = await createGuildEmoji(rest, g, { name: 'gate', image: PNG_DATA_URI });
    const msg = (await rest.request({ method: 'POST', route: '/channels/{channel_id}/messages', params: { channel_id: channel }, body: { content: 'hi' } })) as { id: string };
    await rest.request({ method: 'PUT', route: '/channels/{channel_id}/messages/{message_id}/reactions/{emoji}/@me', params: { channel_id: channel, message_id: msg.id, emoji: `gate:${emoji.id}` } });
    const add = await gw.nextDispatch('MESSAGE_REACTION_ADD');
    expect(add.d).toMatchObject({ emoji: { id: emoji.id, name: 'gate' }, guild_id: g });
    const other = await refusal(rest.request({ method: 'PUT', route: '/channels/{channel_id}/messages/{message_id}/reactions/{emoji}/@me', params: { channel_id: channel, message_id: msg.id, emoji: 'x:100000000000000001' } }));
    expect([other.status, other.code]).toEqual([400, 10014]);
    sb.state.channels.react(channel, msg.id, sb.state.memberIds(g).find((id) => id !== sb.applicationId)!, `gate:${emoji.id}`);
    const fetched = (await rest.request({ method: 'GET', route: '/channels/{channel_id}/messages/{message_id}', params: { channel_id: channel, message_id: msg.id } })) as { reactions: Array<{ count: number }> };
    expect(fetched.reactions[0]!.count).toBe(2);
  });
});

describe('application emojis', () => {
  it('list as {items}, create, get, rename, delete; names unique within the application', async () => {
    const { sb, rest } = await start({ admin: false });
    const app = sb.applicationId;
    expect(await listApplicationEmojis(rest, app)).toEqual({ items: [] });
    const made = await createApplicationEmoji(rest, app, { name: 'app_gate', image: PNG_DATA_URI });
    expect(made).toMatchObject({ name: 'app_gate', user: { id: app } });
    const taken = await refusal(createApplicationEmoji(rest, app, { name: 'app_gate', image: PNG_DATA_URI }));
    expect(taken.fieldErrors.map((f) => [f.path, f.code])).toEqual([['name', 'APPLICATION_EMOJI_NAME_ALREADY_TAKEN']]);
    expect((await editApplicationEmoji(rest, app, made.id!, { name: 'app_gate_2' })).name).toBe('app_gate_2');
    expect((await getApplicationEmoji(rest, app, made.id!)).name).toBe('app_gate_2');
    expect((await listApplicationEmojis(rest, app)).items.map((e) => e.id)).toEqual([made.id]);
    await deleteApplicationEmoji(rest, app, made.id!);
    expect((await refusal(getApplicationEmoji(rest, app, made.id!))).code).toBe(10014);
    const other = await refusal(listApplicationEmojis(rest, '100000000000000001'));
    expect([other.status, other.code]).toEqual([403, 20012]);
  });
});

describe('stickers', () => {
  const png = (bytes = 64) => ({ name: 'wave.png', data: new Uint8Array(bytes), contentType: 'image/png' });

  it('upload (multipart), list, get, GET /stickers/{id}, modify, delete; GUILD_STICKERS_UPDATE each time', async () => {
    const { sb, rest, g } = await start();
    const gw = await connect(sb, GUILDS | GUILD_EXPRESSIONS);
    const made = await createGuildSticker(rest, g, { name: 'wave', tags: 'wave', description: 'Waves hello', file: png() });
    expect(made).toMatchObject({ name: 'wave', tags: 'wave', description: 'Waves hello', type: 2, format_type: 1, available: true, guild_id: g, user: { id: sb.applicationId } });
    expect((await gw.nextDispatch('GUILD_STICKERS_UPDATE')).d).toEqual({ guild_id: g, stickers: [expect.objectContaining({ id: made.id })] });
    expect((await listGuildStickers(rest, g)).map((s) => s.id)).toEqual([made.id]);
    expect((await getGuildSticker(rest, g, made.id)).name).toBe('wave');
    expect(await getSticker(rest, made.id)).toMatchObject({ id: made.id, guild_id: g });
    expect(await editGuildSticker(rest, g, made.id, { name: 'waving', description: null })).toMatchObject({ name: 'waving', description: null });
    expect(((await gw.nextDispatch('GUILD_STICKERS_UPDATE')).d as { stickers: Array<{ name: string }> }).stickers[0]!.name).toBe('waving');
    await deleteGuildSticker(rest, g, made.id);
    expect((await gw.nextDispatch('GUILD_STICKERS_UPDATE')).d).toEqual({ guild_id: g, stickers: [] });
    expect((await refusal(getSticker(rest, made.id))).code).toBe(10060);
  });

  it('validates fields and the file (512 KiB, PNG/APNG/GIF), needs the permission, holds 5 at tier 0', async () => {
    const { sb, rest, g, botRole, admin } = await start({ fast: true });
    const bad = await refusal(createGuildSticker(rest, g, { name: 'w', tags: '', description: 'x', file: png() }));
    expect(bad.fieldErrors.map((f) => [f.path, f.code])).toEqual([
      ['name', 'BASE_TYPE_BAD_LENGTH'],
      ['tags', 'BASE_TYPE_BAD_LENGTH'],
      ['description', 'BASE_TYPE_BAD_LENGTH'],
    ]);
    const big = await refusal(createGuildSticker(rest, g, { name: 'big', tags: 'big', file: png(512 * 1024 + 1) }));
    expect(big.fieldErrors.map((f) => [f.path, f.code])).toEqual([['file', 'BINARY_TYPE_MAX_SIZE']]);
    const jpeg = await refusal(createGuildSticker(rest, g, { name: 'photo', tags: 'photo', file: { name: 'a.jpg', data: new Uint8Array(8), contentType: 'image/jpeg' } }));
    expect([jpeg.status, jpeg.code]).toEqual([400, 50046]);
    sb.state.updateMember(g, sb.applicationId, { roles: [botRole] });
    expect((await refusal(createGuildSticker(rest, g, { name: 'wave', tags: 'wave', file: png() }))).code).toBe(50013);
    sb.state.updateMember(g, sb.applicationId, { roles: [botRole, admin] });
    for (let i = 0; i < 5; i++) await createGuildSticker(rest, g, { name: `s${i}x`, tags: 'x', file: png() });
    const full = await refusal(createGuildSticker(rest, g, { name: 'sixth', tags: 'x', file: png() }));
    expect([full.status, full.code]).toEqual([400, 30039]);
  });
});
