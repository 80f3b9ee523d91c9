import { sql } from 'drizzle-orm';
import { AppError } from '../http/errors.js';
import { compileCondition } from '../segments/compile.js';
import { SWITCH_DEFAULT_BRANCH } from './graph.rules.js';
import { pickSplitBranch, splitBucket } from './split-pick.js';
import { conditionTree, localConditionField, type ConditionConfig, type StepConfigOf } from './steps.config.js';
import type { ExecutionRow, StepRow } from './workflows.repo.js';
import type { Tx } from '../db/tx.js';

/** What a branching step reads: the engine's transaction, the execution and step, and the time it runs at. */
export interface BranchCtx {
  tx: Tx;
  exec: ExecutionRow;
  step: StepRow;
  now: Date;
}

/** The outlet a branching step takes and the output recorded with it, or why it fails. */
export type Choice = { branch: string; output: Record<string, unknown> } | { error: string };

/**
 * The steps that choose an edge: CONDITION (yes | no), SWITCH (the first branch whose condition
 * holds, else `default`) and SPLIT (a weighted, reproducible pick). The chosen outlet goes to the
 * engine as `match.branch` (steps.run.ts; engine.ts `advance` follows the edge labelled with it) and
 * is recorded in the step's output: CONDITION `{result}`, SWITCH and SPLIT `{branch}`.
 */

/**
 * Whether one condition holds for the execution: the segment compiler's predicate for the one-filter
 * tree (steps.config.ts `conditionTree`), tested on this one contact in SQL; `event.data.x` and
 * `context.x` are tested with the same compiled semantics against the trigger data / context (as if
 * they were `data.x`). The one evaluation rule of CONDITION steps and SWITCH branches.
 * @returns the outcome, or `{error}` when the condition no longer compiles (e.g. a segment it names was deleted).
 */
export async function evaluateCondition(ctx: BranchCtx, c: ConditionConfig): Promise<boolean | { error: string }> {
  const { tx, exec } = ctx;
  const local = localConditionField(c.field);
  let predicate;
  try {
    predicate = await compileCondition(conditionTree(c, local?.dataField), {
      db: tx,
      projectId: exec.projectId,
      now: ctx.now,
    });
  } catch (err) {
    if (err instanceof AppError) return { error: `The condition no longer compiles: ${err.message}` };
    throw err;
  }
  const r = local
    ? await tx.execute<{ ok: boolean }>(
        sql`select exists (select 1 from (select ${JSON.stringify(local.source === 'event' ? exec.triggerData : exec.context)}::jsonb as data) c where ${predicate}) as ok`,
      )
    : await tx.execute<{ ok: boolean }>(
        sql`select exists (select 1 from contacts c where c.project_id = ${exec.projectId} and c.id = ${exec.contactId} and ${predicate}) as ok`,
      );
  return r.rows[0].ok;
}

/** CONDITION: the `yes` edge when its condition holds, else `no`; output `{result}`. */
export async function conditionStep(ctx: BranchCtx, c: StepConfigOf<'CONDITION'>): Promise<Choice> {
  const ok = await evaluateCondition(ctx, c);
  if (typeof ok !== 'boolean') return ok;
  return { branch: ok ? 'yes' : 'no', output: { result: ok } };
}

/**
 * SWITCH: the branches' conditions in order, the first that holds wins (the later ones are not
 * evaluated); none: the `default` edge. Output `{branch}`, and `{branch, label}` when the branch has one.
 * A branch whose condition no longer compiles fails the step rather than falling through.
 */
export async function switchStep(ctx: BranchCtx, c: StepConfigOf<'SWITCH'>): Promise<Choice> {
  for (const b of c.branches) {
    const ok = await evaluateCondition(ctx, b);
    if (typeof ok !== 'boolean') return { error: `Branch ${b.key}: ${ok.error}` };
    if (ok) return { branch: b.key, output: { branch: b.key, ...(b.label ? { label: b.label } : {}) } };
  }
  return { branch: SWITCH_DEFAULT_BRANCH, output: { branch: SWITCH_DEFAULT_BRANCH } };
}

/**
 * SPLIT: the branch of the execution's bucket (split-pick.ts: a hash of execution and step ids, so
 * a retry or replay takes the same branch). Output `{branch, bucket}`.
 */
export function splitStep(ctx: BranchCtx, c: StepConfigOf<'SPLIT'>): Choice {
  const bucket = splitBucket(ctx.exec.id, ctx.step.id);
  const branch = pickSplitBranch(c.branches, bucket);
  return { branch, output: { branch, bucket } };
}
