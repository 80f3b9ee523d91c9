import { sql, type SQL } from 'drizzle-orm';

/**
 * Which workflows listen to an event: the one rule, as SQL the event writers and the dispatcher
 * compose into their statements (events/emit.ts decides whether a dispatch job is needed,
 * dispatch.ts reads whom to start and resume, events.repo.ts lists where a name is used).
 *
 * An event named N of a contact
 * - starts every enabled workflow of the event's project whose trigger is `EVENT` with `eventName` N;
 * - when N is `segment.<slug>.entry` (`.exit`), the event a tracked segment's compute records for a
 *   contact that entered (left) it, starts every enabled `SEGMENT_ENTERED` (`SEGMENT_EXITED`) workflow
 *   whose `segmentId` is the event's `data.segmentId`: by id, so renaming the segment (which changes
 *   its slug) changes nothing. Clients cannot track these names (events/emit.ts isReservedEventName);
 * - resumes every execution of that contact that is WAITING at a `WAIT_FOR_EVENT` step whose
 *   `eventName` is N.
 * Events without a contact start and resume nothing.
 */

/** The event name a workflow's trigger listens to, over a `workflows` row aliased `w` (null unless it has one). */
export const triggerEventName = (w: string): SQL => sql`${sql.raw(w)}.trigger_config->>'eventName'`;

/** The event name a step waits for or tests, over a `workflow_steps` row aliased `s`. */
export const stepEventName = (s: string): SQL => sql`${sql.raw(s)}.config->>'eventName'`;

/** The segment a SEGMENT_ENTERED or SEGMENT_EXITED trigger names, over a `workflows` row aliased `w`. */
export const triggerSegmentId = (w: string): SQL => sql`${sql.raw(w)}.trigger_config->>'segmentId'`;

/** Whether an event named `eventName` is one of a segment's entries (`ENTERED`) or exits (`EXITED`): a SQL boolean. */
const isSegmentMove = (eventName: SQL, move: 'entry' | 'exit'): SQL => sql`${eventName} like ${`segment.%.${move}`}`;

/**
 * The workflows an event named `eventName` with `data` `eventData` (jsonb) of project `projectId`
 * starts, as a FROM item aliased `w` (a `workflows` row): `from ${workflowsStartedBy(...)}`.
 */
export function workflowsStartedBy(projectId: SQL, eventName: SQL, eventData: SQL): SQL {
  return sql`workflows w where w.project_id = ${projectId} and w.enabled and (
    (w.trigger_type = 'EVENT' and ${triggerEventName('w')} = ${eventName})
    or (w.trigger_type = 'SEGMENT_ENTERED' and ${isSegmentMove(eventName, 'entry')} and ${triggerSegmentId('w')} = ${eventData}->>'segmentId')
    or (w.trigger_type = 'SEGMENT_EXITED' and ${isSegmentMove(eventName, 'exit')} and ${triggerSegmentId('w')} = ${eventData}->>'segmentId'))`;
}

/**
 * {@link workflowsStartedBy} without the event's data, for writers whose rows carry only the name: a
 * segment entry (exit) counts when the project has any enabled SEGMENT_ENTERED (SEGMENT_EXITED)
 * workflow; the dispatcher then starts only those of its segment. Wider, never narrower.
 */
function workflowsPerhapsStartedBy(projectId: SQL, eventName: SQL): SQL {
  return sql`workflows w where w.project_id = ${projectId} and w.enabled and (
    (w.trigger_type = 'EVENT' and ${triggerEventName('w')} = ${eventName})
    or (w.trigger_type = 'SEGMENT_ENTERED' and ${isSegmentMove(eventName, 'entry')})
    or (w.trigger_type = 'SEGMENT_EXITED' and ${isSegmentMove(eventName, 'exit')}))`;
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
    exists (select 1 from ${workflowsPerhapsStartedBy(projectId, sql`${e}.name`)})
    or exists (select 1 from ${waitsEndedBy(sql`${e}.contact_id`, sql`${e}.name`)})))`;
}
