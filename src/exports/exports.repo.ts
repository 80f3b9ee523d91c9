import { sql } from 'drizzle-orm';
import type { SqlRunner } from '../db/tx.js';
import type { ExportKind, ExportState } from '../db/schema/trust.js';

/** An `exports` row as the service reads it. */
export interface ExportRow {
  id: string;
  projectId: string;
  kind: ExportKind;
  format: 'csv' | 'jsonl';
  filter: Record<string, unknown> | null;
  state: ExportState;
  rowsDone: number;
  rowsTotal: number | null;
  bytes: number | null;
  storageKey: string | null;
  error: string | null;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  expiresAt: Date | null;
}

const COLS = sql`id, project_id as "projectId", kind, format, filter, state, rows_done::float8 as "rowsDone",
  rows_total::float8 as "rowsTotal", bytes::float8 as bytes, storage_key as "storageKey", error,
  created_at as "createdAt", started_at as "startedAt", finished_at as "finishedAt", expires_at as "expiresAt"`;

type Raw = Omit<ExportRow, 'createdAt' | 'startedAt' | 'finishedAt' | 'expiresAt'> & {
  createdAt: string | Date;
  startedAt: string | Date | null;
  finishedAt: string | Date | null;
  expiresAt: string | Date | null;
};
const date = (v: string | Date | null) => (v === null ? null : new Date(v));
const row = (r: Raw): ExportRow => ({
  ...r,
  createdAt: new Date(r.createdAt),
  startedAt: date(r.startedAt),
  finishedAt: date(r.finishedAt),
  expiresAt: date(r.expiresAt),
});

/** Inserts a queued export. */
export async function insertExport(
  db: SqlRunner,
  e: {
    id: string;
    projectId: string;
    kind: ExportKind;
    format: string;
    filter: object | null;
    createdBy: object;
    at: Date;
  },
): Promise<ExportRow> {
  const r = await db.execute<Raw>(sql`insert into exports (id, project_id, kind, format, filter, created_by, created_at)
    values (${e.id}, ${e.projectId}, ${e.kind}, ${e.format}, ${e.filter ? JSON.stringify(e.filter) : null}::jsonb,
      ${JSON.stringify(e.createdBy)}::jsonb, ${e.at.toISOString()}::timestamptz) returning ${COLS}`);
  return row(r.rows[0]);
}

/** How many of the project's exports are queued or running. */
export async function pendingCount(db: SqlRunner, projectId: string): Promise<number> {
  const r = await db.execute<{ n: number }>(
    sql`select count(*)::int as n from exports where project_id = ${projectId} and state in ('queued', 'running')`,
  );
  return r.rows[0].n;
}

/** One export of the project; null when there is none (or it is another project's). */
export async function getExport(db: SqlRunner, projectId: string | null, id: string): Promise<ExportRow | null> {
  const r = await db.execute<Raw>(sql`select ${COLS} from exports where id = ${id}
    ${projectId ? sql`and project_id = ${projectId}` : sql``}`);
  return r.rows[0] ? row(r.rows[0]) : null;
}

/** The project's latest `limit` exports, newest first. */
export async function listExports(db: SqlRunner, projectId: string, limit = 50): Promise<ExportRow[]> {
  const r = await db.execute<Raw>(sql`select ${COLS} from exports where project_id = ${projectId}
    order by created_at desc, id desc limit ${limit}`);
  return r.rows.map(row);
}

/** Marks the export running (again, after a crash) with a fresh count; null when it is not queued or running. */
export async function claimExport(db: SqlRunner, id: string, at: Date): Promise<ExportRow | null> {
  const r = await db.execute<Raw>(sql`update exports set state = 'running', rows_done = 0,
      started_at = ${at.toISOString()}::timestamptz where id = ${id} and state in ('queued', 'running') returning ${COLS}`);
  return r.rows[0] ? row(r.rows[0]) : null;
}

/** Sets the total (counted when the export starts). */
export async function setTotal(db: SqlRunner, id: string, total: number): Promise<void> {
  await db.execute(sql`update exports set rows_total = ${total} where id = ${id}`);
}

/** Records progress after a page. */
export async function setProgress(db: SqlRunner, id: string, rowsDone: number): Promise<void> {
  await db.execute(sql`update exports set rows_done = ${rowsDone} where id = ${id} and state = 'running'`);
}

/** Marks the export done with its file; false when it is no longer running. */
export async function finishExport(
  db: SqlRunner,
  id: string,
  f: { rowsDone: number; bytes: number; storageKey: string; at: Date; expiresAt: Date },
): Promise<boolean> {
  const r = await db.execute(sql`update exports set state = 'done', rows_done = ${f.rowsDone}, bytes = ${f.bytes},
      storage_key = ${f.storageKey}, finished_at = ${f.at.toISOString()}::timestamptz,
      expires_at = ${f.expiresAt.toISOString()}::timestamptz, error = null
    where id = ${id} and state = 'running'`);
  return (r.rowCount ?? 0) > 0;
}

/** Marks the export failed with a sentence for people. */
export async function failExport(db: SqlRunner, id: string, error: string, at: Date): Promise<void> {
  await db.execute(sql`update exports set state = 'failed', error = ${error}, finished_at = ${at.toISOString()}::timestamptz
    where id = ${id} and state in ('queued', 'running')`);
}

/** Up to `limit` done exports whose file is past `expires_at` (oldest first). */
export async function dueForExpiry(
  db: SqlRunner,
  now: Date,
  limit = 100,
): Promise<{ id: string; storageKey: string }[]> {
  const r = await db.execute<{ id: string; storageKey: string }>(sql`select id, storage_key as "storageKey" from exports
    where state = 'done' and storage_key is not null and expires_at <= ${now.toISOString()}::timestamptz
    order by expires_at limit ${limit}`);
  return r.rows;
}

/** Forgets the file of an expired export (the row stays, state shown as `expired`). */
export async function markExpired(db: SqlRunner, id: string): Promise<void> {
  await db.execute(sql`update exports set storage_key = null where id = ${id}`);
}
