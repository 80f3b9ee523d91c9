import { Logger, parseCrontab, run, type Runner } from 'graphile-worker';
import type { Deps } from '../deps.js';
import { buildTaskList, crontabLines } from './tasks.js';

/**
 * Starts Graphile Worker over the shared pool with every feature's tasks and the crontab
 * (DESIGN.md: jobs). `concurrency` is the number of jobs run at once in this process.
 */
export async function startWorker(deps: Deps, concurrency = 10): Promise<Runner> {
  const log = deps.log.child({ component: 'worker' });
  return run({
    pgPool: deps.pool,
    concurrency,
    noHandleSignals: true,
    pollInterval: 1000,
    taskList: buildTaskList(deps),
    parsedCronItems: parseCrontab(crontabLines.join('\n')),
    logger: new Logger((scope) => (level, message, meta) => {
      const fn = level === 'error' ? 'error' : level === 'warning' ? 'warn' : 'debug';
      log[fn]({ ...scope, ...meta }, message);
    }),
  });
}
