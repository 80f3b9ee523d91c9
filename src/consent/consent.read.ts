import { sql } from 'drizzle-orm';
import type { Deps } from '../deps.js';
import { invalid, notFound } from '../http/errors.js';
import { isUuid } from '../lib/ids.js';
import type { ConsentAction, ConsentSource } from './consent.js';

/** One consent entry as `GET /contacts/:id/consent` gives it. */
export type ConsentEntryOut = {
  id: string;
  action: ConsentAction;
  topicId: string | null;
  source: ConsentSource;
  formId: string | null;
  ip: string | null;
  userAgent: string | null;
  createdAt: string;
};

const badCursor = () => invalid('cursor', 'Invalid cursor: pass the cursor of a previous page', 'invalid_string');

/**
 * `GET /contacts/:id/consent`: a page of contact `contactId`'s consent entries, newest first (by id:
 * UUIDv7, so by time), `limit` entries (1..100); `cursor` is the previous page's (the last entry's id,
 * base64url, as the webhook delivery log pages). `total` on the first page only (0 later).
 * @throws AppError 404 for an unknown contact, another project's, or a non-uuid id; 422 for a cursor
 * this endpoint did not issue.
 */
export async function listConsent(
  deps: Deps,
  projectId: string,
  contactId: string,
  q: { limit: number; cursor?: string },
) {
  if (!isUuid(contactId)) throw notFound('Contact');
  let before: string | null = null;
  if (q.cursor) {
    before = Buffer.from(q.cursor, 'base64url').toString();
    if (!isUuid(before)) throw badCursor();
  }
  // The contact's check and the count in one round trip: no contact of the project, no row.
  const found = await deps.db.execute<{ n: number }>(sql`
    select (select count(*)::int from consent_events e where e.contact_id = c.id and e.project_id = c.project_id) as n
    from contacts c where c.id = ${contactId} and c.project_id = ${projectId}`);
  if (!found.rows.length) throw notFound('Contact');
  const rows = await deps.db.execute<ConsentEntryOut>(sql`
    select id, action, topic_id as "topicId", source, form_id as "formId", ip, user_agent as "userAgent",
      to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "createdAt"
    from consent_events
    where contact_id = ${contactId} and project_id = ${projectId} ${before ? sql`and id < ${before}::uuid` : sql``}
    order by id desc limit ${q.limit + 1}`);
  const page = rows.rows.slice(0, q.limit);
  const hasMore = rows.rows.length > q.limit;
  return {
    data: page,
    cursor: hasMore ? Buffer.from(page[page.length - 1].id).toString('base64url') : null,
    hasMore,
    total: q.cursor ? 0 : found.rows[0].n,
  };
}
