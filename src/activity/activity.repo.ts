import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/pool.js';
import { isoSql, type Cursor } from '../events/events.cursor.js';
import type { ActivityType } from './activity.schema.js';

const EMAIL_TYPES = [
  'email.sent',
  'email.delivered',
  'email.opened',
  'email.clicked',
  'email.bounced',
  'email.complained',
];

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
 * Rows are narrow (key, type, at, emailId, eventId); a page joins the details of its own rows only.
 * `since` bounds it from below; `page` applies the cursor and a LIMIT inside each branch, so no branch
 * hands more than a page to the merge (the events branch walks its (project_id, created_at) index).
 */
function feed(
  projectId: string,
  types: readonly string[] | undefined,
  opts: { since?: Date; page?: { cursor?: Cursor; limit: number } } = {},
): SQL {
  const want = (t: string) => !types || types.includes(t);
  const emailTypes = EMAIL_TYPES.filter(want);
  const { since, page } = opts;
  const after = (at: SQL, key: SQL) =>
    page?.cursor ? sql`and (${at}, ${key}) < (${page.cursor.at}::timestamptz, ${page.cursor.key})` : sql``;
  const top = (at: SQL, key: SQL) => (page ? sql`order by ${at} desc, ${key} desc limit ${page.limit + 1}` : sql``);
  const branches: SQL[] = [];
  if (emailTypes.length) {
    const key = sql`e.id::text || ':' || t.type`;
    branches.push(sql`(
      select ${key} as key, t.type, t.at, e.id as "emailId", null::uuid as "eventId"
      from emails e cross join lateral (values ('email.sent', e.sent_at), ('email.delivered', e.delivered_at),
        ('email.opened', e.opened_at), ('email.clicked', e.clicked_at), ('email.bounced', e.bounced_at),
        ('email.complained', e.complained_at)) as t(type, at)
      where e.project_id = ${projectId} and t.at is not null
        ${emailTypes.length < EMAIL_TYPES.length ? sql`and jsonb_exists(${JSON.stringify(emailTypes)}::jsonb, t.type)` : sql``}
        ${since ? sql`and t.at >= ${since.toISOString()}::timestamptz` : sql``}
        ${after(sql`t.at`, key)}
      ${top(sql`t.at`, key)})`);
  }
  const inbound = want('email.received');
  const other = want('event');
  if (inbound || other) {
    const nameCond =
      inbound && other
        ? sql`(ev.name = 'email.received' or ev.name not like 'email.%')`
        : inbound
          ? sql`ev.name = 'email.received'`
          : sql`ev.name not like 'email.%'`;
    // ':event' is a constant suffix, so ordering by the id orders by the key.
    const key = sql`ev.id::text || ':event'`;
    branches.push(sql`(
      select ${key} as key, case when ev.name = 'email.received' then 'email.received' else 'event' end as type,
        ev.created_at as at, ev.email_id as "emailId", ev.id as "eventId"
      from events ev
      where ev.project_id = ${projectId} and ${nameCond}
        ${since ? sql`and ev.created_at >= ${since.toISOString()}::timestamptz` : sql``}
        ${page?.cursor ? sql`and ev.created_at <= ${page.cursor.at}::timestamptz` : sql``}
        ${after(sql`ev.created_at`, key)}
      ${page ? sql`order by ev.created_at desc, ev.id desc limit ${page.limit + 1}` : sql``})`);
  }
  return sql.join(branches, sql` union all `);
}

/** One page of the feed, newest first, `limit + 1` rows, with the details of those rows only. */
export async function feedPage(
  db: Db,
  projectId: string,
  f: {
    types?: readonly string[];
    cursor?: Cursor;
    limit: number;
  },
): Promise<FeedRow[]> {
  const r = await db.execute<FeedRow>(sql`
    select f.key, f.type, ${isoSql(sql`f.at`)} as at, (extract(epoch from f.at) * 1000000)::int8 as "atUs",
      f."emailId", f."eventId",
      case when f."eventId" is null then em.contact_id else ev.contact_id end as "contactId",
      case when f."eventId" is null then em.to_email else c.email end as "contactEmail",
      em.subject, coalesce(em.campaign_id, ev.campaign_id) as "campaignId", em.template_id as "templateId",
      ev.name as "eventName", ev.data
    from (select * from (${feed(projectId, f.types, { page: { cursor: f.cursor, limit: f.limit } })}) u
          order by u.at desc, u.key desc limit ${f.limit + 1}) f
      left join emails em on em.id = f."emailId" and em.project_id = ${projectId}
      left join events ev on ev.id = f."eventId" and ev.project_id = ${projectId}
      left join contacts c on c.id = ev.contact_id
    order by f.at desc, f.key desc`);
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
  const r = await db.execute<{ n: number }>(
    sql`select count(*) as n from (${feed(projectId, undefined, { since })}) f`,
  );
  return r.rows[0].n;
}

export type StatsRow = {
  sent: number;
  delivered: number;
  opened: number;
  clicked: number;
  bounced: number;
  complained: number;
  received: number;
  events: number;
};

/** Items per type within `[from, to)`: one query over emails and events. */
export async function stats(db: Db, projectId: string, from: Date, to: Date): Promise<StatsRow> {
  const f = from.toISOString();
  const t = to.toISOString();
  const within = (col: string) =>
    sql`count(*) filter (where ${sql.identifier(col)} >= ${f}::timestamptz and ${sql.identifier(col)} < ${t}::timestamptz)`;
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

export type UpcomingCampaign = {
  id: string;
  name: string;
  subject: string;
  audienceType: string;
  scheduledFor: string;
};
export type WaitingExecution = {
  executionId: string;
  workflowId: string;
  workflowName: string;
  contactId: string;
  contactEmail: string;
  stepId: string | null;
  stepName: string | null;
  stepType: string | null;
  waitingSince: string;
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
