import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/pool.js';
import { isoSql, type Cursor } from '../events/events.cursor.js';
import type { ActivityType } from './activity.schema.js';

const EMAIL_TYPES = ['email.sent', 'email.delivered', 'email.opened', 'email.clicked', 'email.bounced', 'email.complained'];

export type FeedRow = {
  key: string;
  type: ActivityType;
  at: string;
  atUs: number;
  emailId: string | null;
  eventId: string | null;
  contactId: string | null;
  contactEmail: string | null;
  subject: string | null;
  campaignId: string | null;
  templateId: string | null;
  eventName: string | null;
  data: Record<string, unknown> | null;
};

/**
 * The feed as one UNION ALL: one row per set status timestamp of each email, and one per event that
 * is not an `email.*` emission (those duplicate the email timestamps) except inbound `email.received`.
 * `since` bounds it from below. Columns: key (unique, the tie-breaker), type, at and the item fields.
 */
function feed(projectId: string, types: readonly string[] | undefined, since?: Date): SQL {
  const want = (t: string) => !types || types.includes(t);
  const emailTypes = EMAIL_TYPES.filter(want);
  const branches: SQL[] = [];
  if (emailTypes.length) {
    branches.push(sql`
      select e.id::text || ':' || t.type as key, t.type, t.at, e.id as "emailId", null::uuid as "eventId",
        e.contact_id as "contactId", e.to_email as "contactEmail", e.subject, e.campaign_id as "campaignId",
        e.template_id as "templateId", null::text as "eventName", null::jsonb as data
      from emails e cross join lateral (values ('email.sent', e.sent_at), ('email.delivered', e.delivered_at),
        ('email.opened', e.opened_at), ('email.clicked', e.clicked_at), ('email.bounced', e.bounced_at),
        ('email.complained', e.complained_at)) as t(type, at)
      where e.project_id = ${projectId} and t.at is not null
        ${emailTypes.length < EMAIL_TYPES.length ? sql`and jsonb_exists(${JSON.stringify(emailTypes)}::jsonb, t.type)` : sql``}
        ${since ? sql`and t.at >= ${since.toISOString()}::timestamptz` : sql``}`);
  }
  const inbound = want('email.received');
  const other = want('event');
  if (inbound || other) {
    const nameCond = inbound && other ? sql`(ev.name = 'email.received' or ev.name not like 'email.%')`
      : inbound ? sql`ev.name = 'email.received'` : sql`ev.name not like 'email.%'`;
    branches.push(sql`
      select ev.id::text || ':event' as key, case when ev.name = 'email.received' then 'email.received' else 'event' end as type,
        ev.created_at as at, ev.email_id as "emailId", ev.id as "eventId", ev.contact_id as "contactId", c.email as "contactEmail",
        null::text as subject, ev.campaign_id as "campaignId", null::uuid as "templateId", ev.name as "eventName", ev.data
      from events ev left join contacts c on c.id = ev.contact_id
      where ev.project_id = ${projectId} and ${nameCond}
        ${since ? sql`and ev.created_at >= ${since.toISOString()}::timestamptz` : sql``}`);
  }
  return sql.join(branches, sql` union all `);
}

/** One page of the feed, newest first, `limit + 1` rows. */
export async function feedPage(db: Db, projectId: string, f: {
  types?: readonly string[]; cursor?: Cursor; limit: number;
}): Promise<FeedRow[]> {
  const r = await db.execute<FeedRow>(sql`
    select f.key, f.type, ${isoSql(sql`f.at`)} as at, (extract(epoch from f.at) * 1000000)::int8 as "atUs",
      f."emailId", f."eventId", f."contactId", f."contactEmail", f.subject, f."campaignId", f."templateId", f."eventName", f.data
    from (${feed(projectId, f.types)}) f
    ${f.cursor ? sql`where (f.at, f.key) < (${f.cursor.at}::timestamptz, ${f.cursor.key})` : sql``}
    order by f.at desc, f.key desc
    limit ${f.limit + 1}`);
  return r.rows;
}

