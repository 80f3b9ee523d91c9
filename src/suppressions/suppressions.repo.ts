import { sql } from 'drizzle-orm';
import type { Cursor } from '../events/events.cursor.js';
import type { SqlRunner, Tx } from '../db/tx.js';
import type { SuppressionReason } from './reasons.js';

/** A row as the API answers it; `atUs` (created_at in microseconds) keys the cursor. */
export interface SuppressionRow {
  email: string;
  reason: SuppressionReason;
  createdAt: string;
  atUs: number;
}

const COLS = sql.raw(`email, reason,
  to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "createdAt",
  (extract(epoch from created_at) * 1000000)::bigint::text as "atUs"`);

/** Which suppressions a list or an export shows: one reason, and/or addresses containing `search`. */
export interface SuppressionFilter {
  reason?: SuppressionReason;
  /** Part of the address, lower-cased (addresses are stored lower-cased); matched literally, no wildcards. */
  search?: string;
}

const filterSql = (f: SuppressionFilter) =>
  sql`${f.reason ? sql`and reason = ${f.reason}` : sql``} ${f.search ? sql`and strpos(email, ${f.search}) > 0` : sql``}`;

/**
 * One page of the project's suppressions, newest first, `limit + 1` rows (the extra one says more
 * follow), walking (created_at, email) on `suppressions_project_created_idx`.
 */
export async function listPage(
  db: SqlRunner,
  projectId: string,
  a: { limit: number; after?: Cursor } & SuppressionFilter,
): Promise<SuppressionRow[]> {
  const r = await db.execute<Omit<SuppressionRow, 'atUs'> & { atUs: string }>(sql`select ${COLS} from suppressions
    where project_id = ${projectId} ${filterSql(a)}
      ${a.after ? sql`and (created_at, email) < (${a.after.at}::timestamptz, ${a.after.key})` : sql``}
    order by created_at desc, email desc limit ${a.limit + 1}`);
  return r.rows.map((x) => ({ ...x, atUs: Number(x.atUs) }));
}

/**
 * {@link listPage} for a walk over every page (the export): the planner is told not to sort, so each
 * page is read in the index's order. Without it, a project whose rows grew faster than the table's
 * statistics (a large import) gets a bitmap scan that sorts every remaining row for each page:
 * 140,000 rows took 28 s to export instead of 2 s.
 */
export async function walkPage(
  db: Tx,
  projectId: string,
  a: { limit: number; after?: Cursor } & SuppressionFilter,
): Promise<SuppressionRow[]> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`set local enable_sort = off`);
    return listPage(tx, projectId, a);
  });
}

/** How many suppressions match (first page only). */
export async function count(db: SqlRunner, projectId: string, f: SuppressionFilter): Promise<number> {
  const r = await db.execute<{ n: number }>(sql`select count(*)::int as n from suppressions
    where project_id = ${projectId} ${filterSql(f)}`);
  return r.rows[0].n;
}

/**
 * Adds the (normalised, distinct) addresses in one statement; addresses already suppressed keep
 * their reason and time. @returns how many were added.
 */
export async function addMany(
  db: SqlRunner,
  projectId: string,
  emails: string[],
  reason: SuppressionReason,
  at: Date,
): Promise<number> {
  const r = await db.execute<{ n: number }>(sql`with ins as (
      insert into suppressions (project_id, email, reason, created_at)
      select ${projectId}::uuid, e, ${reason}, ${at.toISOString()}::timestamptz
      from jsonb_array_elements_text(${JSON.stringify(emails)}::jsonb) as e
      on conflict (project_id, email) do nothing returning 1)
    select count(*)::int as n from ins`);
  return r.rows[0].n;
}

/**
 * Adds one address (trimmed and lower-cased, like contacts' addresses) with `reason`; an address
 * already suppressed keeps its first reason and time. @returns whether it was added.
 */
export async function add(
  db: SqlRunner,
  projectId: string,
  email: string,
  reason: SuppressionReason,
  at: Date,
): Promise<boolean> {
  const r = await db.execute(sql`insert into suppressions (project_id, email, reason, created_at)
    values (${projectId}, ${email.trim().toLowerCase()}, ${reason}, ${at.toISOString()}::timestamptz)
    on conflict (project_id, email) do nothing`);
  return (r.rowCount ?? 0) > 0;
}

/** Removes one address; false when it was not suppressed. */
export async function remove(db: SqlRunner, projectId: string, email: string): Promise<boolean> {
  const r = await db.execute(sql`delete from suppressions where project_id = ${projectId} and email = ${email}`);
  return (r.rowCount ?? 0) > 0;
}

/** The suppression of one (normalised) address, by primary key. */
export async function find(
  db: SqlRunner,
  projectId: string,
  email: string,
): Promise<Pick<SuppressionRow, 'reason' | 'createdAt'> | undefined> {
  const r = await db.execute<Pick<SuppressionRow, 'reason' | 'createdAt'>>(sql`select reason,
      to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "createdAt"
    from suppressions where project_id = ${projectId} and email = ${email}`);
  return r.rows[0];
}

/**
 * Moves the suppression of `email` (normalised) to `erased`, its keyed hash (suppressions/erased.ts),
 * keeping reason and time: erasure (contacts/erase.ts) forgets the address while it stays suppressed.
 * @returns how many rows were moved (0 or 1).
 */
export async function rekeyAsErased(db: SqlRunner, projectId: string, email: string, erased: string): Promise<number> {
  const r =
    await db.execute(sql`with moved as (delete from suppressions where project_id = ${projectId} and email = ${email}
      returning reason, created_at)
    insert into suppressions (project_id, email, reason, created_at)
    select ${projectId}, ${erased}, reason, created_at from moved
    on conflict (project_id, email) do nothing`);
  return r.rowCount ?? 0;
}
