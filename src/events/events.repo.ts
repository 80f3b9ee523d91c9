import { sql } from 'drizzle-orm';
import type { Db } from '../db/pool.js';
import { isoSql, type Cursor } from './events.cursor.js';
import { stepEventName, triggerEventName } from '../workflows/listeners.js';

export type EventListRow = {
  id: string;
  name: string;
  contactId: string | null;
  contactEmail: string | null;
  data: Record<string, unknown>;
  emailId: string | null;
  campaignId: string | null;
  createdAt: string;
  atUs: number;
};

/**
 * Events newest first (created_at, id), `limit + 1` rows so the caller knows whether more follow.
 * The (project_id, created_at) and (project_id, name, created_at) indexes serve it.
 */
export async function listEvents(
  db: Db,
  projectId: string,
  f: {
    name?: string;
    contactId?: string;
    cursor?: Cursor;
    limit: number;
  },
): Promise<EventListRow[]> {
  const r = await db.execute<EventListRow>(sql`
    select e.id, e.name, e.contact_id as "contactId", c.email as "contactEmail", e.data, e.email_id as "emailId",
      e.campaign_id as "campaignId", ${isoSql(sql`e.created_at`)} as "createdAt",
      (extract(epoch from e.created_at) * 1000000)::int8 as "atUs"
    from events e left join contacts c on c.id = e.contact_id
    where e.project_id = ${projectId}
      ${f.name !== undefined ? sql`and e.name = ${f.name}` : sql``}
      ${f.contactId !== undefined ? sql`and e.contact_id = ${f.contactId}` : sql``}
      ${f.cursor ? sql`and (e.created_at, e.id) < (${f.cursor.at}::timestamptz, ${f.cursor.key}::uuid)` : sql``}
    order by e.created_at desc, e.id desc
    limit ${f.limit + 1}`);
  return r.rows;
}

/** Number of events matching the filters (a separate count: a window count would defeat the LIMIT). */
export async function countEvents(
  db: Db,
  projectId: string,
  f: { name?: string; contactId?: string },
): Promise<number> {
  const r = await db.execute<{ n: number }>(sql`
    select count(*) as n from events where project_id = ${projectId}
      ${f.name !== undefined ? sql`and name = ${f.name}` : sql``}
      ${f.contactId !== undefined ? sql`and contact_id = ${f.contactId}` : sql``}`);
  return r.rows[0].n;
}

/** Whether the contact is in the project, and how many events it has (optionally of one name): one query. */
export async function contactEventCount(
  db: Db,
  projectId: string,
  contactId: string,
  name?: string,
): Promise<{ present: boolean; n: number }> {
  const r = await db.execute<{ present: boolean; n: number }>(sql`
    select exists (select 1 from contacts where id = ${contactId} and project_id = ${projectId}) as present,
      (select count(*) from events where project_id = ${projectId} and contact_id = ${contactId}
        ${name !== undefined ? sql`and name = ${name}` : sql``}) as n`);
  return r.rows[0];
}

export type NameRow = { name: string; count: number; last30Days: number; lastSeen: string; contacts: number };

/** Every event name of the project with its counts: one grouped scan. */
export async function eventNames(db: Db, projectId: string, since: Date): Promise<NameRow[]> {
  const r = await db.execute<NameRow>(sql`
    select name, count(*) as count, count(*) filter (where created_at >= ${since.toISOString()}::timestamptz) as "last30Days",
      ${isoSql(sql`max(created_at)`)} as "lastSeen", count(distinct contact_id) as contacts
    from events where project_id = ${projectId}
    group by name order by count(*) desc, name`);
  return r.rows;
}

/** Events per UTC day from `since`'s day to `now`'s day inclusive, zero-filled. */
export async function dailyCounts(
  db: Db,
  projectId: string,
  since: Date,
  now: Date,
): Promise<{ date: string; count: number }[]> {
  const r = await db.execute<{ date: string; count: number }>(sql`
    with days as (
      select d from generate_series(date_trunc('day', ${since.toISOString()}::timestamptz at time zone 'UTC'),
                                    date_trunc('day', ${now.toISOString()}::timestamptz at time zone 'UTC'), interval '1 day') d)
    select to_char(days.d, 'YYYY-MM-DD') as date, count(e.id) as count
    from days left join events e on e.project_id = ${projectId}
      and e.created_at >= days.d at time zone 'UTC' and e.created_at < (days.d + interval '1 day') at time zone 'UTC'
    group by days.d order by days.d`);
  return r.rows;
}

export type UsageRow = {
  kind: 'workflow_trigger' | 'workflow_step' | 'segment' | 'campaign';
  id: string;
  name: string;
  enabled: boolean | null;
  stepId: string | null;
  stepName: string | null;
  /** Step type, segment type or campaign status. */
  detail: string | null;
};

/**
 * Where an event name is referenced, in one query: workflow triggers, WAIT_FOR_EVENT and CONDITION
 * steps, and segment / campaign condition trees with a filter on the field `event.<name>`.
 */
export async function eventUsage(db: Db, projectId: string, eventName: string): Promise<UsageRow[]> {
  const field = `event.${eventName}`;
  const inTree = (col: ReturnType<typeof sql>) =>
    sql`jsonb_path_exists(${col}, '$.** ? (@.field == $f)', jsonb_build_object('f', ${field}::text))`;
  const r = await db.execute<UsageRow>(sql`
    select 'workflow_trigger' as kind, w.id, w.name, w.enabled, null::uuid as "stepId", null as "stepName", w.trigger_type as detail
      from workflows w where w.project_id = ${projectId} and ${triggerEventName('w')} = ${eventName}
    union all
    select 'workflow_step', w.id, w.name, w.enabled, s.id, s.name, s.type
      from workflow_steps s join workflows w on w.id = s.workflow_id
      where s.project_id = ${projectId} and w.project_id = ${projectId}
        and ((s.type = 'WAIT_FOR_EVENT' and ${stepEventName('s')} = ${eventName})
          or (s.type = 'CONDITION' and s.config->>'field' = ${field}))
    union all
    select 'segment', s.id, s.name, null, null, null, s.type
      from segments s where s.project_id = ${projectId} and s.condition is not null and ${inTree(sql`s.condition`)}
    union all
    select 'campaign', c.id, c.name, null, null, null, c.status
      from campaigns c where c.project_id = ${projectId} and c.audience_condition is not null and ${inTree(sql`c.audience_condition`)}
    order by 1, 3`);
  return r.rows;
}

/** Deletes every event of that name in the project; returns how many. */
export async function deleteEventsByName(db: Db, projectId: string, name: string): Promise<number> {
  const r = await db.execute(sql`delete from events where project_id = ${projectId} and name = ${name}`);
  return r.rowCount ?? 0;
}
