import { and, desc, eq, getTableColumns, inArray, sql, type SQL } from 'drizzle-orm';
import { campaigns, contacts, segmentMembers, segments } from '../db/schema.js';
import { newId } from '../lib/ids.js';
import { contactUpsertEvents, webhookDeliveries } from '../webhook-endpoints/fanout.js';
import type { Tx } from '../db/tx.js';
import { relation } from '../db/relation.js';
import { subscriptionChangeCtes } from '../contacts/subscription.js';
import type { ConsentOrigin } from '../consent/consent.js';

/** SQL of the segments feature; every function takes the project id first. */

export type SegmentRow = typeof segments.$inferSelect;
export type ContactRow = typeof contacts.$inferSelect;

// STATIC counts are read live from segment_members (one index range per segment), so a deleted
// contact (cascade) never leaves a stale count; DYNAMIC counts are the cached column.
const memberCountExpr = sql<number>`case when ${segments.type} = 'STATIC'
  then (select count(*)::int from segment_members sm where sm.segment_id = ${segments.id})
  else ${segments.memberCount} end`;
const selection = { ...getTableColumns(segments), memberCount: memberCountExpr };

export async function getSegment(db: Tx, projectId: string, id: string): Promise<SegmentRow | undefined> {
  const [row] = await db
    .select(selection)
    .from(segments)
    .where(and(eq(segments.projectId, projectId), eq(segments.id, id)))
    .limit(1);
  return row;
}

/** Newest first (`GET /segments` answers a bare array). */
export async function listSegments(db: Tx, projectId: string): Promise<SegmentRow[]> {
  return db
    .select(selection)
    .from(segments)
    .where(eq(segments.projectId, projectId))
    .orderBy(desc(segments.createdAt), desc(segments.id));
}

export async function insertSegment(db: Tx, row: typeof segments.$inferInsert): Promise<void> {
  await db.insert(segments).values(row);
}

export async function updateSegment(
  db: Tx,
  projectId: string,
  id: string,
  patch: Partial<typeof segments.$inferInsert>,
): Promise<void> {
  await db
    .update(segments)
    .set(patch)
    .where(and(eq(segments.projectId, projectId), eq(segments.id, id)));
}

/** Locks the row, so a delete and a campaign that starts using it do not cross. */
export async function lockSegment(db: Tx, projectId: string, id: string): Promise<boolean> {
  const r = await db.execute(sql`select 1 from segments where project_id = ${projectId} and id = ${id} for update`);
  return (r.rowCount ?? 0) > 0;
}

/** Campaigns SCHEDULED or SENDING with this segment as audience (deleting the segment is then 409). */
export async function activeCampaignsUsing(db: Tx, projectId: string, segmentId: string): Promise<number> {
  const [r] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(campaigns)
    .where(
      and(
        eq(campaigns.projectId, projectId),
        eq(campaigns.segmentId, segmentId),
        inArray(campaigns.status, ['SCHEDULED', 'SENDING']),
      ),
    );
  return r.n;
}

export async function deleteSegment(db: Tx, projectId: string, id: string): Promise<void> {
  await db.delete(segments).where(and(eq(segments.projectId, projectId), eq(segments.id, id)));
}

/** Drops the remembered members of a DYNAMIC segment whose tracking was switched off. */
export async function clearMembers(db: Tx, projectId: string, segmentId: string): Promise<void> {
  await db
    .delete(segmentMembers)
    .where(and(eq(segmentMembers.projectId, projectId), eq(segmentMembers.segmentId, segmentId)));
}

/** One page of contacts matching `predicate` (over `c`), newest first, and the total. */
export async function contactsPage(db: Tx, projectId: string, predicate: SQL, page: number, pageSize: number) {
  const offset = (page - 1) * pageSize;
  const rows = await db.execute<ContactRow & { total: number }>(sql`
    select c.id, c.project_id as "projectId", c.email, c.subscribed, c.snoozed_until as "snoozedUntil", c.data,
      c.created_at as "createdAt", c.updated_at as "updatedAt"
    from contacts c where c.project_id = ${projectId} and ${predicate}
    order by c.created_at desc, c.id desc limit ${pageSize} offset ${offset}`);
  const [t] = (
    await db.execute<{ n: number }>(
      sql`select count(*)::int as n from contacts c where c.project_id = ${projectId} and ${predicate}`,
    )
  ).rows;
  return { rows: rows.rows, total: t.n };
}

