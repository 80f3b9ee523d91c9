import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/pool.js';
import type { EmailStatus, TemplateType } from '../../db/schema/messaging.js';
import { verifiedDomainSql } from '../../domains/verified.js';
import { isoSql, type Cursor } from '../../events/events.cursor.js';
import { containsPattern } from '../../lib/like.js';
import type { EmailSourceName } from './emails.log.schema.js';

/** SQL of the email log (`GET /emails`, `GET /emails/:id`); every statement is bounded to one project. */

/** The filters of a log page, already checked. */
export interface LogFilter {
  statuses?: readonly EmailStatus[];
  /** Part of the recipient address, any case. */
  to?: string;
  source?: EmailSourceName;
  campaignId?: string;
  workflowId?: string;
  since?: Date;
  until?: Date;
}

/** A row of the log as the statement answers it; `atUs` (created_at in microseconds) keys the cursor. */
export type LogRow = {
  id: string;
  status: EmailStatus;
  toEmail: string;
  toName: string | null;
  contactId: string | null;
  fromEmail: string;
  fromName: string | null;
  subject: string;
  type: TemplateType;
  source: EmailSourceName;
  campaignId: string | null;
  campaignName: string | null;
  executionId: string | null;
  workflowId: string | null;
  workflowName: string | null;
  templateId: string | null;
  templateName: string | null;
  senderVerified: boolean;
  error: string | null;
  createdAt: string;
  sentAt: string | null;
  updatedAt: string;
  atUs: string;
};

/** The row of one email with what only its page shows. */
export type DetailRow = LogRow & {
  replyTo: string | null;
  messageId: string | null;
  /** `default` or a project transport id (emails.transport); null until handed off. */
  transport: string | null;
  transportName: string | null;
  /** The translation it went out in (emails.locale); null: the default content. */
  locale: string | null;
  attempts: number;
  deliveredAt: string | null;
  openedAt: string | null;
  clickedAt: string | null;
  bouncedAt: string | null;
  complainedAt: string | null;
  headers: Record<string, string>;
  variables: Record<string, unknown>;
  /** The body template: the row's own, or its shared content's. */
  body: string | null;
  contentId: string | null;
  contactData: Record<string, unknown> | null;
};

const SOURCE_OF_TYPE: Record<EmailSourceName, string> = {
  api: 'TRANSACTIONAL',
  campaign: 'CAMPAIGN',
  workflow: 'WORKFLOW',
  test: 'TEST',
};

const sourceSql = sql`case e.source_type when 'CAMPAIGN' then 'campaign' when 'WORKFLOW' then 'workflow' when 'TEST' then 'test' else 'api' end`;

/** The conditions of `f` on `emails e` of the project. */
function where(projectId: string, f: LogFilter): SQL {
  const parts: SQL[] = [sql`e.project_id = ${projectId}`];
  if (f.statuses?.length) parts.push(sql`e.status = any(${sql.param(f.statuses)}::text[])`);
  if (f.to) parts.push(sql`e.to_email ilike ${containsPattern(f.to)} escape '\\'`);
  if (f.source) parts.push(sql`e.source_type = ${SOURCE_OF_TYPE[f.source]}`);
  if (f.campaignId) parts.push(sql`e.campaign_id = ${f.campaignId}`);
  if (f.workflowId) {
    parts.push(sql`e.workflow_execution_id in (select x.id from workflow_executions x
      where x.project_id = ${projectId} and x.workflow_id = ${f.workflowId})`);
  }
  if (f.since) parts.push(sql`e.created_at >= ${f.since.toISOString()}::timestamptz`);
  if (f.until) parts.push(sql`e.created_at < ${f.until.toISOString()}::timestamptz`);
  return sql.join(parts, sql` and `);
}

/** The columns of {@link LogRow} over `e` (emails) and the joins `cp`, `x`, `w`, `t` of {@link JOINS}. */
const COLUMNS = sql`e.id, e.status, e.to_email as "toEmail", e.to_name as "toName", e.contact_id as "contactId",
  e.from_email as "fromEmail", e.from_name as "fromName", e.subject, e.type, ${sourceSql} as source,
  e.campaign_id as "campaignId", cp.name as "campaignName",
  e.workflow_execution_id as "executionId", x.workflow_id as "workflowId", w.name as "workflowName",
  e.template_id as "templateId", t.name as "templateName",
  exists ${verifiedDomainSql(sql`e.project_id`, sql`e.from_email`)} as "senderVerified",
  e.error, ${isoSql(sql`e.created_at`)} as "createdAt", ${isoSql(sql`e.sent_at`)} as "sentAt", ${isoSql(sql`e.updated_at`)} as "updatedAt",
  (extract(epoch from e.created_at) * 1000000)::int8::text as "atUs"`;

