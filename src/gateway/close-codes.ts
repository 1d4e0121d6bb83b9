/**
 * What a shard does after the gateway closes its connection, per close code (protocol §7.8).
 *
 * Discord's table says which codes allow reconnecting; whether to resume or start a new session is the
 * conventional reading: codes whose text says the session is gone (4003, 4007, 4009) identify anew, the
 * other reconnectable ones resume (and an op 9 answers a resume that cannot work). Codes not in the table
 * (1000/1001 sent by the server, 1006 for a dropped TCP connection, anything new) resume: it is always safe.
 */

import { GatewayCloseCodes } from 'discord-api-types/v10';

export type CloseAction = 'resume' | 'identify' | 'fatal';

export interface ClosePolicy {
  readonly action: CloseAction;
  readonly name: string;
  /** For fatal codes: the likely cause and the fix, shown in the shard's error. */
  readonly hint: string;
}

export const GATEWAY_CLOSE_POLICIES: Readonly<Record<number, ClosePolicy>> = Object.freeze({
  [GatewayCloseCodes.UnknownError]: { action: 'resume', name: 'Unknown error', hint: '' },
  [GatewayCloseCodes.UnknownOpcode]: { action: 'resume', name: 'Unknown opcode', hint: '' },
  [GatewayCloseCodes.DecodeError]: { action: 'resume', name: 'Decode error', hint: '' },
  [GatewayCloseCodes.NotAuthenticated]: { action: 'identify', name: 'Not authenticated', hint: '' },
  [GatewayCloseCodes.AuthenticationFailed]: {
    action: 'fatal',
    name: 'Authentication failed',
    hint: 'The bot token is invalid or was reset; set a valid DISCORD_TOKEN.',
  },
  [GatewayCloseCodes.AlreadyAuthenticated]: { action: 'resume', name: 'Already authenticated', hint: '' },
  [GatewayCloseCodes.InvalidSeq]: { action: 'identify', name: 'Invalid seq', hint: '' },
  [GatewayCloseCodes.RateLimited]: { action: 'resume', name: 'Rate limited', hint: '' },
  [GatewayCloseCodes.SessionTimedOut]: { action: 'identify', name: 'Session timed out', hint: '' },
  [GatewayCloseCodes.InvalidShard]: {
    action: 'fatal',
    name: 'Invalid shard',
    hint: 'The shard id or shard count sent in Identify is invalid (id must be below the total; large bots must use a multiple of their assigned shard count).',
  },
  [GatewayCloseCodes.ShardingRequired]: {
    action: 'fatal',
    name: 'Sharding required',
    hint: 'The session would hold too many guilds; start more shards (use the count GET /gateway/bot recommends).',
  },
  [GatewayCloseCodes.InvalidAPIVersion]: {
    action: 'fatal',
    name: 'Invalid API version',
    hint: 'The gateway rejected the API version in the connection URL.',
  },
  [GatewayCloseCodes.InvalidIntents]: {
    action: 'fatal',
    name: 'Invalid intent(s)',
    hint: 'The intents bitmask contains undefined bits; check the configured intents.',
  },
  [GatewayCloseCodes.DisallowedIntents]: {
    action: 'fatal',
    name: 'Disallowed intent(s)',
    hint: 'A privileged intent (GUILD_MEMBERS, GUILD_PRESENCES or MESSAGE_CONTENT) is requested but not enabled for the application in the developer portal.',
  },
} satisfies Record<number, ClosePolicy>);

const DEFAULT_POLICY: ClosePolicy = Object.freeze({ action: 'resume', name: 'Connection closed', hint: '' });

export function closePolicy(code: number): ClosePolicy {
  return GATEWAY_CLOSE_POLICIES[code] ?? DEFAULT_POLICY;
}

export function isFatalCloseCode(code: number): boolean {
  return closePolicy(code).action === 'fatal';
}

/** The codes after which a shard never reconnects. */
export const FATAL_CLOSE_CODES: readonly number[] = Object.freeze(
  Object.entries(GATEWAY_CLOSE_POLICIES)
    .filter(([, p]) => p.action === 'fatal')
    .map(([code]) => Number(code)),
);

/**
 * Codes the client itself closes with. Anything but 1000/1001 keeps the session resumable on the service's
 * side (protocol §7.7); 4000-4999 are free for applications. Distinct codes make logs say why.
 */
export const CLIENT_CLOSE = Object.freeze({
  /** Closing for good: the session ends (the bot goes offline). */
  normal: 1000,
  /** Zombie connection: no heartbeat ACK between two heartbeats. */
  zombie: 4900,
  /** Op 7 RECONNECT or op 9 with d = true. */
  reconnect: 4901,
  /** A frame did not inflate or parse. */
  decodeError: 4902,
  /** Shutdown that keeps the session resumable by a later process. */
  resumableShutdown: 4903,
  /** No HELLO in time after the socket opened. */
  helloTimeout: 4904,
});
