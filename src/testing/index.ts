/**
 * `gatehouse/testing`: a test kit for plugin authors (and for any bot's tests).
 *
 * ```ts
 * import { afterEach, expect, it } from 'vitest';
 * import { testKit } from 'gatehouse/testing';
 * import dice from '../plugins/dice.js';
 *
 * const kit = testKit(afterEach);
 *
 * it('rolls', async () => {
 *   const bot = await kit.startBot({ plugins: [dice] });           // the real runtime on a sandbox of its own
 *   const reply = await bot.invoke('dice roll', { options: { sides: 6 } });
 *   expect(reply.content).toMatch(/^You rolled [1-6]/);
 *   expect(reply.ephemeral).toBe(false);
 * });
 * ```
 *
 * `startSandbox()` starts the sandbox alone, for another client (an unmodified discord.js Client logs in with
 * `token` and `rest: { api: sandbox.apiBase }`). Nothing here depends on a test framework.
 */
export { startBot, TestBot, BotStartError, type StartBotOptions, type LogLine } from './test-bot.js';
export {
  startSandbox,
  TestSandbox,
  DEFAULT_TIMEOUT_MS,
  type StartSandboxOptions,
  type InvokeInput,
  type OptionInput,
  type MemberInput,
  type EntitlementInput,
  type TestEntitlement,
  type PermissionsInput,
  type RateLimitInput,
  type ForcedRateLimit,
  type ReconnectInput,
  type MessageQuery,
} from './test-sandbox.js';
export { testKit, type TestKit, type CleanupHook } from './kit.js';
export { Reply, type Callback, type ActOptions, type WaitTime } from './reply.js';
export { commandPermission, type TestGuild, type TestMember, type TestRole, type TestUser, type UserRef, type GuildRef, type MessageRef } from './people.js';
export { KitTimeoutError } from './wait.js';
export { TestClock } from './clock.js';
export type { PluginInput } from './plugins.js';
export type { Sandbox, SandboxOptions, SandboxMessageRecord, InteractionRecord } from '../sandbox/contract.js';
export type { BucketName } from '../sandbox/index.js';
