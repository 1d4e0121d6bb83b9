import { MemoryCache, type Cache } from '../../src/cache/index.js';
import { cacheConformance } from './conformance.js';

const made: Cache[] = [];

cacheConformance('memory', {
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
});
