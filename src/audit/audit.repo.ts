import { and, desc, eq, gte, like, lt, or, sql, type SQL } from 'drizzle-orm';
import { auditLog, type AuditActorType } from '../db/schema.js';
import type { Tx } from '../db/tx.js';
import { decodeCursor, encodeCursor, usToIso } from '../events/events.cursor.js';
import { likeEscape } from '../lib/like.js';
import type { AuditEntryOut, AuditLogQuery } from './audit.schema.js';

const UUID = /^[0-9a-f-]{36}$/i;

/** The WHERE conditions of a page query besides the project (filters of {@link AuditLogQuery}). */
function filters(q: AuditLogQuery): SQL[] {
  const out: SQL[] = [];
  if (q.actor?.startsWith('type:')) out.push(eq(auditLog.actorType, q.actor.slice(5) as AuditActorType));
  else if (q.actor) out.push(eq(auditLog.actorId, q.actor));
  if (q.action?.endsWith('.')) out.push(like(auditLog.action, `${likeEscape(q.action)}%`));
  else if (q.action) out.push(eq(auditLog.action, q.action));
  if (q.targetType) out.push(eq(auditLog.targetType, q.targetType));
  if (q.targetId) out.push(eq(auditLog.targetId, q.targetId));
  if (q.from) out.push(gte(auditLog.at, new Date(q.from)));
  if (q.to) out.push(lt(auditLog.at, new Date(q.to)));
  return out;
}

/**
 * One page of a project's entries, newest first, keyset-paged on (at, id) through the index
 * `audit_log_project_at_idx`; the cursor carries `at` in microseconds (events.cursor.ts).
 * @throws AppError 422 for a cursor not made here.
 */
export async function pageEntries(
  db: Tx,
  projectId: string,
  q: AuditLogQuery,
): Promise<{ entries: AuditEntryOut[]; cursor: string | null }> {
  const where = [eq(auditLog.projectId, projectId), ...filters(q)];
  if (q.cursor) {
    const c = decodeCursor(q.cursor, UUID);
    where.push(
      or(
        lt(auditLog.at, sql`${c.at}::timestamptz`),
        and(eq(auditLog.at, sql`${c.at}::timestamptz`), lt(auditLog.id, c.key)),
      )!,
    );
  }
  const rows = await db
    .select({
      row: auditLog,
      atUs: sql<string>`(extract(epoch from ${auditLog.at}) * 1000000)::bigint::text`,
    })
    .from(auditLog)
    .where(and(...where))
    .orderBy(desc(auditLog.at), desc(auditLog.id))
    .limit(q.limit + 1);
  const more = rows.length > q.limit;
  const page = rows.slice(0, q.limit);
  const last = page.at(-1);
  return {
    entries: page.map(({ row: r, atUs }) => ({
      id: r.id,
      at: usToIso(Number(atUs)).replace(/(\.\d{3})\d{3}Z$/, '$1Z'),
      actor: {
        type: r.actorType,
        id: r.actorId,
        ...(r.actorType === 'user' ? { email: r.actorLabel } : r.actorType === 'key' ? { keyName: r.actorLabel } : {}),
      },
      ip: r.ip,
      userAgent: r.userAgent,
      action: r.action,
      target: { type: r.targetType, id: r.targetId },
      changes: r.changes ?? null,
    })),
    cursor: more && last ? encodeCursor(Number(last.atUs), last.row.id) : null,
  };
}

/**
 * Deletes at most `batch` entries older than `before` (any project), oldest first, in one short
 * statement: the retention job calls it until it deletes fewer than `batch`.
 * @returns how many were deleted.
 */
export async function deleteOlderThan(db: Tx, before: Date, batch: number): Promise<number> {
  const r = await db.execute(sql`delete from ${auditLog} where ${auditLog.id} in (
      select ${auditLog.id} from ${auditLog} where ${auditLog.at} < ${before.toISOString()}::timestamptz
      order by ${auditLog.at} limit ${batch})`);
  return r.rowCount ?? 0;
}
