import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // Plugins import 'gatehouse' by name; in development and tests that resolves to the sources.
    conditions: ['gatehouse-source'],
  },
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
