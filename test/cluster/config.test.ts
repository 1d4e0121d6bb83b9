/** The `cluster` configuration section: defaults, environment variables, and messages that name the key. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, type ConfigInput } from '../../src/runtime/config.js';

const emptyDir = mkdtempSync(join(tmpdir(), 'gatehouse-cluster-config-'));

function load(env: Record<string, string>, overrides?: ConfigInput) {
  return loadConfig({ cwd: emptyDir, dir: emptyDir, env, ...(overrides ? { overrides } : {}) });
}

describe('cluster configuration', () => {
  it('has defaults suited to production: 15 s leases, 60 s session expiry, 1 s checkpoints', () => {
    const config = load({});
    expect(config.cluster).toEqual({
      enabled: true,
      prefix: 'gh:cluster',
      leaseMs: 15_000,
      maxShardsPerProcess: 0,
      settleMs: 1_000,
      sessionTtlMs: 60_000,
      checkpointMs: 1_000,
      sharedLimits: true,
    });
  });

  it('reads every setting from GATEHOUSE_CLUSTER_* variables', () => {
    const config = load({
      GATEHOUSE_CLUSTER: 'false',
      GATEHOUSE_CLUSTER_PREFIX: 'mybot:cluster',
      GATEHOUSE_CLUSTER_LEASE_MS: '9000',
      GATEHOUSE_CLUSTER_RENEW_MS: '3000',
      GATEHOUSE_CLUSTER_MAX_SHARDS: '8',
      GATEHOUSE_CLUSTER_SETTLE_MS: '0',
      GATEHOUSE_CLUSTER_SESSION_TTL_MS: '30000',
      GATEHOUSE_CLUSTER_CHECKPOINT_MS: '500',
      GATEHOUSE_CLUSTER_SHARED_LIMITS: 'false',
    });
    expect(config.cluster).toEqual({
      enabled: false,
      prefix: 'mybot:cluster',
      leaseMs: 9_000,
      renewMs: 3_000,
      maxShardsPerProcess: 8,
      settleMs: 0,
      sessionTtlMs: 30_000,
      checkpointMs: 500,
      sharedLimits: false,
    });
  });

  it('refuses a renewal interval above half the lease, naming the key and where it came from', () => {
    const error = (() => {
      try {
        load({ GATEHOUSE_CLUSTER_LEASE_MS: '4000', GATEHOUSE_CLUSTER_RENEW_MS: '2500' });
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      expect.stringMatching(/^cluster\.renewMs \(from environment variable GATEHOUSE_CLUSTER_RENEW_MS\): must be at most half of cluster\.leaseMs \(4000\)/),
    ]);
  });

  it('refuses too short leases and session expiries, and unknown keys', () => {
    expect(() => load({ GATEHOUSE_CLUSTER_LEASE_MS: '100' })).toThrow(/cluster\.leaseMs/);
    expect(() => load({}, { cluster: { sessionTtlMs: 10 } })).toThrow(/cluster\.sessionTtlMs/);
    expect(() => load({}, { cluster: { leaseTime: 5 } } as never)).toThrow(/cluster\.leaseTime.*unknown key/);
  });
});
