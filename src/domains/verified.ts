import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/pool.js';
import { domains } from '../db/schema.js';
import { AppError } from '../http/errors.js';

/**
 * A sender domain row. `dkimPrivateKey` is a PKCS#8 PEM RSA-2048 key (nodemailer's `dkim.privateKey`),
 * `dkimSelector` its selector (`dkim.keySelector`), `dkimPublicKey` the base64 SPKI DER published as `p=`.
 */
export type DomainRow = typeof domains.$inferSelect;

/** The domain part of an address, lower-cased; '' when there is none. */
export const domainOf = (email: string): string =>
  email
    .slice(email.lastIndexOf('@') + 1)
    .trim()
    .toLowerCase();

/**
 * The verified-sender rule, the one spelling of it: the project's verified domain that covers the
 * sender address, i.e. the address's domain (after its last `@`, trimmed, lower-cased, as
 * {@link domainOf}) is the verified domain itself or a subdomain of it (a verified `example.com`
 * covers `news.example.com`); the most specific one wins. As SQL: a subquery of at most one `domains`
 * row, over `projectId` and `fromEmail` given as SQL (parameters or columns of the caller's
 * statement), so a hot statement reads it together with its other rows (`/v1/send`, a delivery
 * claim) and a caller can take what it needs of the row.
 */
export function verifiedDomainSql(projectId: SQL, fromEmail: SQL): SQL {
  const domain = sql`lower(trim(regexp_replace(${fromEmail}, '^.*@', '')))`;
  return sql`(select d.* from domains d where d.project_id = ${projectId} and d.verified
      and (d.domain = ${domain} or right(${domain}, length(d.domain) + 1) = '.' || d.domain)
    order by length(d.domain) desc limit 1)`;
}

/**
 * The verified domain of the project that covers `email` ({@link verifiedDomainSql}).
 * @returns the domain row (with its DKIM key), or undefined when none is verified.
 */
export async function findVerifiedDomain(
  db: Pick<Db, 'select'>,
  projectId: string,
  email: string,
): Promise<DomainRow | undefined> {
  const [row] = await db
    .select()
    .from(domains)
    .where(
      sql`${domains.id} = (select v.id from ${verifiedDomainSql(sql`${projectId}::uuid`, sql`${email}::text`)} v)`,
    );
  return row;
}

/** Whether a verified domain of the project covers `email`, as a SQL boolean ({@link verifiedDomainSql}). */
export function coversSenderSql(projectId: string, email: string): SQL<boolean> {
  return sql<boolean>`exists ${verifiedDomainSql(sql`${projectId}::uuid`, sql`${email}::text`)}`;
}

/**
 * Refuses a template or campaign sender whose domain is not a verified domain of the project (the
 * dashboard routes' form of the rule; `/v1/send` answers 422 `unverified_domain` instead).
 * @throws AppError 403 (code INTERNAL_SERVER_ERROR, as Plunk answers it) naming the domain.
 */
export async function assertVerifiedSender(db: Pick<Db, 'select'>, projectId: string, from: string): Promise<void> {
  if (await findVerifiedDomain(db, projectId, from)) return;
  throw new AppError(
    'INTERNAL_SERVER_ERROR',
    `The domain ${domainOf(from)} of "from" is not verified for this project`,
    {
      status: 403,
      suggestion: 'Add the domain with POST /domains, publish its DKIM record, then verify it.',
    },
  );
}
