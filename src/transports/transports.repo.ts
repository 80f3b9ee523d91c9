import { and, asc, eq, inArray } from 'drizzle-orm';
import type { Db } from '../db/pool.js';
import { transportHealth, transportRules, transports } from '../db/schema.js';

/** SQL of a project's transports, its routing rules and the transports' health; project id first. */

export type TransportRow = typeof transports.$inferSelect;
export type RuleRow = typeof transportRules.$inferSelect;
export type HealthRow = typeof transportHealth.$inferSelect;
type Handle = Pick<Db, 'select' | 'insert' | 'update' | 'delete'>;

export async function insertTransport(db: Handle, row: typeof transports.$inferInsert): Promise<TransportRow> {
  const [r] = await db.insert(transports).values(row).returning();
  return r;
}

/** The project's transports, by name. */
export async function listTransports(db: Handle, projectId: string): Promise<TransportRow[]> {
  return db.select().from(transports).where(eq(transports.projectId, projectId)).orderBy(asc(transports.name));
}

export async function findTransport(db: Handle, projectId: string, id: string): Promise<TransportRow | undefined> {
  const [r] = await db
    .select()
    .from(transports)
    .where(and(eq(transports.projectId, projectId), eq(transports.id, id)));
  return r;
}

export async function updateTransport(
  db: Handle,
  projectId: string,
  id: string,
  set: Partial<typeof transports.$inferInsert>,
): Promise<TransportRow | undefined> {
  const [r] = await db
    .update(transports)
    .set(set)
    .where(and(eq(transports.projectId, projectId), eq(transports.id, id)))
    .returning();
  return r;
}

export async function deleteTransport(db: Handle, projectId: string, id: string): Promise<boolean> {
  const r = await db
    .delete(transports)
    .where(and(eq(transports.projectId, projectId), eq(transports.id, id)))
    .returning({ id: transports.id });
  return r.length > 0;
}

/** The health rows of `keys` (transport ids or `default`). */
export async function healthOf(db: Handle, keys: string[]): Promise<Map<string, HealthRow>> {
  if (!keys.length) return new Map();
  const rows = await db.select().from(transportHealth).where(inArray(transportHealth.transport, keys));
  return new Map(rows.map((r) => [r.transport, r]));
}

/** The project's rules in order. */
export async function listRules(db: Handle, projectId: string): Promise<RuleRow[]> {
  return db
    .select()
    .from(transportRules)
    .where(eq(transportRules.projectId, projectId))
    .orderBy(asc(transportRules.position));
}

/** Replaces the project's rules (call inside a transaction). */
export async function replaceRules(db: Handle, projectId: string, rows: Array<typeof transportRules.$inferInsert>) {
  await db.delete(transportRules).where(eq(transportRules.projectId, projectId));
  if (rows.length) await db.insert(transportRules).values(rows);
}
