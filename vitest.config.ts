import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // web/test: the dashboard's browser tests (real server + Chromium) and API type drift check;
    // web/src: its pure unit tests.
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'web/test/**/*.test.ts', 'web/src/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    // Test files mostly wait on PostgreSQL, SMTP, Chromium and child processes, not on their own CPU:
    // on two cores vitest's default (cores - 1) ran them one at a time. Two at once: 294 s against the
    // server and 304 s embedded, from about 480 s one at a time. More cores keep the default.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 30_000,
    hookTimeout: 60_000,
    teardownTimeout: 30_000,
    reporters: ['default'],
  },
});
