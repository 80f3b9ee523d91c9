import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/pool.js';

/** Clicks of one tracked link (one URL at one position) of a campaign's or a workflow step's mail. */
export type LinkStats = {
  url: string;
  /** 0-based position among the mail's tracked links; null for clicks of links sent before positions were recorded. */
  position: number | null;
  /** `email.click` events (machine ones included: Plunk's raw count). */
  clicks: number;
  /** Distinct emails with a click. */
  uniqueClicks: number;
  /** Distinct emails with a click that is not machine activity (emails/tracking/machine.ts). */
  humanClicks: number;
};

/**
 * Per-link figures over the `email.click` events `from` and `where` select (a click event carries
 * `{link, position, machine}`: delivery/outcomes.ts recordClick), ordered by position (unknown last),
 * then URL. An event without `machine` (recorded before issue 36) counts as human, as it did then.
 */
function linkStats(db: Db, from: SQL, where: SQL): Promise<{ rows: LinkStats[] }> {
  // Two levels instead of count(distinct): one row per link and email first (hashed), then per link;
  // a count(distinct) would sort every click with its whole `data`, spilling to disk at 100,000s.
  return db.execute<LinkStats>(sql`
    select url, position, sum(n) as clicks, count(*) as "uniqueClicks", count(*) filter (where human) as "humanClicks"
    from (
      select ev.data->>'link' as url, (ev.data->>'position')::int as position, count(*) as n,
        bool_or((ev.data->>'machine') is distinct from 'true') as human
      from ${from}
      where ev.name = 'email.click' and ${where}
      group by 1, 2, ev.email_id) per_email
    group by 1, 2
    order by 2 nulls last, 1`);
}

/** True when campaign `campaignId` is project `projectId`'s (a plain look-up: the campaigns feature is not asked). */
export async function campaignIsProjects(db: Db, projectId: string, campaignId: string): Promise<boolean> {
  const res = await db.execute(sql`select 1 from campaigns where id = ${campaignId} and project_id = ${projectId}`);
  return res.rows.length > 0;
}

/** True when step `stepId` belongs to workflow `workflowId` of project `projectId`. */
export async function stepIsProjects(db: Db, projectId: string, workflowId: string, stepId: string): Promise<boolean> {
  const res = await db.execute(sql`
    select 1 from workflow_steps s join workflows w on w.id = s.workflow_id
    where s.id = ${stepId} and s.workflow_id = ${workflowId} and w.project_id = ${projectId}`);
  return res.rows.length > 0;
}

/**
 * Per-link clicks of a campaign's mail: its click events through the partial index on
 * `events (campaign_id, name)` (migration 0028).
 */
export async function campaignLinks(db: Db, projectId: string, campaignId: string): Promise<LinkStats[]> {
  const res = await linkStats(db, sql`events ev`, sql`ev.campaign_id = ${campaignId} and ev.project_id = ${projectId}`);
  return res.rows;
}

/**
 * Per-link clicks of the mail a workflow's SEND_EMAIL step queued: click events carry the step
 * (`workflowStepId`, from `emails.workflow_step_id`), read through the partial expression index
 * `events_click_step_idx` (migration 0028), so the step's emails are not joined.
 */
export async function stepLinks(db: Db, projectId: string, stepId: string): Promise<LinkStats[]> {
  const res = await linkStats(
    db,
    sql`events ev`,
    sql`ev.data->>'workflowStepId' = ${stepId} and ev.project_id = ${projectId}`,
  );
  return res.rows;
}
