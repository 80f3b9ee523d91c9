import { sql } from 'drizzle-orm';
import { executePrepared, uuidArray } from '../../db/prepared.js';
import type { SqlRunner } from '../../db/tx.js';
import type { DeliveryPayload } from '../attempt.js';

/** SQL of the webhook dispatcher: endpoint leases and the due deliveries of an endpoint. */

/** An endpoint as a dispatcher holds it. `secret` is sealed (lib/secrets.ts). */
export type LeasedEndpoint = {
  id: string;
  url: string;
  secret: string;
  concurrency: number;
  enabled: boolean;
};

/** A PENDING delivery whose attempt is due. */
export type DueDelivery = {
  id: string;
  subject: string | null;
  attempts: number;
  payload: DeliveryPayload;
};

const leased = sql`returning id, url, secret, concurrency, enabled`;

/**
 * Takes (or extends) the lease of `owner` for `leaseMs` on the endpoints that no other live owner
 * holds: those of `ids`, or when `ids` is null every endpoint with a due PENDING delivery except those
 * of `except`. Two dispatchers asking at once cannot both win: the row lock orders them and the
 * second sees the first's lease. @returns the endpoints now leased by `owner`.
 */
export async function claimEndpoints(
  db: SqlRunner,
  owner: string,
  leaseMs: number,
  ids: string[] | null,
  except: string[] = [],
): Promise<LeasedEndpoint[]> {
  const which =
    ids === null
      ? sql`not (e.id = any(${uuidArray(except)})) and exists (select 1 from webhook_deliveries d
          where d.endpoint_id = e.id and d.status = 'PENDING' and d.next_attempt_at <= now())`
      : sql`e.id = any(${uuidArray(ids)})`;
  const r = await db.execute<LeasedEndpoint>(sql`update webhook_endpoints e
    set lease_owner = ${owner}, lease_until = now() + ${leaseMs} * interval '1 millisecond'
    where ${which} and (e.lease_owner = ${owner} or e.lease_until is null or e.lease_until < now())
    ${leased}`);
  return r.rows;
}

/**
 * Extends `owner`'s leases on `ids` by `leaseMs`. @returns the endpoints still leased (current url,
 * secret, concurrency, enabled); an id missing was deleted or taken over after the lease lapsed.
 */
export async function renewLeases(
  db: SqlRunner,
  owner: string,
  leaseMs: number,
  ids: string[],
): Promise<LeasedEndpoint[]> {
  if (!ids.length) return [];
  const r = await db.execute<LeasedEndpoint>(sql`update webhook_endpoints e
    set lease_until = now() + ${leaseMs} * interval '1 millisecond'
    where e.id = any(${uuidArray(ids)}) and e.lease_owner = ${owner}
    ${leased}`);
  return r.rows;
}

/** Gives up `owner`'s leases on `ids` (a stopping worker), so another worker takes them at once. */
export async function releaseLeases(db: SqlRunner, owner: string, ids: string[]): Promise<void> {
  if (!ids.length) return;
  await db.execute(sql`update webhook_endpoints set lease_owner = null, lease_until = null
    where id = any(${uuidArray(ids)}) and lease_owner = ${owner}`);
}

/**
 * Up to `limit` due PENDING deliveries of `endpointId` in event order (UUIDv7 ids), leaving out those
 * of `held` (already in the dispatcher's hands).
 */
export async function dueDeliveries(
  db: SqlRunner,
  endpointId: string,
  held: string[],
  limit: number,
): Promise<DueDelivery[]> {
  // Prepared: the dispatcher's most frequent statement, the same text every time.
  const r = await executePrepared<DueDelivery>(
    db,
    sql`select id, subject, attempts, payload from webhook_deliveries
    where endpoint_id = ${endpointId} and status = 'PENDING' and next_attempt_at <= now()
      and not (id = any(${uuidArray(held)}))
    order by id limit ${limit}`,
  );
  return r.rows;
}
