import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/pool.js';
import type { SqlRunner } from '../db/tx.js';
import { containsPattern } from '../lib/like.js';
import type { ContactRow } from './contacts.upsert.js';

/** Columns of a contact in the shape of {@link ContactRow}. */
const COLS = sql.raw(`id, project_id as "projectId", email, subscribed, snoozed_until as "snoozedUntil", data,
  created_at as "createdAt", updated_at as "updatedAt"`);

type RawContact = Omit<ContactRow, 'createdAt' | 'updatedAt' | 'snoozedUntil'> & {
  createdAt: string | Date;
  updatedAt: string | Date;
  snoozedUntil: string | Date | null;
};

/** Turns a raw `execute` row (timestamps as strings) into a {@link ContactRow}. */
export function toContact(r: RawContact): ContactRow {
  return {
    id: r.id,
    projectId: r.projectId,
    email: r.email,
    subscribed: r.subscribed,
    data: r.data ?? {},
    snoozedUntil: r.snoozedUntil ? new Date(r.snoozedUntil) : null,
    createdAt: new Date(r.createdAt),
    updatedAt: new Date(r.updatedAt),
  };
}

/** One contact of the project, optionally locked `FOR UPDATE` (in a transaction). */
export async function getContact(
  db: SqlRunner,
  projectId: string,
  id: string,
  lock = false,
): Promise<ContactRow | undefined> {
  const r = await db.execute<RawContact>(sql`select ${COLS} from contacts
    where project_id = ${projectId} and id = ${id} ${lock ? sql`for update` : sql``}`);
  return r.rows[0] ? toContact(r.rows[0]) : undefined;
}

/** The id of the project's contact with this (normalised) email, if any. */
export async function idByEmail(db: SqlRunner, projectId: string, email: string): Promise<string | undefined> {
  const r = await db.execute<{ id: string }>(
    sql`select id from contacts where project_id = ${projectId} and email = ${email}`,
  );
  return r.rows[0]?.id;
}

/** A PATCH's email and data; the subscription is changed by contacts/subscription.ts. */
export interface ContactUpdate {
  email?: string;
  set: Record<string, unknown>;
  unset: string[];
  now: Date;
}

/**
 * Applies a PATCH in one statement: `data || set - unset` (keys merge in, `null` deletes a key).
 * @throws the pg unique violation (23505) when the new email is taken; the service maps it to 409.
 */
export async function updateContact(
  db: SqlRunner,
  projectId: string,
  id: string,
  u: ContactUpdate,
): Promise<ContactRow | undefined> {
  const r = await db.execute<RawContact>(sql`update contacts set
      email = coalesce(${u.email ?? null}::text, email),
      data = (data || ${JSON.stringify(u.set)}::jsonb) - array(select jsonb_array_elements_text(${JSON.stringify(u.unset)}::jsonb)),
      updated_at = ${u.now.toISOString()}
    where project_id = ${projectId} and id = ${id}
    returning ${COLS}`);
  return r.rows[0] ? toContact(r.rows[0]) : undefined;
}

/** Deletes one contact; false when it is not in the project. */
export async function deleteContact(db: SqlRunner, projectId: string, id: string): Promise<boolean> {
  const r = await db.execute(sql`delete from contacts where project_id = ${projectId} and id = ${id}`);
  return (r.rowCount ?? 0) > 0;
}

export type SortKey = 'createdAt' | 'email';
export type SortDir = 'asc' | 'desc';

export interface ListFilter {
  search?: string;
  subscribed?: boolean;
}

export interface ListArgs extends ListFilter {
  sort: SortKey;
  dir: SortDir;
  limit: number;
  /** Keyset position after which the page starts: the sort key (as text) and the id of the last row. */
  after?: { key: string; id: string };
}

/**
 * The name fields of a contact's data as one lower-cased text, the expression of the trigram index
 * `contacts_name_trgm` (migration 0017): it must stay character for character the same, or the
 * planner no longer uses the index.
 */
const NAME_TEXT = sql.raw(
  `lower(coalesce("data"->>'firstName', '') || ' ' || coalesce("data"->>'lastName', '') || ' ' || ` +
    `coalesce("data"->>'name', '') || ' ' || coalesce("data"->>'first_name', '') || ' ' || ` +
    `coalesce("data"->>'last_name', ''))`,
);