/** One page of a STATIC segment's members, most recently added first, and the total. */
export async function membersPage(db: Tx, projectId: string, segmentId: string, page: number, pageSize: number) {
  const offset = (page - 1) * pageSize;
  const rows = await db.execute<ContactRow>(sql`
    select c.id, c.project_id as "projectId", c.email, c.subscribed, c.snoozed_until as "snoozedUntil", c.data,
      c.created_at as "createdAt", c.updated_at as "updatedAt"
    from segment_members sm join contacts c on c.id = sm.contact_id
    where sm.segment_id = ${segmentId} and c.project_id = ${projectId}
    order by sm.created_at desc, c.id desc limit ${pageSize} offset ${offset}`);
  const [t] = (
    await db.execute<{ n: number }>(sql`select count(*)::int as n from segment_members where segment_id = ${segmentId}`)
  ).rows;
  return { rows: rows.rows, total: t.n };
}

/**
 * Creates contacts for the addresses that have none (set-based, app ids), with their `contact.created`
 * event webhooks and (created subscribed) their consent entries from `origin` in the same statement;
 * answers how many were created.
 */
export async function createMissingContacts(
  db: Tx,
  projectId: string,
  emails: string[],
  subscribed: boolean,
  now: Date,
  origin: ConsentOrigin,
): Promise<number> {
  const pairs = JSON.stringify(emails.map((e) => [e, newId()]));
  const r = await db.execute<{ n: number }>(sql`
    with up as (
      insert into contacts (id, project_id, email, subscribed, data, created_at, updated_at)
      select (x->>1)::uuid, ${projectId}, x->>0, ${subscribed}, '{}'::jsonb, ${now.toISOString()}::timestamptz, ${now.toISOString()}::timestamptz
      from jsonb_array_elements(${pairs}::jsonb) x
      on conflict (project_id, email) do nothing
      returning id, email, subscribed, data, true as is_new, null::boolean as was_subscribed,
        null::uuid as sub_event_id, created_at as at),
    ${subscriptionChangeCtes('flipped', projectId, relation(sql`up`), origin).def},
    hooks as (${webhookDeliveries(contactUpsertEvents(relation(sql`up`), now), projectId)})
    select count(*)::int as n from up`);
  return r.rows[0].n;
}

/** Adds the project's contacts with these (normalised) emails; answers the emails that exist. */
export async function addMembersByEmail(
  db: Tx,
  projectId: string,
  segmentId: string,
  emails: string[],
  now: Date,
): Promise<string[]> {
  const list = JSON.stringify(emails);
  await db.execute(sql`
    insert into segment_members (segment_id, contact_id, project_id, created_at)
    select ${segmentId}, c.id, ${projectId}, ${now.toISOString()}::timestamptz from contacts c
    where c.project_id = ${projectId} and c.email in (select jsonb_array_elements_text(${list}::jsonb))
    on conflict (segment_id, contact_id) do nothing`);
  const found = await db.execute<{ email: string }>(sql`
    select c.email from contacts c where c.project_id = ${projectId} and c.email in (select jsonb_array_elements_text(${list}::jsonb))`);
  return found.rows.map((r) => r.email);
}

/** Removes members by (normalised) email; answers how many memberships were removed. */
export async function removeMembersByEmail(
  db: Tx,
  projectId: string,
  segmentId: string,
  emails: string[],
): Promise<number> {
  const r = await db.execute(sql`
    delete from segment_members sm using contacts c
    where sm.segment_id = ${segmentId} and c.id = sm.contact_id and c.project_id = ${projectId}
      and c.email in (select jsonb_array_elements_text(${JSON.stringify(emails)}::jsonb))`);
  return r.rowCount ?? 0;
}

/** Stores the live member count of a STATIC segment. */
export async function storeStaticCount(db: Tx, segmentId: string): Promise<number> {
  const r = await db.execute<{ n: number }>(sql`update segments
    set member_count = (select count(*) from segment_members where segment_id = ${segmentId}) where id = ${segmentId} returning member_count as n`);
  return r.rows[0]?.n ?? 0;
}
