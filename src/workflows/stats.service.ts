import { sql } from 'drizzle-orm';
import { resolveRange } from '../analytics/range.js';
import type { Deps } from '../deps.js';
import { loadWorkflow } from './workflows.service.js';

/**
 * `GET /workflows/:id/stats?from&to`: what each step of a workflow did in a time range `[from, to)`
 * (analytics/range.ts: `to` defaults to now, `from` to 30 days before it).
 */

/** The mail figures of a SEND_EMAIL step: its emails (`emails.workflow_step_id`) created in the range. */
export interface StepMailStats {
  /** Emails the step queued (suppressed ones included). */
  emails: number;
  sent: number;
  delivered: number;
  /** Raw opens and clicks (Plunk's meaning): the first of each per email, machines included. */
  opened: number;
  clicked: number;
  /** Opens and clicks not marked as machine activity (`human_opened_at`, `human_clicked_at`). */
  humanOpened: number;
  humanClicked: number;
  bounced: number;
}

/** One step's figures. */
export interface StepStats {
  stepId: string;
  type: string;
  name: string;
  /** Step runs that started in the range (the TRIGGER step: executions started). */
  entered: number;
  /** Of those, the runs that completed (a wait that ended, a condition that chose, a mail queued…). */
  completed: number;
  /** Of those, the runs that failed (their execution FAILED there). */
  failed: number;
  /** Executions that ended at this step in the range without going on: an EXIT step, a cancel, a refused start. */
  exited: number;
  /** Executions waiting at this step now (a DELAY or WAIT_FOR_EVENT), whatever the range. */
  waitingNow: number;
  /** SEND_EMAIL steps only, else null. */
  mail: StepMailStats | null;
}

/**
 * Every step of the workflow, in creation order, with its figures; one statement. Step runs are read
 * through the workflow's executions (index on workflow, then the run's unique (execution, step)),
 * mails through `emails_workflow_step_idx` limited to the project.
 * @throws AppError 404 workflow (unknown, another project's); 422 `from` not before `to`.
 */
export async function workflowStats(
  deps: Deps,
  projectId: string,
  workflowId: string,
  q: { from?: Date; to?: Date },
): Promise<{ from: string; to: string; steps: StepStats[] }> {
  const w = await loadWorkflow(deps, projectId, workflowId);
  const range = resolveRange(q, deps.clock.now());
  const from = range.from.toISOString();
  const to = range.to.toISOString();
  const n = (expr: string) => sql.raw(`count(*) filter (where ${expr})::int`);
  const r = await deps.db.execute<StepStats & Record<string, unknown>>(sql`
    with runs as (
      select se.step_id, count(*)::int as entered, ${n(`se.status = 'COMPLETED'`)} as completed,
        ${n(`se.status = 'FAILED'`)} as failed
      from workflow_executions x join workflow_step_executions se on se.execution_id = x.id
      where x.workflow_id = ${w.id} and se.started_at >= ${from}::timestamptz and se.started_at < ${to}::timestamptz
      group by se.step_id),
    ends as (
      select x.current_step_id as step_id,
        count(*) filter (where x.status in ('EXITED', 'CANCELLED') and x.completed_at >= ${from}::timestamptz
          and x.completed_at < ${to}::timestamptz)::int as exited,
        ${n(`x.status = 'WAITING'`)} as waiting
      from workflow_executions x
      where x.workflow_id = ${w.id} and x.status in ('WAITING', 'EXITED', 'CANCELLED')
      group by x.current_step_id),
    mails as (
      select e.workflow_step_id as step_id, json_build_object(
        'emails', count(*), 'sent', ${n('e.sent_at is not null')}, 'delivered', ${n('e.delivered_at is not null')},
        'opened', ${n('e.opened_at is not null')}, 'clicked', ${n('e.clicked_at is not null')},
        'humanOpened', ${n('e.human_opened_at is not null')}, 'humanClicked', ${n('e.human_clicked_at is not null')},
        'bounced', ${n('e.bounced_at is not null')}) as mail
      from emails e
      where e.project_id = ${projectId}
        and e.workflow_step_id in (select id from workflow_steps where workflow_id = ${w.id} and type = 'SEND_EMAIL')
        and e.created_at >= ${from}::timestamptz and e.created_at < ${to}::timestamptz
      group by e.workflow_step_id)
    select s.id as "stepId", s.type, s.name, coalesce(r.entered, 0) as entered, coalesce(r.completed, 0) as completed,
      coalesce(r.failed, 0) as failed, coalesce(x.exited, 0) as exited, coalesce(x.waiting, 0) as "waitingNow",
      case when s.type = 'SEND_EMAIL' then coalesce(m.mail, ${JSON.stringify(NO_MAIL)}::json) end as mail
    from workflow_steps s
    left join runs r on r.step_id = s.id left join ends x on x.step_id = s.id left join mails m on m.step_id = s.id
    where s.workflow_id = ${w.id}
    order by s.id`);
  return { from, to, steps: r.rows };
}

const NO_MAIL: StepMailStats = {
  emails: 0,
  sent: 0,
  delivered: 0,
  opened: 0,
  clicked: 0,
  humanOpened: 0,
  humanClicked: 0,
  bounced: 0,
};
