import { and, eq, gte, ne, sql } from 'drizzle-orm';
import type { Db } from '../db/pool.js';
import { emailAttachments, emails, projects, suppressions, templates } from '../db/schema.js';
import { newId } from '../lib/ids.js';

/** SQL of sending; every function takes the project id first where a project applies. */

export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0] | Db;
export type EmailRow = typeof emails.$inferSelect;
export type NewEmail = typeof emails.$inferInsert;
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

/** Transactional emails of the project created since `since` (suppressed rows not counted). */
export async function countTransactionalSince(db: Tx, projectId: string, since: Date): Promise<number> {
  const [r] = await db.select({ n: sql<number>`count(*)` }).from(emails).where(and(
    eq(emails.projectId, projectId), eq(emails.sourceType, 'TRANSACTIONAL'),
    gte(emails.createdAt, since), ne(emails.status, 'SUPPRESSED')));
  return r.n;
}

export async function isSuppressed(db: Tx, projectId: string, email: string): Promise<boolean> {
  const rows = await db.select({ e: suppressions.email }).from(suppressions)
    .where(and(eq(suppressions.projectId, projectId), eq(suppressions.email, email))).limit(1);
  return rows.length > 0;
}

export async function insertEmail(tx: Tx, row: NewEmail): Promise<void> {
  await tx.insert(emails).values(row);
}

export interface AttachmentData {
  filename: string;
  contentType?: string;
  content: Buffer;
}

export async function insertAttachments(tx: Tx, emailId: string, list: AttachmentData[]): Promise<void> {
  if (!list.length) return;
  await tx.insert(emailAttachments).values(list.map((a) => ({
    id: newId(), emailId, filename: a.filename, contentType: a.contentType ?? null, content: a.content,
  })));
}

export async function getAttachments(db: Tx, emailId: string): Promise<AttachmentData[]> {
  const rows = await db.select().from(emailAttachments).where(eq(emailAttachments.emailId, emailId)).orderBy(emailAttachments.id);
  return rows.map((r) => ({ filename: r.filename, contentType: r.contentType ?? undefined, content: r.content }));
}

export async function getEmail(db: Tx, emailId: string): Promise<EmailRow | undefined> {
  const [e] = await db.select().from(emails).where(eq(emails.id, emailId)).limit(1);
  return e;
}
