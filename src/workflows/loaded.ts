import { sql, type SQL } from 'drizzle-orm';
import { executePrepared } from '../db/prepared.js';
import type { Tx } from '../db/tx.js';
import type { ExecutionRow, StepRow } from './workflows.repo.js';

/** An execution read with the step it stands at, in one row: what the engine moves and the steps run on. */

/** An execution row with the step it stands at. */
export type Loaded = { exec: ExecutionRow; step: StepRow };

/** The columns {@link loadedColumns} selects. */
export type LoadedRow = Record<string, unknown> & { id: string };

/** The execution (alias `x`) and step (alias `s`) columns {@link toLoaded} maps. */
export function loadedColumns(x: string, s: string): SQL {
  return sql.raw(`${x}.id, ${x}.workflow_id, ${x}.project_id, ${x}.contact_id, ${x}.status, ${x}.current_step_id, ${x}.context,
    ${x}.trigger_event_id, ${x}.trigger_data, ${x}.causation_depth, ${x}.exit_reason, ${x}.created_at, ${x}.updated_at,
    ${x}.completed_at, ${s}.id as s_id, ${s}.type as s_type, ${s}.name as s_name, ${s}.config as s_config,
    ${s}.template_id as s_template_id`);
}

/** The {@link Loaded} of a row selected with {@link loadedColumns}. */
export function toLoaded(o: LoadedRow): Loaded {
  return {
    exec: {
      id: o.id,
      workflowId: o.workflow_id,
      projectId: o.project_id,
      contactId: o.contact_id,
      status: o.status,
      currentStepId: o.current_step_id,
      context: o.context,
      triggerEventId: o.trigger_event_id,
      triggerData: o.trigger_data,
      causationDepth: o.causation_depth,
      exitReason: o.exit_reason,
      createdAt: new Date(o.created_at as string),
      updatedAt: new Date(o.updated_at as string),
      completedAt: o.completed_at ? new Date(o.completed_at as string) : null,
    } as ExecutionRow,
    step: {
      id: o.s_id,
      workflowId: o.workflow_id,
      projectId: o.project_id,
      type: o.s_type,
      name: o.s_name,
      config: o.s_config,
      templateId: o.s_template_id,
    } as StepRow,
  };
}

/** The execution locked `for update`, with the step, when it stands RUNNING (or `status`) at `stepId`. */
export async function lockAt(
  tx: Tx,
  executionId: string,
  stepId: string,
  status: 'RUNNING' | 'WAITING',
): Promise<Loaded | null> {
  const r = await executePrepared<LoadedRow>(
    tx,
    sql`
    select ${loadedColumns('x', 's')}
    from workflow_executions x join workflow_steps s on s.id = x.current_step_id
    where x.id = ${executionId} and x.status = ${status} and x.current_step_id = ${stepId}
    for update of x`,
  );
  const o = r.rows[0];
  return o ? toLoaded(o) : null;
}
