import { sql, type SQL } from 'drizzle-orm';

/**
 * Which workflows listen to an event: the one rule, as SQL the event writers and the dispatcher
 * compose into their statements (events/emit.ts decides whether a dispatch job is needed,
 * dispatch.ts reads whom to start and resume, events.repo.ts lists where a name is used).
 *
 * An event named N of a contact
 * - starts every enabled workflow of the event's project whose trigger is `EVENT` with `eventName` N;
 * - resumes every execution of that contact that is WAITING at a `WAIT_FOR_EVENT` step whose
 *   `eventName` is N.
 * Events without a contact start and resume nothing.
 */

/** The event name a workflow's trigger listens to, over a `workflows` row aliased `w` (null unless it has one). */
export const triggerEventName = (w: string): SQL => sql`${sql.raw(w)}.trigger_config->>'eventName'`;

/** The event name a step waits for or tests, over a `workflow_steps` row aliased `s`. */
export const stepEventName = (s: string): SQL => sql`${sql.raw(s)}.config->>'eventName'`;

/**
 * The workflows an event named `eventName` of project `projectId` starts, as a FROM item aliased `w`
 * (a `workflows` row): `from ${workflowsStartedBy(...)}`.
 */
export function workflowsStartedBy(projectId: SQL, eventName: SQL): SQL {
  return sql`workflows w where w.project_id = ${projectId} and w.enabled and w.trigger_type = 'EVENT'
    and ${triggerEventName('w')} = ${eventName}`;
}

/**
 * The waits an event named `eventName` of contact `contactId` ends, as a FROM item with the
 * execution aliased `x` (`workflow_executions`) and its current step `s` (`workflow_steps`).
 */
export function waitsEndedBy(contactId: SQL, eventName: SQL): SQL {
  return sql`workflow_executions x join workflow_steps s on s.id = x.current_step_id
    where x.contact_id = ${contactId} and x.status = 'WAITING' and s.type = 'WAIT_FOR_EVENT' and ${stepEventName('s')} = ${eventName}`;
}

/** Whether anyone listens to event `ev` (a row with `contact_id`, `name`) of project `projectId`: a SQL boolean. */
export function hasListeners(projectId: SQL, ev: string): SQL {
  const e = sql.raw(ev);
  return sql`(${e}.contact_id is not null and (
    exists (select 1 from ${workflowsStartedBy(projectId, sql`${e}.name`)})
    or exists (select 1 from ${waitsEndedBy(sql`${e}.contact_id`, sql`${e}.name`)})))`;
}
