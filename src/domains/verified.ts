import { and, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/pool.js';
import { domains } from '../db/schema.js';
import { AppError } from '../http/errors.js';

/**
 * A sender domain row. `dkimPrivateKey` is a PKCS#8 PEM RSA-2048 key (nodemailer's `dkim.privateKey`),
 * `dkimSelector` its selector (`dkim.keySelector`), `dkimPublicKey` the base64 SPKI DER published as `p=`.
 */
export type DomainRow = typeof domains.$inferSelect;

/** The domain part of an address, lower-cased; '' when there is none. */
export const domainOf = (email: string): string => email.slice(email.lastIndexOf('@') + 1).trim().toLowerCase();

/**
 * The names a verified domain may have to cover `email`: its domain and each parent that still has a
 * dot (`a.news.example.com` → `a.news.example.com`, `news.example.com`, `example.com`), most specific
 * first. Empty when the address has no domain part or the domain is a single label.
 */
export function senderDomainCandidates(email: string): string[] {
  const domain = domainOf(email);
  if (!domain) return [];
  const labels = domain.split('.');
  return labels.map((_, i) => labels.slice(i).join('.')).filter((d) => d.includes('.'));
}

/**
 * The verified sender domain of the project that covers `email`: its exact domain or a parent
 * (a verified `example.com` covers `news.example.com`). The most specific match wins.
 * @returns the domain row (with its DKIM key), or undefined when none is verified.
 */
export async function findVerifiedDomain(db: Pick<Db, 'select'>, projectId: string, email: string): Promise<DomainRow | undefined> {
  const candidates = senderDomainCandidates(email);
  if (!candidates.length) return undefined;
  const rows = await db.select().from(domains)
    .where(and(eq(domains.projectId, projectId), eq(domains.verified, true), inArray(domains.domain, candidates)));
  return rows.sort((a, b) => b.domain.length - a.domain.length)[0];
}

/**
 * The rule of {@link findVerifiedDomain} as a SQL boolean, for a caller that reads it together with
 * other rows in one statement (`/v1/send`). The candidates travel as one text-array parameter, so the
 * statement's text does not change with the number of labels (it can be prepared).
 */
export function coversSenderSql(projectId: string, email: string): SQL<boolean> {
  const candidates = `{${senderDomainCandidates(email).map((d) => `"${d.replace(/["\\]/g, '')}"`).join(',')}}`;
  return sql<boolean>`exists (select 1 from domains
    where project_id = ${projectId} and verified and domain = any(${candidates}::text[]))`;
}

/**
 * Refuses a template or campaign sender whose domain is not a verified domain of the project (the
 * dashboard routes' form of the rule; `/v1/send` answers 422 `unverified_domain` instead).
 * @throws AppError 403 (code INTERNAL_SERVER_ERROR, as Plunk answers it) naming the domain.
 */
export async function assertVerifiedSender(db: Pick<Db, 'select'>, projectId: string, from: string): Promise<void> {
  if (await findVerifiedDomain(db, projectId, from)) return;
  throw new AppError('INTERNAL_SERVER_ERROR', `The domain ${domainOf(from)} of "from" is not verified for this project`, {
    status: 403,
    suggestion: 'Add the domain with POST /domains, publish its DKIM record, then verify it.',
  });
}
