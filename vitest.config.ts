import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// What every project runs with. Projects do not take the root's test options (no `extends`): the
// global setup stays the root's alone, so that it runs once per run whatever the projects run.
const each = {
  pool: 'forks',
  testTimeout: 30_000,
  hookTimeout: 60_000,
  // expect.poll waits for a positive signal (a row, a mail, a field's text); vitest's 1 s default is
  // shorter than one answer of a loaded machine, where a right result then reads as a failure.
  expect: { poll: { timeout: 10_000 } },
} as const;

export default defineConfig({
  test: {
    // Once per run, for every project: the PostgreSQL server and the migrated template (the values it
    // provides reach each project's tests).
    globalSetup: ['test/global-setup.ts'],
    // Test files wait on PostgreSQL, SMTP, Chromium and child processes as much as on their own CPU:
    // with one file per core the machine sits idle a quarter of the time, so one file more than the
    // cores runs at once (vitest's default, cores - 1, would run one at a time on two cores). One limit
    // for the whole run: the projects share it (docs/architecture.md "Checks" has the measurements).
    maxWorkers: availableParallelism() + 1,
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
        // web/test: the dashboard's browser tests (real server + Chromium) and API type drift check. Each
        // file imports the app afresh: sharing the module cache, as the service's tests do, made the
        // owner journey's sign-up time out in two full runs (cause not found yet).
        test: { name: 'browser', include: ['web/test/**/*.test.ts'], ...each },
      },
    ],
  },
});
