import { and, eq, sql } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Deps } from '../deps.js';
import { isSealed, keyringOf, openSecret, resealed, sealSecret, type Keyring } from './secrets.js';

/**
 * Where each sealed secret lives: the additional authenticated data that binds a sealed value to its
 * place (lib/secrets.ts), written once for the writers, the readers and the start-up migration.
 */
export const secretPlaces = {
  /** `domains.dkim_private_key` of domain `id`. */
  dkimKey: (domainId: string) => `domains.dkim_private_key:${domainId}`,
  /** `webhook_endpoints.secret` of endpoint `id`. */
  webhookSecret: (endpointId: string) => `webhook_endpoints.secret:${endpointId}`,
  /**
   * A header value of a WEBHOOK step's config, by header name: not by step, so that a step's config
   * copied as a whole (a duplicated workflow) still opens.
   */
  stepHeader: (name: string) => `workflow_steps.config.headers:${name.toLowerCase()}`,
  /**
   * `projects.public_key` of project `id`: the public key is safe to show, yet a dump of the database
   * alone still gives no key that calls the API.
   */
  projectPublicKey: (projectId: string) => `projects.public_key:${projectId}`,
  /** `transports.secret` of transport `id`: an SMTP password or an SES secret access key. */
  transportSecret: (transportId: string) => `transports.secret:${transportId}`,
  /** `users.totp_secret` of user `id`: the TOTP shared secret (RFC 6238) of two-factor sign-in. */
  totpSecret: (userId: string) => `users.totp_secret:${userId}`,
};

/** The keyring of `deps` (ENCRYPTION_KEY, else the instance secret; ENCRYPTION_KEY_PREVIOUS). */
export const keyring = (deps: Pick<Deps, 'config' | 'secret'>): Keyring => keyringOf(deps.config, deps.secret);

/** A WEBHOOK step's headers with each value sealed (values sealed already are kept). */
export function sealHeaders(ring: Keyring, headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([k, v]) => [k, isSealed(v) ? v : sealSecret(ring, v, secretPlaces.stepHeader(k))]),
  );
}

/** A WEBHOOK step's headers in clear. @throws as `openSecret` (lib/secrets.ts). */
export function openHeaders(ring: Keyring, headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([k, v]) => [k, openSecret(ring, v, secretPlaces.stepHeader(k))]),
  );
}

/** What {@link resealAll} did to one place. */
export interface ResealCount {
  /** Values sealed or re-wrapped with the current key. */
  changed: number;
  /** Values that could not be opened (their key is not configured, or they were altered). */
  unreadable: number;
}

/**
 * Brings every stored value of one place to the current key: plaintext written before secrets were
 * sealed is sealed, a value an earlier key wraps is re-wrapped (lib/secrets.ts `resealed`). Each row
 * is written with a conditional update on its old value, so processes starting together, or a writer
 * meanwhile, never lose a value. Values that cannot be opened are counted and left as they are.
 * @param rows the place's rows with their stored value; `reseal` computes the new value of one row or
 *   null; `write` stores it only where the value is still `old`.
 */
export async function resealAll<R extends { id: string }>(
  rows: R[],
  reseal: (row: R) => R | null,
  write: (row: R, old: R) => Promise<void>,
): Promise<ResealCount> {
  const count: ResealCount = { changed: 0, unreadable: 0 };
  for (const row of rows) {
    let next: R | null;
    try {
      next = reseal(row);
    } catch {
      count.unreadable += 1;
      continue;
    }
    if (!next) continue;
    await write(next, row);
    count.changed += 1;
  }
  return count;
}

/**
 * {@link resealAll} over one text column holding one sealed value per row (`domains.dkim_private_key`,
 * `webhook_endpoints.secret`), each bound to its row by `place(id)`.
 */
export async function resealColumn(
  deps: Pick<Deps, 'db' | 'config' | 'secret'>,
  table: PgTable,
  idColumn: PgColumn,
  valueColumn: PgColumn,
  place: (id: string) => string,
): Promise<ResealCount> {
  const ring = keyring(deps);
  // A nullable column (projects.public_key of projects made before it) has nothing to seal in its nulls.
  const rows = (
    (await deps.db.select({ id: idColumn, value: valueColumn }).from(table)) as Array<{
      id: string;
      value: string | null;
    }>
  ).filter((r): r is { id: string; value: string } => r.value !== null);
  return resealAll(
    rows,
    (r) => {
      const v = resealed(ring, r.value, place(r.id));
      return v === null ? null : { ...r, value: v };
    },
    async (next, old) => {
      await deps.db.execute(sql`update ${table} set ${sql.identifier(valueColumn.name)} = ${next.value}
      where ${and(eq(idColumn, old.id), eq(valueColumn, old.value))}`);
    },
  );
}
