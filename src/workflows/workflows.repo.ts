import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import {
  contacts,
  workflowExecutions,
  workflows,
  workflowSteps,
  workflowStepExecutions,
  workflowTransitions,
} from '../db/schema.js';
import type { Tx } from '../db/tx.js';

/** SQL of workflow definitions; every function takes the project id first where a project applies. */

export type WorkflowRow = typeof workflows.$inferSelect;
export type StepRow = typeof workflowSteps.$inferSelect;
export type TransitionRow = typeof workflowTransitions.$inferSelect;
export type ExecutionRow = typeof workflowExecutions.$inferSelect;
export type StepExecutionRow = typeof workflowStepExecutions.$inferSelect;

export const LIVE = sql`('RUNNING', 'WAITING')`;

/** The workflow, locked `for update` when `lock` (graph edits serialise on it). */
export async function getWorkflow(
  db: Tx,
  projectId: string,
  id: string,
  lock = false,
): Promise<WorkflowRow | undefined> {
  const q = db
    .select()
    .from(workflows)
    .where(and(eq(workflows.projectId, projectId), eq(workflows.id, id)))
    .limit(1);
  const [w] = lock ? await q.for('update') : await q;
  return w;
}

export async function listSteps(db: Tx, workflowId: string): Promise<StepRow[]> {
  return db.select().from(workflowSteps).where(eq(workflowSteps.workflowId, workflowId)).orderBy(asc(workflowSteps.id));
}

export async function listTransitions(db: Tx, workflowId: string): Promise<TransitionRow[]> {
  return db
    .select()
    .from(workflowTransitions)
    .where(eq(workflowTransitions.workflowId, workflowId))
    .orderBy(asc(workflowTransitions.id));
}

export async function getStep(db: Tx, workflowId: string, stepId: string): Promise<StepRow | undefined> {
  const [s] = await db
    .select()
    .from(workflowSteps)
    .where(and(eq(workflowSteps.workflowId, workflowId), eq(workflowSteps.id, stepId)))
    .limit(1);
  return s;
}

/** Number of RUNNING or WAITING executions of a workflow (optionally those standing at one step). */
export async function countLive(db: Tx, workflowId: string, stepId?: string): Promise<number> {
  const r = await db.execute<{ n: number }>(sql`select count(*)::int as n from workflow_executions
    where workflow_id = ${workflowId} and status in ${LIVE} ${stepId ? sql`and current_step_id = ${stepId}` : sql``}`);
  return r.rows[0].n;
}

/** The TRIGGER step of a workflow. */
export async function triggerStep(db: Tx, workflowId: string): Promise<StepRow | undefined> {
  const [s] = await db
    .select()
    .from(workflowSteps)
    .where(and(eq(workflowSteps.workflowId, workflowId), eq(workflowSteps.type, 'TRIGGER')))
    .limit(1);
  return s;
}

/** A workflow as the API returns it. */
export function workflowOut(w: WorkflowRow) {
  return {
    id: w.id,
    projectId: w.projectId,
    name: w.name,
    description: w.description,
    triggerType: w.triggerType,
    triggerConfig: w.triggerConfig,
    enabled: w.enabled,
    allowReentry: w.allowReentry,
    createdAt: w.createdAt.toISOString(),
    updatedAt: w.updatedAt.toISOString(),
  };
}

export function stepOut(s: StepRow) {
  return {
    id: s.id,
    workflowId: s.workflowId,
    type: s.type,
    name: s.name,
    config: s.config,
    templateId: s.templateId,
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
  };
}

export function transitionOut(t: TransitionRow) {
  return {
    id: t.id,
    workflowId: t.workflowId,
    fromStepId: t.fromStepId,
    toStepId: t.toStepId,
    branch: t.branch,
    waitOutcome: t.waitOutcome,
    createdAt: t.createdAt.toISOString(),
  };
}

/**
 * Email addresses of the project's contacts `ids`, by contact id (ids of another project or of no
 * contact are absent).
 */
export async function contactEmails(db: Tx, projectId: string, ids: string[]): Promise<Map<string, string>> {
  if (!ids.length) return new Map();
  const rows = await db
    .select({ id: contacts.id, email: contacts.email })
    .from(contacts)
    .where(and(eq(contacts.projectId, projectId), inArray(contacts.id, [...new Set(ids)])));
  return new Map(rows.map((r) => [r.id, r.email]));
}

/** An execution as the API returns it, with its contact's address (null when the contact is gone). */
export function executionOut(e: ExecutionRow, emails: Map<string, string>) {
  return {
    id: e.id,
    workflowId: e.workflowId,
    contactId: e.contactId,
    contactEmail: emails.get(e.contactId) ?? null,
    status: e.status,
    currentStepId: e.currentStepId,
    context: e.context,
    triggerEventId: e.triggerEventId,
    triggerData: e.triggerData,
    causationDepth: e.causationDepth,
    exitReason: e.exitReason,
    createdAt: e.createdAt.toISOString(),
    updatedAt: e.updatedAt.toISOString(),
    completedAt: e.completedAt ? e.completedAt.toISOString() : null,
  };
}

export function stepExecutionOut(s: StepExecutionRow) {
  return {
    id: s.id,
    stepId: s.stepId,
    status: s.status,
    output: s.output,
    error: s.error,
    attempts: s.attempts,
    startedAt: s.startedAt ? s.startedAt.toISOString() : null,
    completedAt: s.completedAt ? s.completedAt.toISOString() : null,
    createdAt: s.createdAt.toISOString(),
  };
}
