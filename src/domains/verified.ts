import { and, eq, inArray } from 'drizzle-orm';
import type { Db } from '../db/pool.js';
import { domains } from '../db/schema.js';

/**
 * A sender domain row. `dkimPrivateKey` is a PKCS#8 PEM RSA-2048 key (nodemailer's `dkim.privateKey`),
 * `dkimSelector` its selector (`dkim.keySelector`), `dkimPublicKey` the base64 SPKI DER published as `p=`.
 */
export type DomainRow = typeof domains.$inferSelect;

/** The domain part of an address, lower-cased; '' when there is none. */
export const domainOf = (email: string): string => email.slice(email.lastIndexOf('@') + 1).trim().toLowerCase();

/**
 * The verified sender domain of the project that covers `email`: its exact domain or a parent
 * (a verified `example.com` covers `news.example.com`). The most specific match wins.
 * @returns the domain row (with its DKIM key), or undefined when none is verified.
 */
export async function findVerifiedDomain(db: Pick<Db, 'select'>, projectId: string, email: string): Promise<DomainRow | undefined> {
  const domain = domainOf(email);
  if (!domain) return undefined;
  const labels = domain.split('.');
  const candidates = labels.map((_, i) => labels.slice(i).join('.')).filter((d) => d.includes('.'));
  if (!candidates.length) return undefined;
  const rows = await db.select().from(domains)
    .where(and(eq(domains.projectId, projectId), eq(domains.verified, true), inArray(domains.domain, candidates)));
  return rows.sort((a, b) => b.domain.length - a.domain.length)[0];
}
