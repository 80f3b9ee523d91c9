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

/**
 * Whether a verified domain of the project covers the sender, as a SQL boolean ({@link verifiedDomainSql};
 * `projectId` and `fromEmail` are SQL as there).
 */
export function coversSenderSql(projectId: SQL, fromEmail: SQL): SQL<boolean> {
  return sql<boolean>`exists ${verifiedDomainSql(projectId, fromEmail)}`;
}

/**
 * Where this deployment's mail goes, as far as the sender rule cares; {@link Deps} carries it.
 * `mailStaysLocal` is true when no mail ever leaves the machine (the outbox transport: no SMTP_URL,
 * no SES_REGION); unset means false, the strict rule.
 */
export interface MailDestination {
  mailStaysLocal?: boolean;
}

/**
 * What `Deps.mailStaysLocal` is for a transport (main.ts): true for the outbox, whose `.eml` files
 * never leave the machine; false for SMTP and SES, which hand mail to other servers.
 */
export const keepsMailLocal = (transport: { readonly kind: string }): boolean => transport.kind === 'outbox';

/** The header that marks a mail whose sender no verified domain covers (written to the outbox only, unsigned). */
export const UNVERIFIED_SENDER_HEADER = 'X-Pigeon-Unverified-Sender';
/** The value of {@link UNVERIFIED_SENDER_HEADER}. */
export const UNVERIFIED_SENDER_VALUE = 'outbox only';

/**
 * What {@link senderClearance} decides for one sender: `signed` with the verified domain that covers
 * it (its DKIM key signs the mail), `unsigned` (no domain covers it but the mail stays on this machine:
 * built without DKIM-Signature and marked with {@link UNVERIFIED_SENDER_HEADER}), or `refused`.
 */
export type SenderClearance<D> = { kind: 'signed'; domain: D } | { kind: 'unsigned' } | { kind: 'refused' };

/**
 * The sending rule, asked by every place that accepts or sends mail (`/v1/send`, test sends, template
 * and campaign saves and sends, the delivery job): a sender covered by a verified domain of the
 * project (`domain`, as {@link verifiedDomainSql} found it; `true` when the caller only knows that one
 * covers it) may send, signed by it. A sender no verified domain covers may send only when the mail
 * never leaves the machine (`where.mailStaysLocal`, the outbox): nobody receives it, so nobody can be
 * fooled by an unsigned From, and a new user sees a first mail before owning DNS. With a real
 * transport (SMTP, SES) such a sender is refused: receivers would reject or spam-folder unsigned mail
 * of a domain the project never proved it owns.
 */
export function senderClearance<D>(where: MailDestination, domain: D | null | undefined | false): SenderClearance<D> {
  if (domain !== null && domain !== undefined && domain !== false) return { kind: 'signed', domain };
  return where.mailStaysLocal ? { kind: 'unsigned' } : { kind: 'refused' };
}

/**
 * Refuses a template or campaign sender that {@link senderClearance} refuses: no verified domain of
 * the project covers it and mail leaves the machine (the dashboard routes' form of the rule;
 * `/v1/send` answers 422 `unverified_domain` instead).
 * @throws AppError 403 (code INTERNAL_SERVER_ERROR, as Plunk answers it) naming the domain, with
 *   `details: {reason: 'unverified_domain', field: 'from', domain}`.
 */
export async function assertVerifiedSender(
  db: Pick<Db, 'select'>,
  projectId: string,
  from: string,
  where: MailDestination,
): Promise<void> {
  if (senderClearance(where, await findVerifiedDomain(db, projectId, from)).kind !== 'refused') return;
  throw new AppError(
    'INTERNAL_SERVER_ERROR',
    `The domain ${domainOf(from)} of "from" is not verified for this project`,
    {
      status: 403,
      // Names the refused field and domain, so a form can say it at its "from" field.
      details: { reason: 'unverified_domain', field: 'from', domain: domainOf(from) },
      suggestion: 'Add the domain with POST /domains, publish its DKIM record, then verify it.',
    },
  );
}
