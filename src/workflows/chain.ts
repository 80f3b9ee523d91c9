import { sql } from 'drizzle-orm';
import type { Deps } from '../deps.js';
import { removeJob } from '../worker/graphile.js';
import { advance, moveOn, queueStep, waitKey } from './engine.js';
import { lockAt, type Loaded } from './loaded.js';
import { runStepHandler, type ResumeOutcome, type StepCtx } from './steps.run.js';
import { flushJobs, type PendingJobs, type SharedWrites } from './pending-writes.js';
import type { Tx } from '../db/tx.js';

/**
 * Running steps (engine.ts says how an execution moves): steps that follow one another without a
 * wait run in one transaction, up to {@link INLINE_STEPS} of them; when that transaction fails, the
 * first step runs alone with its successor's job queued ({@link chainedOrAlone}), so a failing step
 * gets its job's retries.
 */

/**
 * Most steps one transaction runs in a row: a loop of steps without a DELAY or WAIT_FOR_EVENT must
 * not hold one transaction (and its locks) for ever; past it the next step goes to a job.
 */
export const INLINE_STEPS = 10;

/** The step {@link stepIn} runs, and where what it leaves goes. */
interface StepInOptions {
  /** The execution whose step runs; `tx` locks it (or holds the lock already, see `loaded`). */
  executionId: string;
  /** The step to run; nothing runs unless the execution stands RUNNING at it. */
  stepId: string;
  /** Queue the next step's `workflows:step` job; false when the caller runs it in this transaction. */
  queueNext: boolean;
  /** The chain's pending jobs ({@link PendingJobs}): the step's own join them. */
  jobs: PendingJobs;
  /**
   * The execution row and step already locked in `tx` (by the start or the advance that led here),
   * which saves reading them again; absent, they are read and locked.
   */
  loaded?: Loaded;
  /** Set when the step runs in a transaction of many starts ({@link SharedWrites}). */
  group?: SharedWrites;
}

/**
 * Runs the step `stepId` of an execution standing RUNNING at it, in `tx`, at most once: records it
 * and moves the execution on (the next step's job queued only when `queueNext`). The step's jobs join
 * `jobs`, added by the statement that ends the chain (see {@link PendingJobs}).
 * @returns the execution and step it now stands RUNNING at (its job not queued when `queueNext` is
 *   false), null when it waits, ended or was not at that step, or `'webhook'` for a WEBHOOK step,
 *   which is left to {@link runWebhookStep} and its own transactions.
 * @throws Error when the step was already recorded (a second run: the transaction must roll back).
 */
async function stepIn(deps: Deps, tx: Tx, opts: StepInOptions): Promise<Loaded | null | 'webhook'> {
  const { executionId, stepId, queueNext, jobs, loaded, group } = opts;
  const at = loaded ?? (await lockAt(tx, executionId, stepId, 'RUNNING'));
  if (!at) return null;
  if (at.step.type === 'WEBHOOK') return 'webhook';
  const now = deps.clock.now();
  const ctx: StepCtx = { deps, tx, exec: at.exec, step: at.step, now, mails: group?.mails, prefetch: group?.prefetch };
  const result = await runStepHandler(ctx);
  // The locked execution row standing RUNNING at this step already makes a second run a no-op;
  // the unique (execution, step) row, written in the statement that moves the execution on, is the
  // second guard: a conflict rolls the step back.
  jobs.push(...(result.jobs ?? []));
  const moved = await moveOn(tx, { ctx, result, queueNext, jobs, group });
  if (!moved.claimed) throw new Error(`Step ${stepId} of execution ${executionId} already ran`);
  return moved.next;
}

/** Where {@link runChain} starts, and where what its steps leave goes. */
export interface RunChainOptions {
  /** The execution standing RUNNING at its step, as {@link lockAt} reads it; `tx` holds its lock. */
  at: Loaded;
  /** Jobs the transaction has pending already ({@link PendingJobs}); the chain's last statement adds them. Default: none. */
  jobs?: PendingJobs;
  /** Set when the chain runs in a transaction of many starts ({@link SharedWrites}), which then writes its waits and jobs. */
  group?: SharedWrites;
}

/**
 * Runs the steps of an execution standing RUNNING at `at` (locked in `tx`), one after another until it
 * waits or ends, at most {@link INLINE_STEPS} of them; a WEBHOOK step, or the step past the budget,
 * gets its `workflows:step` job instead.
 * @throws what a step throws: the caller rolls `tx` back.
 */
