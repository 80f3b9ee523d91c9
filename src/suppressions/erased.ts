import { createHash, createHmac } from 'node:crypto';
import { sql, type SQL } from 'drizzle-orm';

/**
 * The keyed hash that stands for an erased address (docs/data-protection.md): `erased:` + the hex
 * HMAC-SHA256 (RFC 2104) of the lower-cased, trimmed address under a key derived from the server
 * secret. Erasure (contacts/erase.ts) writes it where the address was (email rows, suppressions), so
 * counts stay and a suppressed address stays suppressed, while nobody holding only the database can
 * tell which address it was (a dictionary attack needs the key).
 *
 * The suppression check runs in SQL over addresses it does not know in advance (a campaign's whole
 * audience), so the HMAC is also computed in SQL: PostgreSQL has `sha256(bytea)` built in, and
 * HMAC(K, m) = H((K ⊕ opad) ‖ H((K ⊕ ipad) ‖ m)) with the two padded keys passed as parameters.
 *
 * The key is the process's: the composition root (app.ts buildApp, worker/runner.ts startWorker) calls
 * {@link useErasureSecret} with `Deps.secret` before anything checks a suppression, so the many callers
 * of the marketing rule need not carry it.
 */

/** The 64-byte padded keys of the process's erasure key, set by {@link useErasureSecret}. */
let pads: { inner: Buffer; outer: Buffer; key: Buffer } | undefined;

/** The prefix of an erased address. */
export const ERASED_PREFIX = 'erased:';

/**
 * Sets the process's erasure key from the server secret (`Deps.secret`): SHA-256 of
 * `pigeon-erasure:` + secret, so the key is not the secret that signs sessions. Idempotent.
 */
export function useErasureSecret(secret: string): void {
  const key = createHash('sha256').update(`pigeon-erasure:${secret}`).digest();
  if (pads?.key.equals(key)) return;
  const block = Buffer.alloc(64);
  key.copy(block);
  pads = {
    key,
    inner: Buffer.from(block.map((b) => b ^ 0x36)),
    outer: Buffer.from(block.map((b) => b ^ 0x5c)),
  };
}

function current(): NonNullable<typeof pads> {
  if (!pads) throw new Error('The erasure key is not set: call useErasureSecret(deps.secret) at start-up');
  return pads;
}

/** The erased form of `email` (trimmed, lower-cased first): `erased:<64 hex digits>`. */
export function erasedAddress(email: string): string {
  const mac = createHmac('sha256', current().key).update(email.trim().toLowerCase(), 'utf8').digest('hex');
  return ERASED_PREFIX + mac;
}

/**
 * {@link erasedAddress} of the text expression `email` (already normalised, as stored addresses are)
 * as SQL; equal to the JavaScript result for the same address.
 */
export function erasedAddressSql(email: SQL): SQL {
  const { inner, outer } = current();
  return sql`(${ERASED_PREFIX} || encode(sha256(${outer}::bytea || sha256(${inner}::bytea || convert_to(${email}, 'UTF8'))), 'hex'))`;
}

/**
 * Whether the project `projectId` (SQL) has suppressed `email` (SQL, normalised): the address itself
 * or its erased form. One probe of the suppressions primary key for each of the two values.
 */
export function suppressedSql(projectId: SQL, email: SQL): SQL {
  return sql`exists (select 1 from suppressions s where s.project_id = ${projectId}
    and s.email = any(array[${email}, ${erasedAddressSql(email)}]))`;
}
