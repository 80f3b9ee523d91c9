import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { PgInsertValue } from 'drizzle-orm/pg-core';
import { executePrepared } from '../db/prepared.js';
import type { Db } from '../db/pool.js';
import { emailAttachments, emailContents, emails, projects, templates, type BillingLimits } from '../db/schema.js';
import { coversSenderSql } from '../domains/verified.js';
import { notFound } from '../http/errors.js';
import { newId } from '../lib/ids.js';
import { addJobCall, jobSpec } from '../worker/jobs.js';
import { sendEmailJob, TRANSACTIONAL_PRIORITY } from './emails.jobs.js';

/** SQL of sending; every function takes the project id first where a project applies. */

export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0] | Db;
export type EmailRow = typeof emails.$inferSelect;
export type NewEmail = typeof emails.$inferInsert;
/** A row to insert whose values may also be SQL expressions (e.g. a CTE's contact id). */
export type NewEmailValues = PgInsertValue<typeof emails>;
export type TemplateRow = typeof templates.$inferSelect;

export async function getTemplate(db: Tx, projectId: string, id: string): Promise<TemplateRow | undefined> {
  const [t] = await db.select().from(templates).where(and(eq(templates.projectId, projectId), eq(templates.id, id))).limit(1);
  return t;
}

/** The project's tracking mode and monthly caps. */
export async function getProjectSettings(db: Tx, projectId: string) {
  const [p] = await db.select({ tracking: projects.tracking, billingLimits: projects.billingLimits })
    .from(projects).where(eq(projects.id, projectId)).limit(1);
  return p;
}

/**
 * What `/v1/send` checks before its transaction, in one prepared statement: the project's monthly caps
 * and whether a verified domain of the project covers `fromEmail` (the rule of `findVerifiedDomain`).
 * @throws AppError 404 when the project does not exist.
 */
export async function getSenderCheck(db: Tx, projectId: string, fromEmail: string): Promise<{ limits: BillingLimits; verified: boolean }> {
  const r = await executePrepared<{ limits: BillingLimits; verified: boolean }>(db, sql`
    select billing_limits as limits, ${coversSenderSql(projectId, fromEmail)} as verified from projects where id = ${projectId}`);
  if (!r.rows[0]) throw notFound('Project');
  return r.rows[0];
}

/**
 * Queues one email in the caller's transaction: inserts its row and, when the row is PENDING (the
 * default), its `emails:send` job at {@link TRANSACTIONAL_PRIORITY}, in one statement. A SUPPRESSED
 * row (a MARKETING template's ineligible recipient) gets no job. The one way a single mail is queued
 * (`/v1/send`, template and campaign test sends, and a workflow's SEND_EMAIL step through
 * {@link queueEmailDeferred}): each is a mail someone waits for, so each goes ahead of bulk batches;
 * campaigns queue theirs set-based in the fan-out.
 * Prepared: one row, so the text varies only with which optional fields a caller sets.
 */
export async function queueEmail(tx: Tx, row: NewEmailValues): Promise<void> {
  await executePrepared(tx, sql`with e as (${queueEmailSql(tx, row)}) select count(*) from e`);
}

/**
 * {@link queueEmail}'s statement as one `INSERT … RETURNING` whose RETURNING adds the job of a PENDING
 * row (so it runs wherever the insert runs, e.g. as a data-modifying CTE of a caller's statement, which
 * PostgreSQL always runs to completion). `row` values may be SQL expressions, such as the id of a
 * contact another CTE of the statement upserts.
 */
export function queueEmailSql(tx: Tx, row: NewEmailValues): SQL {
  const job = addJobCall(sendEmailJob, sql`json_build_object('emailId', ${emails.id})`, { priority: TRANSACTIONAL_PRIORITY });
  return tx.insert(emails).values(row)
    .returning({ id: emails.id, job: sql`case when ${emails.status} = 'PENDING' then (${job}).id end` }).getSQL();
}

/**
 * {@link queueEmailSql} for a caller that adds the jobs of its statement together (one Graphile call,
 * worker/jobs.ts `addJobsSelect`): the insert alone, and the `emails:send` job spec of a PENDING row
 * (null for a SUPPRESSED one), which the caller must add in the same transaction.
 */
