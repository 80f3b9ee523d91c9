import { sql } from 'drizzle-orm';
import { queueWebhookDeliveries } from '../webhook-endpoints/fanout.js';
import type { JobKind, JobResult } from './jobs.repo.js';
import { setSubscription } from './subscription.js';
import type { SqlRunner } from '../db/tx.js';
import type { ConsentOrigin } from '../consent/consent.js';
export type BulkKind = Exclude<JobKind, 'import'>;

/**
 * Runs a bulk action over up to 1,000 contact ids of the project, set-based. Subscribe and unsubscribe
 * are subscription changes (subscription.ts: only contacts whose state differs, each with its
 * `contact.subscribed` / `contact.unsubscribed` event, `data.source` the action, its consent entry
 * from `origin`, and its `contact.updated`); delete queues `contact.deleted`.
 * Result: `processed` ids, `updated` contacts changed (deleted, for bulk-delete, also in `deleted`),
 * `skipped` already in the wanted state, `failed` ids not found, with `errors: [{id, message}]`.
 */
export async function runBulk(
  tx: SqlRunner,
  projectId: string,
  kind: BulkKind,
  contactIds: string[],
  now: Date,
  origin: ConsentOrigin,
): Promise<JobResult> {
  const ids = JSON.stringify([...new Set(contactIds)]);
  // Read before the action, so a deleted contact is not also counted missing.
  const r = await tx.execute<{ missing: string[]; total: number }>(sql`
    with ids as (select distinct x::uuid as id from jsonb_array_elements_text(${ids}::jsonb) x)
    select (select coalesce(jsonb_agg(i.id), '[]') from ids i
        where not exists (select 1 from contacts c where c.project_id = ${projectId} and c.id = i.id)) as missing,
      (select count(*)::int from ids) as total`);
  const { missing, total } = r.rows[0];
  let changed: string[];
  if (kind === 'bulk-delete') {
    const d = await tx.execute<{ id: string }>(sql`delete from contacts c where c.project_id = ${projectId}
      and c.id in (select x::uuid from jsonb_array_elements_text(${ids}::jsonb) x) returning c.id`);
    changed = d.rows.map((x) => x.id);
    await queueWebhookDeliveries(
      tx,
      projectId,
      changed.map((contactId) => ({ type: 'contact.deleted', contactId, data: { source: kind }, at: now })),
    );
  } else {
    const moved = await setSubscription(tx, projectId, contactIds, kind === 'bulk-subscribe', now, {
      origin,
      eventData: { source: kind },
    });
    changed = moved.map((c) => c.id);
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
