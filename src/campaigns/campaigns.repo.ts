import { and, asc, count, desc, eq, ilike, or, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/pool.js';
import { campaigns } from '../db/schema.js';
import { containsPattern } from '../lib/like.js';
import type { ListCampaignsQuery } from './campaigns.schema.js';
import type { Tx } from '../db/tx.js';

/** SQL of campaigns; every function takes the project id first where a project applies. */

export type CampaignRow = typeof campaigns.$inferSelect;
export type NewCampaignRow = typeof campaigns.$inferInsert;

export async function getCampaign(db: Tx, projectId: string, id: string): Promise<CampaignRow | undefined> {
  const [row] = await db
    .select()
    .from(campaigns)
    .where(and(eq(campaigns.projectId, projectId), eq(campaigns.id, id)))
    .limit(1);
  return row;
}

/** The campaign row locked for the rest of the transaction (status changes serialise on it). */
export async function lockCampaign(tx: Tx, projectId: string, id: string): Promise<CampaignRow | undefined> {
  const [row] = await tx
    .select()
    .from(campaigns)
    .where(and(eq(campaigns.projectId, projectId), eq(campaigns.id, id)))
    .for('update')
    .limit(1);
  return row;
}

/** A campaign by id only, unlocked (jobs carry the campaign id alone). */
export async function getCampaignById(db: Tx, id: string): Promise<CampaignRow | undefined> {
  const [row] = await db.select().from(campaigns).where(eq(campaigns.id, id)).limit(1);
  return row;
}

/** Same, by id only (jobs carry the campaign id alone). */
export async function lockCampaignById(tx: Tx, id: string): Promise<CampaignRow | undefined> {
  const [row] = await tx.select().from(campaigns).where(eq(campaigns.id, id)).for('update').limit(1);
  return row;
}

export async function insertCampaign(db: Tx, row: NewCampaignRow): Promise<CampaignRow> {
  const [created] = await db.insert(campaigns).values(row).returning();
  return created;
}

export async function updateCampaign(
  db: Tx,
  projectId: string,
  id: string,
  patch: Partial<NewCampaignRow>,
): Promise<CampaignRow | undefined> {
  const [row] = await db
    .update(campaigns)
    .set(patch)
    .where(and(eq(campaigns.projectId, projectId), eq(campaigns.id, id)))
    .returning();
  return row;
}

export async function deleteCampaign(db: Tx, projectId: string, id: string): Promise<void> {
  await db.delete(campaigns).where(and(eq(campaigns.projectId, projectId), eq(campaigns.id, id)));
}

/** One page of campaigns and the total matching the filters: two queries. */
export async function listCampaigns(
  db: Db,
  projectId: string,
  q: ListCampaignsQuery & { status?: string },
): Promise<{ rows: CampaignRow[]; total: number }> {
  const conds: SQL[] = [eq(campaigns.projectId, projectId)];
  if (q.status) conds.push(eq(campaigns.status, q.status as CampaignRow['status']));
  if (q.search?.trim()) {
    const p = containsPattern(q.search.trim());
    conds.push(or(ilike(campaigns.name, p), ilike(campaigns.subject, p), ilike(campaigns.from, p))!);
  }
  const where = and(...conds);
  const col =
    q.sort === 'name'
      ? sql`lower(${campaigns.name})`
      : q.sort === 'updatedAt'
        ? campaigns.updatedAt
        : campaigns.createdAt;
  const order = q.dir === 'asc' ? [asc(col), asc(campaigns.id)] : [desc(col), desc(campaigns.id)];
  const [rows, [{ n }]] = await Promise.all([
    db
      .select()
      .from(campaigns)
      .where(where)
      .orderBy(...order)
      .limit(q.pageSize)
      .offset((q.page - 1) * q.pageSize),
    db.select({ n: count() }).from(campaigns).where(where),
  ]);
  return { rows, total: n };
}

/** Live counts of a campaign's emails (test sends are never campaign rows, so never counted). */
export type EmailCounts = {
  total: number;
  sent: number;
  /** Delivered as an SMTP server's acceptance or the feedback loop says (`delivered_at` is set). */
  delivered: number;
  /**
   * Delivered as the feedback loop confirmed it (an SES `Delivery` notification or a DSN `Action:
   * delivered`): `delivered_at` differs from `sent_at`, since the hand-off of an SMTP relay stamps both
   * with the same instant in one statement (emails/delivery/outcomes.ts `markSentMany`), while feedback
   * stamps the time it arrived.
   */
  confirmedDelivered: number;
  opened: number;
  clicked: number;
  /** Opened, clicked by a person: machine activity left out (emails/tracking/machine.ts). */
  humanOpened: number;
  humanClicked: number;
  bounced: number;
  complained: number;
  failed: number;
  /** Skipped by the marketing rule when claimed for sending (the contact left after the fan-out). */
  suppressed: number;
  pending: number;
};

const ZERO: EmailCounts = {
  total: 0,
  sent: 0,
  delivered: 0,
  confirmedDelivered: 0,
  opened: 0,
  clicked: 0,
  humanOpened: 0,
  humanClicked: 0,
  bounced: 0,
  complained: 0,
  failed: 0,
  suppressed: 0,
  pending: 0,
};

/**
 * The counters of each campaign in `ids`, in one aggregate over `emails` (served by
 * `emails_campaign_status_idx`). Timestamps, not statuses, decide "was sent / delivered / opened /
 * clicked", since a status moves on (a clicked email was delivered and opened too).
 */
export async function countEmails(db: Tx, projectId: string, ids: string[]): Promise<Map<string, EmailCounts>> {
  const out = new Map<string, EmailCounts>();
  if (!ids.length) return out;
  const r = await db.execute<EmailCounts & { campaign_id: string }>(sql`
    select campaign_id, count(*)::int as total,
      count(*) filter (where sent_at is not null)::int as sent,
      count(*) filter (where delivered_at is not null)::int as delivered,
      count(*) filter (where delivered_at is distinct from sent_at and delivered_at is not null)::int as "confirmedDelivered",
      count(*) filter (where opened_at is not null)::int as opened,
      count(*) filter (where clicked_at is not null)::int as clicked,
      count(*) filter (where human_opened_at is not null)::int as "humanOpened",
      count(*) filter (where human_clicked_at is not null)::int as "humanClicked",
      count(*) filter (where bounced_at is not null or status = 'BOUNCED')::int as bounced,
      count(*) filter (where complained_at is not null or status = 'COMPLAINED')::int as complained,
      count(*) filter (where status = 'FAILED')::int as failed,
      count(*) filter (where status = 'SUPPRESSED')::int as suppressed,
      count(*) filter (where status in ('PENDING', 'SENDING'))::int as pending
    from emails
    where campaign_id in (select jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb)::uuid)
      and project_id = ${projectId}
    group by campaign_id`);
  for (const id of ids) out.set(id, ZERO);
  for (const row of r.rows) out.set(row.campaign_id, row);
  return out;
}

/** Stores the live counters on the row, for readers of the table (analytics) that do not aggregate. */
export async function storeCounters(db: Tx, id: string, c: EmailCounts): Promise<void> {
  // updated_at is left alone: counters are not an edit, and lists sort by it.
  await db
    .update(campaigns)
    .set({
      sentCount: c.sent,
      deliveredCount: c.delivered,
      openedCount: c.opened,
      clickedCount: c.clicked,
      bouncedCount: c.bounced,
    })
    .where(eq(campaigns.id, id));
}