export function queueEmailDeferred(tx: Tx, row: NewEmailValues & { id: string }): { insert: SQL; job: SQL | null } {
  return {
    insert: tx.insert(emails).values(row).returning({ id: emails.id }).getSQL(),
    job: (row.status ?? 'PENDING') === 'PENDING' ? jobSpec(sendEmailJob, { emailId: row.id }, { priority: TRANSACTIONAL_PRIORITY }) : null,
  };
}

export interface AttachmentData {
  filename: string;
  contentType?: string;
  content: Buffer;
}

/** Stores a body shared by many emails (`email_contents`). */
export async function insertContent(tx: Tx, c: typeof emailContents.$inferInsert): Promise<void> {
  await executePrepared(tx, tx.insert(emailContents).values(c).onConflictDoNothing().getSQL());
}

/** Stores the attachments of a shared content, once for all its emails. */
export async function insertAttachments(tx: Tx, contentId: string, list: AttachmentData[]): Promise<void> {
  if (!list.length) return;
  await tx.insert(emailAttachments).values(list.map((a) => ({
    id: newId(), contentId, filename: a.filename, contentType: a.contentType ?? null, content: a.content,
  })));
}

/**
 * The body template and attachments of `row`: its own body, or its shared content's (attachments of
 * the content, or of the email itself). `ownAttachments: false` (the delivery claim read it) says
 * the row has none of its own, so a row with its own body needs no read at all.
 */
export async function getContent(db: Tx, row: Pick<EmailRow, 'id' | 'body' | 'contentId'> & { ownAttachments?: boolean }): Promise<EmailContent> {
  if (!row.contentId && row.body !== null && row.ownAttachments === false) return { body: row.body, attachments: [] };
  if (row.contentId) {
    const cached = contentCache.get(row.contentId);
    if (cached) return cached;
  }
  let body = row.body;
  if (body === null && row.contentId) {
    const [c] = await db.select({ body: emailContents.body }).from(emailContents).where(eq(emailContents.id, row.contentId)).limit(1);
    body = c?.body ?? null;
  }
  const rows = await db.select().from(emailAttachments)
    .where(row.contentId ? eq(emailAttachments.contentId, row.contentId) : eq(emailAttachments.emailId, row.id))
    .orderBy(emailAttachments.id);
  const content = {
    body: body ?? '',
    attachments: rows.map((r) => ({ filename: r.filename, contentType: r.contentType ?? undefined, content: r.content })),
  };
  if (row.contentId && body !== null) contentCache.set(row.contentId, content);
  return content;
}

/** A body template and its attachments, as {@link getContent} answers. */
export interface EmailContent {
  body: string;
  attachments: AttachmentData[];
}

/**
 * Shared contents never change once written, so the worker keeps the latest few: a campaign's 100,000
 * emails read their content once, not once each. Bounded by size (bodies and attachments), least
 * recently used first out.
 */
class ContentCache {
  private readonly entries = new Map<string, { value: EmailContent; bytes: number }>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get(id: string): EmailContent | undefined {
    const e = this.entries.get(id);
    if (!e) return undefined;
    this.entries.delete(id);
    this.entries.set(id, e);
    return e.value;
  }

  set(id: string, value: EmailContent): void {
    const bytes = value.body.length * 2 + value.attachments.reduce((n, a) => n + a.content.length, 0);
    if (bytes > this.maxBytes / 4) return;
    const old = this.entries.get(id);
    if (old) {
      this.entries.delete(id);
      this.bytes -= old.bytes;
    }
    this.entries.set(id, { value, bytes });
    this.bytes += bytes;
    for (const [k, e] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(k);
      this.bytes -= e.bytes;
    }
  }
}

const contentCache = new ContentCache(32 * 1024 * 1024);

export async function getEmail(db: Tx, emailId: string): Promise<EmailRow | undefined> {
  const [e] = await db.select().from(emails).where(eq(emails.id, emailId)).limit(1);
  return e;
}
