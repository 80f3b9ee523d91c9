import { normalizeEmail } from '../contacts/contact-data.js';
import type { Deps } from '../deps.js';
import { decodeCursor, encodeCursor, usToIso, type Cursor } from '../events/events.cursor.js';
import { notFound } from '../http/errors.js';
import type { SqlRunner } from '../db/tx.js';
import type { SuppressionReason } from './reasons.js';
import * as repo from './suppressions.repo.js';
import type { ExportSuppressionsQuery, ListSuppressionsQuery } from './suppressions.schema.js';
import { csvLine } from '../lib/csv.js';
import { parseSuppressionCsv } from './import.js';

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
    repo.listPage(deps.db, projectId, { limit, reason: q.reason, search: q.search, after }),
    after ? 0 : repo.count(deps.db, projectId, { reason: q.reason, search: q.search }),
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

/** Rows per query of an export: one page of the keyset walk. */
const EXPORT_PAGE = 2000;

/**
 * `GET /suppressions/export`: the CSV `email,reason,createdAt` of every suppression matching `f`,
 * newest first, as an iterator of text pieces (one per {@link EXPORT_PAGE} rows, each its own
 * query), so a list of any length is streamed in bounded memory. Cells are escaped by csv.ts.
 */
export async function* exportCsv(deps: Deps, projectId: string, f: ExportSuppressionsQuery): AsyncGenerator<string> {
  yield csvLine(['email', 'reason', 'createdAt']);
  let after: Cursor | undefined;
  for (;;) {
    const rows = await repo.walkPage(deps.db, projectId, { limit: EXPORT_PAGE, ...f, after });
    const page = rows.slice(0, EXPORT_PAGE);
    if (page.length) yield page.map((r) => csvLine([r.email, r.reason, r.createdAt])).join('');
    const last = page.at(-1);
    if (rows.length <= EXPORT_PAGE || !last) return;
    after = { at: usToIso(last.atUs), key: last.email };
  }
}

/**
 * `POST /suppressions/import`: the addresses of a CSV file read by import.ts, added in one
 * transaction (all of them or, on a failure, none); rows without a valid address are reported and
 * not added. @throws AppError 422 for a file that cannot be read as a list of addresses.
 */
export async function importSuppressions(deps: Deps, projectId: string, file: Buffer, reason: SuppressionReason) {
  const parsed = await parseSuppressionCsv(file, reason);
  const now = deps.clock.now();
  let added = 0;
  let distinct = 0;
  await deps.db.transaction(async (tx) => {
    for (const [r, emails] of parsed.byReason) {
      distinct += emails.length;
      added += await repo.addMany(tx, projectId, emails, r, now);
    }
  });
  return {
    rows: parsed.rows,
    added,
    alreadySuppressed: distinct - added,
    skipped: parsed.skipped,
    failed: parsed.failed,
    errors: parsed.errors,
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
