import { sql } from 'drizzle-orm';
import { newId } from '../lib/ids.js';
import type { DbOrTx } from '../worker/queue.js';

/** Names the service emits itself; clients cannot track them (api.md §6). */
export function isReservedEventName(name: string): boolean {
  return (
    name === 'contact.subscribed' ||
    name === 'contact.unsubscribed' ||
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
}

// Kept for callers that pass a drizzle transaction; only `execute` is used.
type Tx = DbOrTx & { insert?: import('../db/pool.js').Db['insert'] };

/**
 * Records an event in the caller's transaction and returns its id. Every event (tracked or emitted)
 * goes through here, so workflows hook in at this one place: the same statement adds a
 * `workflows:dispatch {eventId}` job, but only when an enabled EVENT workflow of the project is
 * triggered by this name or an execution of the contact is WAITING for it (both checks are index
 * look-ups), so events nobody listens to cost no job (issue: workflows).
 */
export async function recordEvent(tx: Tx, e: NewEvent): Promise<{ id: string; createdAt: Date }> {
  const id = newId();
  const createdAt = e.createdAt ?? new Date();
  const contactId = e.contactId ?? null;
  await tx.execute(sql`
    with ev as (
      insert into events (id, project_id, contact_id, name, data, email_id, campaign_id, created_at)
      values (${id}, ${e.projectId}, ${contactId}, ${e.name}, ${JSON.stringify(e.data ?? {})}::jsonb,
        ${e.emailId ?? null}, ${e.campaignId ?? null}, ${createdAt.toISOString()}::timestamptz)
      returning id)
    select graphile_worker.add_job('workflows:dispatch', json_build_object('eventId', (select id from ev)), max_attempts => 10)
    where ${contactId}::uuid is not null and (
      exists (select 1 from workflows w where w.project_id = ${e.projectId} and w.enabled
        and w.trigger_type = 'EVENT' and w.trigger_config->>'eventName' = ${e.name})
      or exists (select 1 from workflow_executions x join workflow_steps s on s.id = x.current_step_id
        where x.contact_id = ${contactId}::uuid and x.status = 'WAITING' and s.type = 'WAIT_FOR_EVENT'
          and s.config->>'eventName' = ${e.name}))`);
  return { id, createdAt };
}