/**
 * The WHERE of the list filters. A search matches the email or the name fields (firstName, lastName,
 * name, first_name, last_name) as a substring, case-insensitively: `contacts_email_trgm` and
 * `contacts_name_trgm` answer the two sides (a BitmapOr), so it stays an index scan.
 */
export function filterSql(projectId: string, f: ListFilter): SQL {
  const parts: SQL[] = [sql`project_id = ${projectId}`];
  if (f.subscribed !== undefined) parts.push(sql`subscribed = ${f.subscribed}`);
  if (f.search) {
    // Emails are stored lower-cased, so LIKE on the lower-cased term is case-insensitive.
    const pattern = containsPattern(f.search.toLowerCase());
    parts.push(sql`(email like ${pattern} escape '\\' or ${NAME_TEXT} like ${pattern} escape '\\')`);
  }
  return sql.join(parts, sql` and `);
}

/**
 * One keyset page of GET /contacts: `limit + 1` rows so the caller knows whether more
 * follow. createdAt pages walk (created_at, id) on `contacts_project_created_idx`; email pages walk
 * email alone on the unique (project_id, email) index, since email is unique within a project and so
 * already a total order. Each row carries `sortKey`, the sort column as text (timestamps with their
 * microseconds, which a JS Date would lose).
 */
export async function listPage(
  db: Db,
  projectId: string,
  a: ListArgs,
): Promise<Array<ContactRow & { sortKey: string }>> {
  const where = [filterSql(projectId, a)];
  const cmp = a.dir === 'asc' ? sql`>` : sql`<`;
  const d = sql.raw(a.dir);
  let order: SQL;
  let keyCol: SQL;
  if (a.sort === 'email') {
    keyCol = sql`email`;
    if (a.after) where.push(sql`email ${cmp} ${a.after.key}`);
    order = sql`email ${d}`;
  } else {
    keyCol = sql`created_at::text`;
    if (a.after) where.push(sql`(created_at, id) ${cmp} (${a.after.key}::timestamptz, ${a.after.id}::uuid)`);
    order = sql`created_at ${d}, id ${d}`;
  }
  const r = await db.execute<RawContact & { sortKey: string }>(sql`select ${COLS}, ${keyCol} as "sortKey"
    from contacts where ${sql.join(where, sql` and `)} order by ${order} limit ${a.limit + 1}`);
  return r.rows.map((row) => ({ ...toContact(row), sortKey: row.sortKey }));
}

/**
 * Number of the project's contacts matching the list filters (first page only), exact. Unfiltered,
 * it is the sum of the project's `contact_counts` deltas (kept by triggers in the same transactions
 * as the contacts, so exact in this snapshot) instead of a `count(*)` that reads a whole project.
 */
export async function countContacts(db: Db, projectId: string, f: ListFilter): Promise<number> {
  const r =
    f.search === undefined && f.subscribed === undefined
      ? await db.execute<{ n: number }>(
          sql`select coalesce(sum(n), 0)::int as n from contact_counts where project_id = ${projectId}`,
        )
      : await db.execute<{ n: number }>(sql`select count(*)::int as n from contacts where ${filterSql(projectId, f)}`);
  return r.rows[0].n;
}

/**
 * Folds each project's `contact_counts` deltas into one row (projects with a single row are left
 * alone). One statement: a delta committed meanwhile is not deleted, so it stays and counts; two
 * runs at once cannot both fold the same rows (the second skips rows the first deleted).
 * @returns how many projects had their rows folded.
 */
export async function compactContactCounts(db: Db): Promise<number> {
  const r = await db.execute(sql`with folded as (
      delete from contact_counts where project_id in (
        select project_id from contact_counts group by project_id having count(*) > 1)
      returning project_id, n)
    insert into contact_counts (project_id, n)
    select project_id, sum(n)::int from folded group by project_id`);
  return r.rowCount ?? 0;
}

/** Which of `emails` (normalised) exist in the project: one query over the unique index. */
export async function lookupEmails(db: Db, projectId: string, emails: string[]): Promise<Map<string, string>> {
  const r = await db.execute<{ email: string; id: string }>(sql`select c.email, c.id from contacts c
    where c.project_id = ${projectId}
      and c.email in (select jsonb_array_elements_text(${JSON.stringify(emails)}::jsonb))`);
  return new Map(r.rows.map((x) => [x.email, x.id]));
}
