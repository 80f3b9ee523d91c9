import { normalizeEmail } from '../contacts/contact-data.js';
import type { Deps } from '../deps.js';
import { decodeCursor, encodeCursor } from '../events/events.cursor.js';
import { notFound } from '../http/errors.js';
import type { SqlRunner } from '../db/tx.js';
import type { SuppressionReason } from './reasons.js';
import * as repo from './suppressions.repo.js';
import type { ListSuppressionsQuery } from './suppressions.schema.js';

/**
 * The suppression list of a project: addresses that get no MARKETING mail (campaigns, marketing
 * templates of `/v1/send` and workflows), whatever their contact's subscription. The rule itself is
 * applied in one place, src/emails/eligibility.ts. TRANSACTIONAL and HEADLESS mail still goes to a
 * suppressed address (it was asked for: a receipt, a password reset). Addresses are stored trimmed and
 * lower-cased, as contacts' are, and the list outlives the contacts.
 */

const EMAIL_KEY = /^.{1,320}$/s;

/**
 * `GET /suppressions`: newest first in the cursor envelope `{data, cursor, hasMore, total}` (total on
 * the first page only), optionally one `reason`. @throws AppError 422 for a cursor it did not issue.
 */
export async function listSuppressions(deps: Deps, projectId: string, q: ListSuppressionsQuery) {
  const limit = Math.min(100, q.limit);
  const after = q.cursor ? decodeCursor(q.cursor, EMAIL_KEY) : undefined;
  const [rows, total] = await Promise.all([
    repo.listPage(deps.db, projectId, { limit, reason: q.reason, after }),
    after ? 0 : repo.count(deps.db, projectId, q.reason),
  ]);
  const hasMore = rows.length > limit;
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    data: page.map(({ email, reason, createdAt }) => ({ email, reason, createdAt })),
    cursor: hasMore && last ? encodeCursor(last.atUs, last.email) : null,
    hasMore,
    total,
  };
}

/**
 * `POST /suppressions`: adds up to 1,000 addresses (already normalised and checked by the schema;
 * duplicates counted once) with `reason`. An address already on the list keeps its first reason.
 * Contacts are not changed: suppression stops marketing mail on its own.
 */
export async function addSuppressions(deps: Deps, projectId: string, emails: string[], reason: SuppressionReason) {
  const distinct = [...new Set(emails)];
  const added = await repo.addMany(deps.db, projectId, distinct, reason, deps.clock.now());
  return { added, alreadySuppressed: distinct.length - added };
}

/**
 * `DELETE /suppressions/:email` (the address URL-encoded, any case): marketing mail may go to it
 * again if its contact is subscribed. @throws AppError 404 when the address is not suppressed.
 */
export async function removeSuppression(deps: Deps, projectId: string, email: string): Promise<void> {
  if (!(await repo.remove(deps.db, projectId, normalizeEmail(email)))) throw notFound('Suppression');
}

/** The `suppression` field of a contact: `{reason, createdAt}` of its address, or null. */
export async function suppressionOf(db: SqlRunner, projectId: string, email: string) {
  return (await repo.find(db, projectId, normalizeEmail(email))) ?? null;
}
