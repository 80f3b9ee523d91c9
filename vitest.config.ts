import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // web/test: the dashboard's browser tests (real server + Chromium) and API type drift check;
    // web/src: its pure unit tests.
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'web/test/**/*.test.ts', 'web/src/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    teardownTimeout: 30_000,
    reporters: ['default'],
  },
});
