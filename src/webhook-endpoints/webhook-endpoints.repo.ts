import { and, desc, eq, lt, sql } from 'drizzle-orm';
import type { Db } from '../db/pool.js';
import { webhookDeliveries, webhookEndpoints } from '../db/schema.js';
import type { SqlRunner } from '../db/tx.js';

/** SQL of event webhook endpoints and their delivery log; every function takes the project id first. */

export type EndpointRow = typeof webhookEndpoints.$inferSelect;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;
type Handle = Pick<Db, 'select' | 'insert' | 'update' | 'delete'>;

export async function insertEndpoint(db: Handle, row: typeof webhookEndpoints.$inferInsert): Promise<EndpointRow> {
  const [r] = await db.insert(webhookEndpoints).values(row).returning();
  return r;
}

export async function listEndpoints(db: Handle, projectId: string): Promise<EndpointRow[]> {
  return db
    .select()
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.projectId, projectId))
    .orderBy(desc(webhookEndpoints.createdAt));
}

export async function findEndpoint(db: Handle, projectId: string, id: string): Promise<EndpointRow | undefined> {
  const [r] = await db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.projectId, projectId), eq(webhookEndpoints.id, id)));
  return r;
}

export async function updateEndpoint(
  db: Handle,
  projectId: string,
  id: string,
  set: Partial<typeof webhookEndpoints.$inferInsert>,
): Promise<EndpointRow | undefined> {
  const [r] = await db
    .update(webhookEndpoints)
    .set(set)
    .where(and(eq(webhookEndpoints.projectId, projectId), eq(webhookEndpoints.id, id)))
    .returning();
  return r;
}

export async function deleteEndpoint(db: Handle, projectId: string, id: string): Promise<boolean> {
  const r = await db
    .delete(webhookEndpoints)
    .where(and(eq(webhookEndpoints.projectId, projectId), eq(webhookEndpoints.id, id)))
    .returning({ id: webhookEndpoints.id });
  return r.length > 0;
}

/** A page of an endpoint's deliveries, newest first (UUIDv7 ids sort by time), after `beforeId`. */
export async function listDeliveries(
  db: Handle,
  projectId: string,
  endpointId: string,
  o: { beforeId?: string; limit: number; status?: DeliveryRow['status'] },
): Promise<DeliveryRow[]> {
  return db
    .select()
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.projectId, projectId),
        eq(webhookDeliveries.endpointId, endpointId),
        o.beforeId ? lt(webhookDeliveries.id, o.beforeId) : undefined,
        o.status ? eq(webhookDeliveries.status, o.status) : undefined,
      ),
    )
    .orderBy(desc(webhookDeliveries.id))
    .limit(o.limit);
}

export async function countDeliveries(
  db: SqlRunner,
  projectId: string,
  endpointId: string,
  status?: string,
): Promise<number> {
  const r = await db.execute<{ n: number }>(sql`select count(*)::int as n from webhook_deliveries
    where project_id = ${projectId} and endpoint_id = ${endpointId} ${status ? sql`and status = ${status}` : sql``}`);
  return r.rows[0].n;
}

export async function findDelivery(
  db: Handle,
  projectId: string,
  endpointId: string,
  id: string,
): Promise<DeliveryRow | undefined> {
  const [r] = await db
    .select()
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.projectId, projectId),
        eq(webhookDeliveries.endpointId, endpointId),
        eq(webhookDeliveries.id, id),
      ),
    );
  return r;
}

export async function insertDelivery(db: Handle, row: typeof webhookDeliveries.$inferInsert): Promise<DeliveryRow> {
  const [r] = await db.insert(webhookDeliveries).values(row).returning();
  return r;
}