export async function runChain(deps: Deps, tx: Tx, opts: RunChainOptions): Promise<void> {
  const { at, jobs = [], group } = opts;
  let cur = at;
  for (let i = 0; i < INLINE_STEPS; i++) {
    const next = await stepIn(deps, tx, {
      executionId: cur.exec.id,
      stepId: cur.step.id,
      queueNext: false,
      jobs,
      loaded: cur,
      group,
    });
    if (next === null) return flushJobs(tx, jobs);
    if (next === 'webhook') break;
    cur = next;
  }
  await queueStep(tx, cur.exec.id, cur.step.id, jobs);
}

/**
 * Runs `chained` (a transaction that runs steps inline); when it throws, logs why and runs `alone`,
 * the same work with only its first step and the next step's job queued, so a failing step is
 * retried and failed by its own job. What `alone` throws is the caller's (its job retries).
 */
export async function chainedOrAlone<T>(
  deps: Deps,
  what: Record<string, unknown>,
  chained: () => Promise<T>,
  alone: () => Promise<T>,
): Promise<T> {
  try {
    return await chained();
  } catch (err) {
    deps.log.warn(
      { ...what, err },
      'workflow steps run in one transaction failed: rolled back, the first step is run alone and the rest by jobs',
    );
    return alone();
  }
}

/**
 * One step of one execution, at most once, and the steps that follow it without a wait, in one
 * transaction; when that fails, the step alone with its successor's job queued ({@link chainedOrAlone}).
 * @returns true when the step is a WEBHOOK step taken for its call, which the caller makes outside
 * any transaction (step-job.ts, webhook.step.ts).
 */
export async function runStepTransactions(deps: Deps, executionId: string, stepId: string): Promise<boolean> {
  const step = (queueNext: boolean) =>
    deps.db.transaction(async (tx) => {
      const jobs: PendingJobs = [];
      const next = await stepIn(deps, tx, { executionId, stepId, queueNext, jobs });
      if (!queueNext && next && next !== 'webhook') await runChain(deps, tx, { at: next, jobs });
      else await flushJobs(tx, jobs);
      return next === 'webhook';
    });
  return chainedOrAlone(
    deps,
    { executionId, stepId },
    () => step(false),
    () => step(true),
  );
}

/** The wait {@link resume} ends, and why. */
export interface ResumeOptions {
  /** The waiting execution; the call locks it in a transaction of its own. */
  executionId: string;
  /** The DELAY or WAIT_FOR_EVENT step the execution stands WAITING at; another step resumes nothing. */
  stepId: string;
  /** DELAY: the delay ran out; EVENT: the awaited event came; TIMEOUT: the wait ran out first. */
  outcome: ResumeOutcome;
  /** Merged into the step's output beside `outcome` (the resuming event's `eventId`). Default: nothing. */
  extra?: Record<string, unknown>;
  /**
   * Causation depth of the resuming event (causation.ts); the execution deepens to it, since what it
   * does next was caused by that event. Default 0 (a delay or a timeout deepens nothing).
   */
  eventDepth?: number;
}

/**
 * The `workflows:resume` job, and the EVENT resumption of a wait: completes the WAITING step
 * (conditional update: the first of event and timeout wins) and moves on along its outcome, running
 * the steps that follow without a wait in the same transaction (or, when that fails, only queueing
 * the next step's job).
 * @returns true when this call resumed the execution, false when it was not WAITING at `stepId`
 *   (another resumption won, or it was cancelled).
 * @throws what the transaction throws (the job retries).
 */
export async function resume(deps: Deps, opts: ResumeOptions): Promise<boolean> {
  const { executionId, stepId, outcome, extra = {}, eventDepth = 0 } = opts;
  const once = (chain: boolean) =>
    deps.db.transaction(async (tx) => {
      const at = await lockAt(tx, executionId, stepId, 'WAITING');
      if (!at) return false;
      const now = deps.clock.now();
      const r =
        await tx.execute(sql`update workflow_step_executions set status = 'COMPLETED', completed_at = ${now.toISOString()}::timestamptz,
        output = coalesce(output, '{}'::jsonb) || ${JSON.stringify({ outcome, ...extra })}::jsonb
      where execution_id = ${executionId} and step_id = ${stepId} and status = 'WAITING' returning id`);
      if (!r.rows.length) return false;
      if (outcome === 'EVENT') {
        await removeJob(tx, waitKey(executionId));
        await tx.execute(
          sql`update workflow_executions set causation_depth = greatest(causation_depth, ${eventDepth}) where id = ${executionId}`,
        );
      }
      const match =
        at.step.type === 'WAIT_FOR_EVENT'
          ? { waitOutcome: outcome === 'EVENT' ? ('EVENT' as const) : ('TIMEOUT' as const) }
          : {};
      const { next } = await advance(tx, { executionId, fromStepId: stepId, match, now, queue: !chain });
      if (chain && next) await runChain(deps, tx, { at: next });
      return true;
    });
  return chainedOrAlone(
    deps,
    { executionId, stepId, outcome },
    () => once(true),
    () => once(false),
  );
}