// The names of the source; each joined row is checked to be the project's too.
const JOINS = sql`left join campaigns cp on cp.id = e.campaign_id and cp.project_id = e.project_id
  left join workflow_executions x on x.id = e.workflow_execution_id and x.project_id = e.project_id
  left join workflows w on w.id = x.workflow_id
  left join templates t on t.id = e.template_id and t.project_id = e.project_id`;

/**
 * One page of the project's emails matching `f`, newest first (queued time, then id), `limit + 1` rows
 * (the extra one says more follow), walking `emails_project_created_idx`; the names of each row's
 * source are joined for the page's rows only.
 */
export async function logPage(
  db: Db,
  projectId: string,
  f: LogFilter,
  page: { cursor?: Cursor; limit: number },
): Promise<LogRow[]> {
  const after = page.cursor
    ? sql`and (e.created_at, e.id) < (${page.cursor.at}::timestamptz, ${page.cursor.key}::uuid)`
    : sql``;
  const r = await db.execute<LogRow>(sql`
    select ${COLUMNS}
    from (select e.* from emails e where ${where(projectId, f)} ${after}
          order by e.created_at desc, e.id desc limit ${page.limit + 1}) e
      ${JOINS}
    order by e.created_at desc, e.id desc`);
  return r.rows;
}

/** How many of the project's emails match `f` (first page only). */
export async function logCount(db: Db, projectId: string, f: LogFilter): Promise<number> {
  const r = await db.execute<{ n: number }>(sql`select count(*)::int as n from emails e where ${where(projectId, f)}`);
  return r.rows[0].n;
}

/** One email of the project with its source's names, body template and contact data; undefined when it is not the project's. */
export async function findEmail(db: Db, projectId: string, id: string): Promise<DetailRow | undefined> {
  const r = await db.execute<DetailRow>(sql`
    select ${COLUMNS}, e.reply_to as "replyTo", e.message_id as "messageId", e.attempts,
      e.transport, e.locale, (select tr.name from transports tr where tr.project_id = e.project_id
        and tr.id::text = e.transport) as "transportName",
      ${isoSql(sql`e.delivered_at`)} as "deliveredAt", ${isoSql(sql`e.opened_at`)} as "openedAt",
      ${isoSql(sql`e.clicked_at`)} as "clickedAt", ${isoSql(sql`e.bounced_at`)} as "bouncedAt",
      ${isoSql(sql`e.complained_at`)} as "complainedAt", e.headers, e.variables,
      coalesce(e.body, ec.body) as body, e.content_id as "contentId", c.data as "contactData"
    from emails e
      ${JOINS}
      left join email_contents ec on ec.id = e.content_id and ec.project_id = e.project_id
      left join contacts c on c.id = e.contact_id
    where e.project_id = ${projectId} and e.id = ${id}`);
  return r.rows[0];
}

/** Name, type and size of the attachments of an email (its own, or its shared content's). */
export async function attachmentsOf(db: Db, email: { id: string; contentId: string | null }) {
  const r = await db.execute<{ filename: string; contentType: string | null; size: number }>(sql`
    select filename, content_type as "contentType", octet_length(content) as size from email_attachments
    where ${email.contentId ? sql`content_id = ${email.contentId}` : sql`email_id = ${email.id}`}
    order by id`);
  return r.rows;
}

/**
 * The `email.*` events of an email, oldest first. They carry the email's contact, so the read walks
 * that contact's `email.*` events (`events_contact_name_time_idx`; events have no index by email),
 * not the project's.
 */
export async function eventsOf(db: Db, projectId: string, email: { id: string; contactId: string | null }) {
  if (!email.contactId) return [];
  const r = await db.execute<{ id: string; name: string; data: Record<string, unknown>; createdAt: string }>(sql`
    select id, name, data, ${isoSql(sql`created_at`)} as "createdAt" from events
    where project_id = ${projectId} and contact_id = ${email.contactId} and name like 'email.%'
      and email_id = ${email.id}
    order by created_at, id`);
  return r.rows;
}
