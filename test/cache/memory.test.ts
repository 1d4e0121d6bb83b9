import { MemoryCache, type Cache } from '../../src/cache/index.js';
import { channelConformance } from './channels-conformance.js';
import { cacheConformance, type CacheBackendFactory } from './conformance.js';

const made: Cache[] = [];

const factory: CacheBackendFactory = {
  persistent: false,
  async create(options) {
    const cache = new MemoryCache(options);
    made.push(cache);
    return cache;
  },
  async restart(cache, options) {
    const next = new MemoryCache({ ...cache.options, ...options });
    made.push(next);
    return next;
  },
  async cleanup() {
    for (const cache of made.splice(0)) await cache.close();
  },
};

cacheConformance('memory', factory);
channelConformance('memory', factory);
