import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Plugins import 'gatehouse' by name; in development and tests that resolves to the sources, never to a
  // (possibly stale) build in dist/. Tests run in Vite's server-side mode, which has its own conditions.
  resolve: { conditions: ['gatehouse-source'] },
  ssr: { resolve: { conditions: ['gatehouse-source'], externalConditions: ['gatehouse-source'] } },
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    // Integration suites open real sockets on loopback; keep them within the 2-core budget.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 20_000,
    hookTimeout: 30_000,
    teardownTimeout: 10_000,
  },
});
