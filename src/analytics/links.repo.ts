import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/pool.js';

/** Clicks of one tracked link (one URL at one position) of a campaign's or a workflow step's mail. */
export type LinkStats = {
  url: string;
  /** 0-based position among the mail's tracked links; null for clicks of links sent before positions were recorded. */
  position: number | null;
  /** `email.click` events (machine ones included, like Plunk's raw counts). */
  clicks: number;
  /** Distinct emails with a click. */
  uniqueClicks: number;
  /** Distinct emails with a click that is not machine activity (emails/tracking/machine.ts). */
  humanClicks: number;
};

/**
 * Per-link figures over the `email_link_clicks` rows `where` selects (one per email, position and
 * URL, kept by delivery/outcomes.ts recordClick), ordered by position (unknown last), then URL.
 */
function linkStats(db: Db, where: SQL): Promise<{ rows: LinkStats[] }> {
  return db.execute<LinkStats>(sql`
    select url, position, sum(clicks) as clicks, count(*) as "uniqueClicks",
      count(*) filter (where human_clicks > 0) as "humanClicks"
    from email_link_clicks
    where ${where}
    group by url, position
    order by position nulls last, url`);
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

/** Per-link clicks of a campaign's mail (through `email_link_clicks_campaign_idx`). */
export async function campaignLinks(db: Db, projectId: string, campaignId: string): Promise<LinkStats[]> {
  return (await linkStats(db, sql`campaign_id = ${campaignId} and project_id = ${projectId}`)).rows;
}

/**
 * Per-link clicks of the mail a workflow's SEND_EMAIL step queued (`emails.workflow_step_id`, through
 * `email_link_clicks_step_idx`).
 */
export async function stepLinks(db: Db, projectId: string, stepId: string): Promise<LinkStats[]> {
  return (await linkStats(db, sql`workflow_step_id = ${stepId} and project_id = ${projectId}`)).rows;
}
