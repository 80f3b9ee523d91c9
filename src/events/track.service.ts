import { splitData } from '../contacts/contact-data.js';
import { sql } from 'drizzle-orm';
import { contactUpsertCtes } from '../contacts/contacts.upsert.js';
import type { Deps } from '../deps.js';
import { executePrepared } from '../db/prepared.js';
import { invalid } from '../http/errors.js';
import { newId } from '../lib/ids.js';
import { contactUpsertEvents, webhookDeliveries } from '../webhook-endpoints/fanout.js';
import { isReservedEventName, workflowDispatchJobs } from './emit.js';
import type { TrackBody } from './track.schema.js';

export interface TrackOutcome {
  contact: string;
  event: string;
  timestamp: string;
}

/**
 * `POST /v1/track`: upserts the contact (new contacts subscribed unless
 * `subscribed: false`; existing ones keep their state unless it is given) and records a new event
 * every time, in one statement. Persistent `data` (primitives and plain objects) is stored on the
 * contact; the event's data holds the persistent and the one-off (`persistent: false`) values.
 * A subscription change made here emits `contact.subscribed`/`contact.unsubscribed` like `/v1/send`
 * does, so workflows and segments see every change of state.
 * @throws AppError 422 with an `errors` entry of code `reserved_event` for a reserved name (emit.ts).
 */
export async function trackEvent(deps: Deps, projectId: string, input: TrackBody): Promise<TrackOutcome> {
  if (isReservedEventName(input.event)) {
    throw invalid('event', `"${input.event}" is a reserved event name emitted by the service`, 'reserved_event', input.event);
  }
  const data = splitData(input.data, { allowTransient: true, allowObjects: true });
  const now = deps.clock.now();
  const at = now.toISOString();
  // Ids in this order, so the subscription change sorts before the tracked event (UUIDv7).
  const subscriptionEventId = newId();
  const eventId = newId();
  // One statement, so one round trip and no explicit transaction: the contact, the subscription event
  // when its state flips (as recordEvent would write it), the event, and the workflow dispatch jobs of
  // both, and the event webhook deliveries of all three (with `contact.created` for a new contact). A
  // reply still means all of it is committed. Prepared: its text is the same on every call.
  const r = await executePrepared<{ id: string }>(deps.db, sql`
    with ${contactUpsertCtes({ projectId, email: input.email, data, subscribed: input.subscribed, defaultSubscribed: true, now })},
    subscription as (
      insert into events (id, project_id, contact_id, name, data, created_at, causation_depth)
      select ${subscriptionEventId}, ${projectId}, up.id, case when up.subscribed then 'contact.subscribed' else 'contact.unsubscribed' end,
        '{}'::jsonb, ${at}::timestamptz, 0
      from up where not up.is_new and up.was_subscribed is not null and up.was_subscribed <> up.subscribed
      returning id, contact_id, name, data, created_at),
    tracked as (
      insert into events (id, project_id, contact_id, name, data, created_at, causation_depth)
      select ${eventId}, ${projectId}, up.id, ${input.event}, ${JSON.stringify({ ...data.set, ...data.transient })}::jsonb, ${at}::timestamptz, 0
      from up
      returning id, contact_id, name, data, created_at),
    written as (select * from subscription union all select * from tracked),
    webhooks as (${webhookDeliveries(sql`(select * from written union all select * from ${contactUpsertEvents(sql`(select * from up where up.is_new)`, now)} created)`, projectId)}),
    jobs as (${workflowDispatchJobs(sql`written`, projectId)})
    select up.id, (select count(*) from jobs) as jobs from up`);
  return { contact: r.rows[0].id, event: eventId, timestamp: at };
}
