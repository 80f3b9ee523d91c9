import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// What every project runs with. Projects do not take the root's test options (no `extends`): the
// global setup stays the root's alone, so that it runs once per run whatever the projects run.
const each = {
  pool: 'forks',
  testTimeout: 30_000,
  hookTimeout: 60_000,
} as const;

export default defineConfig({
  test: {
    // Once per run, for every project: the PostgreSQL server and the migrated template (the values it
    // provides reach each project's tests).
    globalSetup: ['test/global-setup.ts'],
    // Test files mostly wait on PostgreSQL, SMTP, Chromium and child processes, not on their own CPU:
    // on two cores vitest's default (cores - 1) would run them one at a time, the machine idle while
    // each waits. More cores keep the default. One limit for the whole run: the projects share it.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    teardownTimeout: 30_000,
    reporters: ['default'],
    // `vitest run` runs both; `--project server` or `--project browser` one (npm run test:server,
    // npm run test:browser).
    projects: [
      {
        // The service (src, test) and the dashboard's pure unit tests (web/src).
        test: {
          name: 'server',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'web/src/**/*.test.ts'],
          ...each,
          // Test files share their worker's module cache instead of importing the whole app again each
          // (that import was a third of a run's time). It is safe because no test mocks a module or
          // stubs a global, and each test makes its own harness, database and project: keep it so.
          isolate: false,
        },
      },
      {
        // web/test: the dashboard's browser tests (real server + Chromium) and API type drift check.
        test: { name: 'browser', include: ['web/test/**/*.test.ts'], ...each },
      },
    ],
  },
});
