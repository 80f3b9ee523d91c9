import { EventEmitter } from 'node:events';
import { Logger, parseCrontab, run, type Runner, type WorkerEvents } from 'graphile-worker';
import type { Deps } from '../deps.js';
import { LivenessLocks, unlockDeadWorkers } from './liveness.js';
import { sendEmailJob } from '../emails/emails.jobs.js';
import { buildTaskList, crontabLines, taskListOf } from './tasks.js';
import { WebhookDispatcher } from '../webhook-endpoints/dispatch/dispatcher.js';
import { useErasureSecret } from '../suppressions/erased.js';

/** How often each worker process looks for jobs left locked by dead workers, in milliseconds. */
const SWEEP_INTERVAL_MS = 5_000;

/**
 * Job slots of a worker process kept for single-mail `emails:send` jobs (transactional mail, and
 * retries), beside its `concurrency` slots for every job, so a mail someone waits for starts at once
 * even while every general slot runs a campaign batch for seconds. Priority alone only orders the
 * queue; it cannot free a slot. None when `concurrency` is 1: one job at a time means one.
 */
export const EXPRESS_SLOTS = 2;

/**
 * Graphile Worker's batching of its completions, for the general runner: the completions (or
 * failures) of jobs that end in the same tick are written in one statement. The trade-off is
 * Graphile's: a completion is written a tick after the job ended, so a kill in that tick runs the job
 * again, which every job here already survives (deliveries are claimed with a token, steps recorded
 * once). Graphile's local queue (fetching several jobs per query) is left off on purpose: it locks
 * the jobs it prefetches, so a transactional mail could sit locked in the queue of a runner whose
 * slots are all busy instead of going to an express slot.
 */
const BATCHED_JOB_IO = {
  completeJobBatchDelay: 0,
  failJobBatchDelay: 0,
};

/** A running worker process part: stop it to finish running jobs and release its locks. */
export interface WorkerHandle {
  /** The runner of every task and the crontab. */
  runner: Runner;
  /** The runner of the express slots ({@link EXPRESS_SLOTS}), when there is one. */
  express?: Runner;
  /** The event webhook dispatcher (its deliveries take no job slot). */
  webhooks: WebhookDispatcher;
  /** Settles when any of the runners ends (stopped or crashed). */
  ended: Promise<void>;
  /** Stops every runner and the webhook dispatcher, then releases the liveness lock; a second call waits for the first. */
  stop(): Promise<void>;
}

/**
 * Starts Graphile Worker over the shared pool with every feature's tasks and the crontab, and the
 * event webhook dispatcher (webhook-endpoints/dispatch).
 * `concurrency` is the number of jobs run at once in this process. The pool's id (what Graphile
 * locks jobs with) is announced through a liveness lock, and every process sweeps for jobs of dead
 * workers, so a worker killed mid-job is taken over within seconds instead of Graphile's 4-hour lock
 * timeout.
 */
export async function startWorker(deps: Deps, concurrency = 10): Promise<WorkerHandle> {
  // The suppression check matches erased addresses by their keyed hash (suppressions/erased.ts).
  useErasureSecret(deps.secret);
  const log = deps.log.child({ component: 'worker' });
  const liveness = new LivenessLocks(deps.pool, (err) => {
    log.error({ err }, 'liveness connection lost: holding back new jobs until the locks are taken back');
  });
  const events: WorkerEvents = new EventEmitter() as WorkerEvents;
  // Graphile Worker 0.17 locks jobs (`locked_by`) with the id of the worker pool, not of each of its
  // workers: that is the id whose liveness the sweep of every process checks.
  events.on('pool:create', ({ workerPool }) => {
    liveness.hold(workerPool.id).catch((err) => log.error({ err }, 'liveness lock failed'));
  });
  const sweep = async () => {
    try {
      const dead = await unlockDeadWorkers(deps.pool);
      if (dead.length) log.warn({ workers: dead }, 'unlocked the jobs of dead workers');
    } catch (err) {
      log.error({ err }, 'dead-worker sweep failed');
    }
  };
  const common = {
    pgPool: deps.pool,
    noHandleSignals: true,
    pollInterval: 1000,
    events,
    logger: new Logger((scope) => (level, message, meta) => {
      const fn = level === 'error' ? 'error' : level === 'warning' ? 'warn' : 'debug';
      log[fn]({ ...scope, ...meta }, message);
    }),
  };
  const runner = await run({
    ...common,
    concurrency,
    preset: { worker: BATCHED_JOB_IO },
    taskList: buildTaskList(deps, () => liveness.whenHeld()),
    parsedCronItems: parseCrontab(crontabLines.join('\n')),
  });
  // Graphile only hands a runner the jobs of the tasks it knows: this one waits for single mails.
  const express =
    concurrency > 1
      ? await run({
          ...common,
          concurrency: EXPRESS_SLOTS,
          taskList: taskListOf([sendEmailJob], deps, () => liveness.whenHeld()),
        })
      : undefined;
  const webhooks = new WebhookDispatcher(deps);
  await webhooks.start();
  await sweep();
  const timer = setInterval(() => void sweep(), SWEEP_INTERVAL_MS);
  timer.unref();
  const runners = express ? [runner, express] : [runner];
  // Stopping twice (a signal during shutdown, a test that stops a worker its harness stops again)
  // waits for the first stop instead of failing in Graphile's "Runner is already stopped".
  let stopped: Promise<void> | undefined;
  return {
    runner,
    express,
    webhooks,
    ended: Promise.race(
      runners.map((r) =>
        r.promise.then(
          () => undefined,
          () => undefined,
        ),
      ),
    ),
    stop() {
      stopped ??= (async () => {
        clearInterval(timer);
        await Promise.all([...runners.map((r) => r.stop()), webhooks.stop()]);
        await liveness.release();
      })();
      return stopped;
    },
  };
}
