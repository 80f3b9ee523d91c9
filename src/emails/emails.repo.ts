import { and, eq, sql } from 'drizzle-orm';
import type { PgInsertValue } from 'drizzle-orm/pg-core';
import { executePrepared } from '../db/prepared.js';
import { emailAttachments, emailContents, emails, projects, templates, type BillingLimits } from '../db/schema.js';
import { coversSenderSql } from '../domains/verified.js';
import { newId } from '../lib/ids.js';
import type { Tx } from '../db/tx.js';

/** SQL of sending; every function takes the project id first where a project applies. */

export type EmailRow = typeof emails.$inferSelect;
export type NewEmail = typeof emails.$inferInsert;
/** A row to insert whose values may also be SQL expressions (e.g. a CTE's contact id). */
export type NewEmailValues = PgInsertValue<typeof emails>;
export type TemplateRow = typeof templates.$inferSelect;

export async function getTemplate(db: Tx, projectId: string, id: string): Promise<TemplateRow | undefined> {
  const [t] = await db
    .select()
    .from(templates)
    .where(and(eq(templates.projectId, projectId), eq(templates.id, id)))
    .limit(1);
  return t;
}

/** The project's tracking mode and monthly caps. */
export async function getProjectSettings(db: Tx, projectId: string) {
  const [p] = await db
    .select({ tracking: projects.tracking, billingLimits: projects.billingLimits })
    .from(projects)
    .where(eq(projects.id, projectId))
    .limit(1);
  return p;
}

/** What `/v1/send` checks of a sender before it writes: the project's monthly caps, and whether a verified domain covers the sender. */
export interface SenderCheck {
  limits: BillingLimits;
  verified: boolean;
}

/**
 * The {@link SenderCheck} of each of `fromEmails` in `projectId`, in one prepared statement whose text
 * is the same for any number of senders (the rule: domains/verified.ts `coversSenderSql`). `/v1/send`
 * reads its concurrent requests' checks together this way (api/send.sender-check.ts).
 * @returns one check per sender, in the order of `fromEmails`; none when the project does not exist.
 */
export async function getSenderChecks(db: Tx, projectId: string, fromEmails: string[]): Promise<SenderCheck[]> {
  const r = await executePrepared<SenderCheck>(
    db,
    sql`
    select p.billing_limits as limits, ${coversSenderSql(sql`p.id`, sql`f.email`)} as verified
    from projects p cross join unnest(${sql.param(fromEmails)}::text[]) with ordinality f(email, n)
    where p.id = ${projectId} order by f.n`,
  );
  return r.rows;
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
  await tx.insert(emailAttachments).values(
    list.map((a) => ({
      id: newId(),
      contentId,
      filename: a.filename,
      contentType: a.contentType ?? null,
      content: a.content,
    })),
  );
}

/**
 * The body template and attachments of `row`: its own body, or its shared content's (attachments of
 * the content, or of the email itself). `ownAttachments: false` (the delivery claim read it) says
 * the row has none of its own, so a row with its own body needs no read at all.
 */
export async function getContent(
  db: Tx,
  row: Pick<EmailRow, 'id' | 'body' | 'contentId'> & { ownAttachments?: boolean },
): Promise<EmailContent> {
  if (!row.contentId && row.body !== null && row.ownAttachments === false) return { body: row.body, attachments: [] };
  if (row.contentId) {
    const cached = contentCache.get(row.contentId);
    if (cached) return cached;
  }
  let body = row.body;
  if (body === null && row.contentId) {
    const [c] = await db
      .select({ body: emailContents.body })
      .from(emailContents)
      .where(eq(emailContents.id, row.contentId))
      .limit(1);
    body = c?.body ?? null;
  }
  const rows = await db
    .select()
    .from(emailAttachments)
    .where(row.contentId ? eq(emailAttachments.contentId, row.contentId) : eq(emailAttachments.emailId, row.id))
    .orderBy(emailAttachments.id);
  const content = {
    body: body ?? '',
    attachments: rows.map((r) => ({
      filename: r.filename,
      contentType: r.contentType ?? undefined,
      content: r.content,
    })),
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
