import { sql } from 'drizzle-orm';
import type { Db } from '../db/pool.js';
import { isoSql } from '../events/events.cursor.js';
import type { Range } from './range.js';

// Human opens and clicks (issue 36) are the first open and click not made by a machine
// (emails/tracking/machine.ts); `opened` and `clicked` stay raw, as Plunk counts them.
const METRICS = sql`(values ('sent', e.sent_at), ('delivered', e.delivered_at), ('opened', e.opened_at),
  ('clicked', e.clicked_at), ('bounced', e.bounced_at), ('complained', e.complained_at),
  ('humanOpened', e.human_opened_at), ('humanClicked', e.human_clicked_at)) as t(kind, at)`;

export type Bucket = {
  date: string;
  sent: number;
  delivered: number;
  opened: number;
  clicked: number;
  bounced: number;
  complained: number;
  humanOpened: number;
  humanClicked: number;
};

/**
 * Email status events per UTC bucket over `[from, to)`, zero-filled with generate_series: each email
 * counts once per status timestamp that falls in the range. Emails are first narrowed on their
 * creation time (every status time is later), which the (project_id, created_at) index serves.
 */
export async function timeseries(db: Db, projectId: string, r: Range, interval: 'day' | 'hour'): Promise<Bucket[]> {
  const from = r.from.toISOString();
  const to = r.to.toISOString();
  const step = `1 ${interval}`;
  const res = await db.execute<Bucket>(sql`
    with b as (
      select generate_series(date_trunc(${interval}, ${from}::timestamptz at time zone 'UTC'),
                             date_trunc(${interval}, (${to}::timestamptz - interval '1 microsecond') at time zone 'UTC'),
                             ${step}::interval) as bucket),
    m as (
      select date_trunc(${interval}, t.at at time zone 'UTC') as bucket,
        count(*) filter (where t.kind = 'sent') as sent, count(*) filter (where t.kind = 'delivered') as delivered,
        count(*) filter (where t.kind = 'opened') as opened, count(*) filter (where t.kind = 'clicked') as clicked,
        count(*) filter (where t.kind = 'bounced') as bounced, count(*) filter (where t.kind = 'complained') as complained,
        count(*) filter (where t.kind = 'humanOpened') as "humanOpened", count(*) filter (where t.kind = 'humanClicked') as "humanClicked"
      from emails e cross join lateral ${METRICS}
      where e.project_id = ${projectId} and e.created_at < ${to}::timestamptz
        and t.at >= ${from}::timestamptz and t.at < ${to}::timestamptz
      group by 1)
    select to_char(b.bucket, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as date,
      coalesce(m.sent, 0) as sent, coalesce(m.delivered, 0) as delivered, coalesce(m.opened, 0) as opened,
      coalesce(m.clicked, 0) as clicked, coalesce(m.bounced, 0) as bounced, coalesce(m.complained, 0) as complained,
      coalesce(m."humanOpened", 0) as "humanOpened", coalesce(m."humanClicked", 0) as "humanClicked"
    from b left join m on m.bucket = b.bucket
    order by b.bucket`);
  return res.rows;
}

export type CampaignRow = {
  id: string;
  name: string;
  subject: string;
  status: string;
  sentAt: string | null;
  sent: number;
  delivered: number;
  opened: number;
  clicked: number;
  bounced: number;
  humanOpened: number;
  humanClicked: number;
};

/** Campaigns whose emails were created in the range, ranked by (raw) opens or clicks. */
export async function topCampaigns(
  db: Db,
  projectId: string,
  r: Range,
  sort: 'opens' | 'clicks',
  limit: number,
): Promise<CampaignRow[]> {
  const order = sort === 'clicks' ? sql`clicked desc, opened desc` : sql`opened desc, clicked desc`;
  const res = await db.execute<CampaignRow>(sql`
    select c.id, c.name, c.subject, c.status, ${isoSql(sql`c.sent_at`)} as "sentAt",
      count(e.sent_at) as sent, count(e.delivered_at) as delivered, count(e.opened_at) as opened,
      count(e.clicked_at) as clicked, count(e.bounced_at) as bounced,
      count(e.human_opened_at) as "humanOpened", count(e.human_clicked_at) as "humanClicked"
    from campaigns c join emails e on e.campaign_id = c.id and e.project_id = ${projectId}
    where c.project_id = ${projectId} and e.created_at >= ${r.from.toISOString()}::timestamptz and e.created_at < ${r.to.toISOString()}::timestamptz
    group by c.id
    order by ${order}, c.created_at desc, c.id
    limit ${limit}`);
  return res.rows;
}

export type CampaignTotals = {
  campaigns: number;
  recipients: number;
  sent: number;
  delivered: number;
  opened: number;
  clicked: number;
  bounced: number;
  complained: number;
  humanOpened: number;
  humanClicked: number;
  byStatus: Record<string, number> | null;
};

/** Totals over the campaign emails created in the range, and the project's campaigns per status. */
export async function campaignTotals(db: Db, projectId: string, r: Range): Promise<CampaignTotals> {
  const res = await db.execute<CampaignTotals>(sql`
    with em as (
      select count(distinct campaign_id) as campaigns, count(*) as recipients, count(sent_at) as sent, count(delivered_at) as delivered,
        count(opened_at) as opened, count(clicked_at) as clicked, count(bounced_at) as bounced, count(complained_at) as complained,
        count(human_opened_at) as "humanOpened", count(human_clicked_at) as "humanClicked"
      from emails where project_id = ${projectId} and campaign_id is not null
        and created_at >= ${r.from.toISOString()}::timestamptz and created_at < ${r.to.toISOString()}::timestamptz),
    st as (select jsonb_object_agg(status, n) as "byStatus" from (select status, count(*) as n from campaigns where project_id = ${projectId} group by status) s)
    select * from em, st`);
  return res.rows[0];
}

/** Event names by count in the range; without `includeSystem`, the service's own events are left out. */
export async function topEvents(db: Db, projectId: string, r: Range, limit: number, includeSystem: boolean) {
  const res = await db.execute<{ name: string; count: number; contacts: number; lastSeen: string }>(sql`
    select name, count(*) as count, count(distinct contact_id) as contacts, ${isoSql(sql`max(created_at)`)} as "lastSeen"
    from events
    where project_id = ${projectId} and created_at >= ${r.from.toISOString()}::timestamptz and created_at < ${r.to.toISOString()}::timestamptz
      ${
        includeSystem
          ? sql``
          : sql`and name not like 'email.%' and name not in ('contact.subscribed', 'contact.unsubscribed')
        and name !~ '^segment\\..+\\.(entry|exit)$'`
      }
    group by name order by count(*) desc, name
    limit ${limit}`);
  return res.rows;
}