/**
 * Feed items per type, counted with plain aggregates (one pass over each table) rather than over the
 * UNION, which would have to build every item.
 */
export async function countByType(db: Db, projectId: string): Promise<Record<ActivityType, number>> {
  const r = await db.execute<Record<ActivityType, number>>(sql`
    select em.*, ev.* from
      (select count(sent_at) as "email.sent", count(delivered_at) as "email.delivered", count(opened_at) as "email.opened",
        count(clicked_at) as "email.clicked", count(bounced_at) as "email.bounced", count(complained_at) as "email.complained"
       from emails where project_id = ${projectId}) em,
      (select count(*) filter (where name = 'email.received') as "email.received", count(*) filter (where name not like 'email.%') as event
       from events where project_id = ${projectId}) ev`);
  return r.rows[0];
}

/** Number of feed items since `since`. */
export async function countSince(db: Db, projectId: string, since: Date): Promise<number> {
  const r = await db.execute<{ n: number }>(sql`select count(*) as n from (${feed(projectId, undefined, since)}) f`);
  return r.rows[0].n;
}

export type StatsRow = {
  sent: number; delivered: number; opened: number; clicked: number; bounced: number; complained: number;
  received: number; events: number;
};

/** Items per type within `[from, to)`: one query over emails and events. */
export async function stats(db: Db, projectId: string, from: Date, to: Date): Promise<StatsRow> {
  const f = from.toISOString();
  const t = to.toISOString();
  const within = (col: string) => sql`count(*) filter (where ${sql.identifier(col)} >= ${f}::timestamptz and ${sql.identifier(col)} < ${t}::timestamptz)`;
  const r = await db.execute<StatsRow>(sql`
    with em as (
      select ${within('sent_at')} as sent, ${within('delivered_at')} as delivered, ${within('opened_at')} as opened,
        ${within('clicked_at')} as clicked, ${within('bounced_at')} as bounced, ${within('complained_at')} as complained
      from emails where project_id = ${projectId} and created_at < ${t}::timestamptz),
    ev as (
      select count(*) filter (where name = 'email.received') as received, count(*) filter (where name not like 'email.%') as events
      from events where project_id = ${projectId} and created_at >= ${f}::timestamptz and created_at < ${t}::timestamptz)
    select * from em, ev`);
  return r.rows[0];
}

export type UpcomingCampaign = { id: string; name: string; subject: string; audienceType: string; scheduledFor: string };
export type WaitingExecution = {
  executionId: string; workflowId: string; workflowName: string; contactId: string; contactEmail: string;
  stepId: string | null; stepName: string | null; stepType: string | null; waitingSince: string;
};

/** Scheduled campaigns still ahead of `now`, soonest first, and WAITING workflow executions, oldest first. */
export async function upcoming(db: Db, projectId: string, now: Date, limit: number) {
  const [campaigns, executions] = await Promise.all([
    db.execute<UpcomingCampaign>(sql`
      select id, name, subject, audience_type as "audienceType", ${isoSql(sql`scheduled_for`)} as "scheduledFor"
      from campaigns where project_id = ${projectId} and status = 'SCHEDULED' and scheduled_for > ${now.toISOString()}::timestamptz
      order by scheduled_for, id limit ${limit}`),
    db.execute<WaitingExecution>(sql`
      select x.id as "executionId", w.id as "workflowId", w.name as "workflowName", c.id as "contactId", c.email as "contactEmail",
        s.id as "stepId", s.name as "stepName", s.type as "stepType", ${isoSql(sql`x.updated_at`)} as "waitingSince"
      from workflow_executions x join workflows w on w.id = x.workflow_id join contacts c on c.id = x.contact_id
        left join workflow_steps s on s.id = x.current_step_id
      where x.project_id = ${projectId} and x.status = 'WAITING'
      order by x.updated_at, x.id limit ${limit}`),
  ]);
  return { campaigns: campaigns.rows, executions: executions.rows };
}
