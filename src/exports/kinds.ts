import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/pool.js';
import type { ExportKind } from '../db/schema/trust.js';
import { filterSql as contactFilterSql } from '../contacts/contacts.repo.js';
import { containsPattern } from '../lib/like.js';
import type { ExportFilter } from './exports.schema.js';

/** Rows read per statement of an export: memory holds one page whatever the size of the project. */
export const EXPORT_PAGE = 2000;

/** One row as written: column name → value (objects become JSON text in CSV). */
export type ExportRow = Record<string, unknown>;

/** Where a page ends: the keyset position of its last row (text, compared back in SQL). */
export interface PagePosition {
  at: string;
  key: string;
}

/** How one kind of export reads its rows. */
export interface ExportSource {
  /** The columns, in order (CSV header; the keys of each JSON line). */
  columns: readonly string[];
  /** How many rows the filter selects (counted once when the export starts). */
  count(db: Db, projectId: string, f: ExportFilter): Promise<number>;
  /** The page after `after` (first page: undefined), in keyset order, at most {@link EXPORT_PAGE} rows. */
  page(
    db: Db,
    projectId: string,
    f: ExportFilter,
    after?: PagePosition,
  ): Promise<{ rows: ExportRow[]; last?: PagePosition }>;
}

const since = (col: SQL, f: ExportFilter): SQL[] => [
  ...(f.from ? [sql`${col} >= ${f.from}::timestamptz`] : []),
  ...(f.to ? [sql`${col} < ${f.to}::timestamptz`] : []),
];

/**
 * A source keyed on (`created_at`, `tie`), the order of the table's (project_id, created_at…) index:
 * `select` lists the columns (aliases = column names), `where` the filter without the keyset.
 */
function keyset(
  table: string,
  tie: string,
  columns: readonly string[],
  select: SQL,
  where: (projectId: string, f: ExportFilter) => SQL[],
): ExportSource {
  const t = sql.raw(table);
  const k = sql.raw(tie);
  return {
    columns,
    async count(db, projectId, f) {
      const r = await db.execute<{ n: string }>(
        sql`select count(*) as n from ${t} where ${sql.join(where(projectId, f), sql` and `)}`,
      );
      return Number(r.rows[0].n);
    },
    async page(db, projectId, f, after) {
      const conds = where(projectId, f);
      if (after) conds.push(sql`(created_at, ${k}) > (${after.at}::timestamptz, ${after.key})`);
      const r = await db.execute<ExportRow & { k_at: string; k_key: string }>(sql`select ${select},
          created_at::text as k_at, ${k}::text as k_key
        from ${t} where ${sql.join(conds, sql` and `)} order by created_at, ${k} limit ${EXPORT_PAGE}`);
      const last = r.rows.at(-1);
      const rows = r.rows.map(({ k_at: _a, k_key: _k, ...row }) => row);
      return { rows, last: last && { at: last.k_at, key: last.k_key } };
    },
  };
}

const iso = (col: string) =>
  sql.raw(
    `to_char(${col} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "${col.replace(/_(\w)/g, (_m, c: string) => c.toUpperCase())}"`,
  );

/**
 * Every kind's columns and reading (docs/data-protection.md lists them):
 * - contacts: id, email, subscribed, createdAt, updatedAt, data (JSON); filter search, subscribed
 * - events: id, contactId, name, emailId, campaignId, createdAt, data; filter name, from, to
 * - emails: id, contactId, toEmail, fromEmail, subject, type, status, sourceType, campaignId, templateId,
 *   createdAt, sentAt, deliveredAt, openedAt, clickedAt, bouncedAt, complainedAt, error (no bodies);
 *   filter status, from, to
 * - suppressions: email, reason, createdAt; filter reason, search
 * - consent: id, contactId, email, action, topicId, source, formId, ip, userAgent, createdAt; filter from, to
 */
export const EXPORT_SOURCES: Record<ExportKind, ExportSource> = {
  contacts: keyset(
    'contacts',
    'id',
    ['id', 'email', 'subscribed', 'createdAt', 'updatedAt', 'data'],
    sql`id, email, subscribed, ${iso('created_at')}, ${iso('updated_at')}, data`,
    (p, f) => [contactFilterSql(p, { search: f.search, subscribed: f.subscribed }), ...since(sql`created_at`, f)],
  ),
  events: keyset(
    'events',
    'id',
    ['id', 'contactId', 'name', 'emailId', 'campaignId', 'createdAt', 'data'],
    sql`id, contact_id as "contactId", name, email_id as "emailId", campaign_id as "campaignId", ${iso('created_at')}, data`,
    (p, f) => [sql`project_id = ${p}`, ...(f.name ? [sql`name = ${f.name}`] : []), ...since(sql`created_at`, f)],
  ),
  emails: keyset(
    'emails',
    'id',
    [
      'id',
      'contactId',
      'toEmail',
      'fromEmail',
      'subject',
      'type',
      'status',
      'sourceType',
      'campaignId',
      'templateId',
      'createdAt',
      'sentAt',
      'deliveredAt',
      'openedAt',
      'clickedAt',
      'bouncedAt',
      'complainedAt',
      'error',
    ],
    sql`id, contact_id as "contactId", to_email as "toEmail", from_email as "fromEmail", subject, type, status,
      source_type as "sourceType", campaign_id as "campaignId", template_id as "templateId", ${iso('created_at')},
      ${iso('sent_at')}, ${iso('delivered_at')}, ${iso('opened_at')}, ${iso('clicked_at')}, ${iso('bounced_at')},
      ${iso('complained_at')}, error`,
    (p, f) => [sql`project_id = ${p}`, ...(f.status ? [sql`status = ${f.status}`] : []), ...since(sql`created_at`, f)],
  ),
  suppressions: keyset(
    'suppressions',
    'email',
    ['email', 'reason', 'createdAt'],
    sql`email, reason, ${iso('created_at')}`,
    (p, f) => [
      sql`project_id = ${p}`,
      ...(f.reason ? [sql`reason = ${f.reason}`] : []),
      ...(f.search ? [sql`email like ${containsPattern(f.search.toLowerCase())} escape '\\'`] : []),
      ...since(sql`created_at`, f),
    ],
  ),
  consent: keyset(
    'consent_events',
    'id',
    ['id', 'contactId', 'email', 'action', 'topicId', 'source', 'formId', 'ip', 'userAgent', 'createdAt'],
    sql`id, contact_id as "contactId", (select c.email from contacts c where c.id = contact_id) as email, action,
      topic_id as "topicId", source, form_id as "formId", ip, user_agent as "userAgent", ${iso('created_at')}`,
    (p, f) => [sql`project_id = ${p}`, ...since(sql`created_at`, f)],
  ),
};
