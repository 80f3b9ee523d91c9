import { sql, type SQL } from 'drizzle-orm';
import { newId } from '../lib/ids.js';
import { addJobsSelect, jobSpecRow } from '../worker/graphile.js';
import type { SqlRunner } from '../db/tx.js';
import { webhookDeliveries } from '../webhook-endpoints/fanout.js';
import { hasListeners } from '../workflows/listeners.js';
import { DISPATCH_BATCH, workflowDispatchJob } from '../workflows/workflows.jobs.js';
import { relation, type Relation } from '../db/relation.js';
import type { EventColumns } from './event-relation.js';

/** Names the service emits itself; clients cannot track them. */
export function isReservedEventName(name: string): boolean {
  return (
    name === 'contact.subscribed' ||
    name === 'contact.unsubscribed' ||
    name === 'contact.confirmed' ||
    name === 'topic.joined' ||
    name === 'topic.left' ||
    name.startsWith('email.') ||
    /^segment\..+\.(entry|exit)$/.test(name)
  );
}

export interface NewEvent {
  projectId: string;
  contactId: string | null;
  name: string;
  data?: Record<string, unknown>;
  emailId?: string | null;
  campaignId?: string | null;
  createdAt?: Date;
  /**
   * Causation depth (events.causation_depth): a workflow step passes its execution's depth + 1. When
   * omitted, an event about an email a workflow sent (`emailId`, or `causedByEmailId` for a contact
   * change the email caused, e.g. a hard bounce's unsubscribe) is one deeper than that workflow's
   * execution; anything else is 0.
   */
  causationDepth?: number;
  causedByEmailId?: string | null;
}

/**
 * The one rule for queueing workflow work on new events: a SELECT that adds (in one Graphile call)
 * `workflows:dispatch {eventIds}` jobs for the rows of `events` (a relation with `id`, `contact_id`,
 * `name`, e.g. a CTE's name) that someone listens to (workflows/listeners.ts): one job per {@link DISPATCH_BATCH} such events, ids in
 * time order, so a statement that writes many events (a group-committed batch of tracks, a segment
 * compute) costs one job and one dispatch transaction per batch instead of one per event
 * (workflows/dispatch.ts `dispatchEvents`). Both checks are index look-ups, so events nobody listens to cost no
 * job. Used by {@link recordEvent} for one event and by set-based writers for many.
 */
export function workflowDispatchJobs(events: Relation<'id' | 'contact_id' | 'name'>, projectId: string): SQL {
  return addJobsSelect(sql`select ${jobSpecRow(workflowDispatchJob, sql`json_build_object('eventIds', json_agg(d.id order by d.id))`)}
    from (select ev.id, (row_number() over (order by ev.id) - 1) / ${DISPATCH_BATCH}::int as chunk
      from ${events.from} ev
      where ${hasListeners(sql`${projectId}::uuid`, 'ev')}) d
    group by d.chunk`);
}

/** The causation depth of a new event as SQL (see {@link NewEvent.causationDepth}). */
function depthOf(e: NewEvent): SQL {
  if (e.causationDepth !== undefined) return sql`${e.causationDepth}::smallint`;
  const email = e.causedByEmailId ?? e.emailId;
  if (!email) return sql`0::smallint`;
  // Two primary-key look-ups, only for events about an email.
  return sql`coalesce((select x.causation_depth + 1 from emails m join workflow_executions x on x.id = m.workflow_execution_id
    where m.id = ${email}::uuid), 0)::smallint`;
}

/**
 * Records an event in the caller's transaction and returns its id. Every single event (tracked or
 * emitted) goes through here; the same statement queues its workflow dispatch job when someone
 * listens ({@link workflowDispatchJobs}) and its event webhook deliveries (webhook-endpoints/fanout.ts).
 */
export async function recordEvent(tx: SqlRunner, e: NewEvent): Promise<{ id: string; createdAt: Date }> {
  const inserted = relation<EventColumns>(sql`inserted`);
  const id = newId();
  const createdAt = e.createdAt ?? new Date();
  await tx.execute(sql`
    with inserted as (
      insert into events (id, project_id, contact_id, name, data, email_id, campaign_id, created_at, causation_depth)
      values (${id}, ${e.projectId}, ${e.contactId ?? null}, ${e.name}, ${JSON.stringify(e.data ?? {})}::jsonb,
        ${e.emailId ?? null}, ${e.campaignId ?? null}, ${createdAt.toISOString()}::timestamptz, ${depthOf(e)})
      returning id, contact_id, name, data, created_at),
    webhooks as (${webhookDeliveries(inserted, e.projectId)})
    ${workflowDispatchJobs(inserted, e.projectId)}`);
  return { id, createdAt };
}
