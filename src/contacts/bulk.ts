import { sql } from 'drizzle-orm';
import type { Db } from '../db/pool.js';
import { recordEvent } from '../events/emit.js';
import { queueWebhookDeliveries } from '../webhook-endpoints/fanout.js';
import type { JobKind, JobResult } from './jobs.repo.js';

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
export type BulkKind = Exclude<JobKind, 'import'>;

/**
 * Runs a bulk action over up to 1,000 contact ids of the project, set-based: one
 * statement does the action and reports which ids changed and which are not in the project. Subscribe
 * and unsubscribe only touch contacts whose state differs and record `contact.subscribed` /
 * `contact.unsubscribed` for exactly those (through `recordEvent`, the one place events are written).
 * Result: `processed` ids, `updated` contacts changed (deleted, for bulk-delete, also in `deleted`),
 * `skipped` already in the wanted state, `failed` ids not found, with `errors: [{id, message}]`.
 */
export async function runBulk(tx: Tx, projectId: string, kind: BulkKind, contactIds: string[], now: Date): Promise<JobResult> {
  const ids = JSON.stringify([...new Set(contactIds)]);
  const at = now.toISOString();
  const action = kind === 'bulk-delete'
    ? sql`delete from contacts c where c.project_id = ${projectId} and c.id in (select id from ids) returning c.id`
    : sql`update contacts c set subscribed = ${kind === 'bulk-subscribe'}, updated_at = ${at}
        where c.project_id = ${projectId} and c.id in (select id from ids) and c.subscribed <> ${kind === 'bulk-subscribe'}
        returning c.id`;
  // The `missing` probe reads the statement's snapshot, i.e. the rows as they were before the action.
  const r = await tx.execute<{ changed: string[]; missing: string[]; total: number }>(sql`
    with ids as (select distinct x::uuid as id from jsonb_array_elements_text(${ids}::jsonb) x),
    changed as (${action})
    select (select coalesce(jsonb_agg(id), '[]') from changed) as changed,
      (select coalesce(jsonb_agg(i.id), '[]') from ids i
        where not exists (select 1 from contacts c where c.project_id = ${projectId} and c.id = i.id)) as missing,
      (select count(*)::int from ids) as total`);
  const { changed, missing, total } = r.rows[0];
  if (kind !== 'bulk-delete') {
    const name = kind === 'bulk-subscribe' ? 'contact.subscribed' : 'contact.unsubscribed';
    for (const contactId of changed) await recordEvent(tx, { projectId, contactId, name, data: { source: kind }, createdAt: now });
  } else {
    await queueWebhookDeliveries(tx, projectId, changed.map((contactId) => ({ type: 'contact.deleted', contactId, data: { source: kind }, at: now })));
  }
  return {
    processed: total,
    created: 0,
    updated: changed.length,
    skipped: total - changed.length - missing.length,
    failed: missing.length,
    errors: missing.map((id) => ({ id, message: 'Contact not found' })),
    ...(kind === 'bulk-delete' ? { deleted: changed.length } : {}),
  };
}
