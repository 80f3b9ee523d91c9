import { and, asc, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/pool.js';
import { domains, type DomainRecord } from '../db/schema.js';
import type { DomainRow } from './verified.js';

export type NewDomain = Omit<typeof domains.$inferInsert, 'projectId'>;

/** Inserts a domain; undefined when the project already has this domain (unique (project, domain)). */
export async function insertDomain(db: Db, projectId: string, values: NewDomain): Promise<DomainRow | undefined> {
  const [row] = await db
    .insert(domains)
    .values({ ...values, projectId })
    .onConflictDoNothing()
    .returning();
  return row;
}

export async function getDomain(db: Db, projectId: string, id: string): Promise<DomainRow | undefined> {
  const [row] = await db
    .select()
    .from(domains)
    .where(and(eq(domains.projectId, projectId), eq(domains.id, id)))
    .limit(1);
  return row;
}

/** The project's domains, oldest first (ids are UUIDv7, so id order is creation order). */
export async function listDomains(db: Db, projectId: string): Promise<DomainRow[]> {
  return db
    .select()
    .from(domains)
    .where(eq(domains.projectId, projectId))
    .orderBy(asc(domains.createdAt), asc(domains.id));
}

/** @returns whether a row was deleted. */
export async function deleteDomain(db: Db, projectId: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(domains)
    .where(and(eq(domains.projectId, projectId), eq(domains.id, id)))
    .returning({ id: domains.id });
  return rows.length > 0;
}

export interface CheckOutcome {
  verified: boolean;
  verifiedAt: Date | null;
  records: DomainRecord[];
  checkedAt: Date;
}

/** Stores the result of a DNS check; undefined when the domain was deleted meanwhile. */
export async function saveCheck(
  db: Db,
  projectId: string,
  id: string,
  o: CheckOutcome,
): Promise<DomainRow | undefined> {
  const [row] = await db
    .update(domains)
    .set({ verified: o.verified, verifiedAt: o.verifiedAt, records: o.records, lastCheckedAt: o.checkedAt })
    .where(and(eq(domains.projectId, projectId), eq(domains.id, id)))
    .returning();
  return row;
}

/**
 * Pending domains of every project for the background re-check, least recently checked first, in one
 * query. Domains checked after `checkedBefore` (e.g. by a user's "verify now") are left for the next run.
 */
export async function pendingDomains(db: Db, checkedBefore: Date, limit: number): Promise<DomainRow[]> {
  return db
    .select()
    .from(domains)
    .where(
      and(
        eq(domains.verified, false),
        sql`(${domains.lastCheckedAt} is null or ${domains.lastCheckedAt} < ${checkedBefore.toISOString()}::timestamptz)`,
      ),
    )
    .orderBy(sql`${domains.lastCheckedAt} asc nulls first`, asc(domains.id))
    .limit(limit);
}
