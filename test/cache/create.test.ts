import { describe, expect, it } from 'vitest';
import { createCache, MemoryCache } from '../../src/cache/index.js';
import { loadConfig } from '../../src/runtime/config.js';

describe('createCache from the configuration', () => {
  it('takes the `cache` section as it is and defaults to the memory backend', async () => {
    const config = loadConfig({ env: {} });
    const cache = createCache(config.cache);
    expect(cache).toBeInstanceOf(MemoryCache);
    expect(cache.options).toEqual({ guilds: true, members: true, users: true, roles: true, entitlements: true, channels: true, voiceStates: false, maxMembersPerGuild: 0 });
    await cache.close();
  });

  it('passes the resource switches and the cap through', () => {
    const config = loadConfig({ env: {}, overrides: { cache: { roles: false, maxMembersPerGuild: 500 } } });
    const cache = createCache(config.cache);
    expect(cache.options).toMatchObject({ roles: false, maxMembersPerGuild: 500 });
  });
});
