import { sql, type SQL } from 'drizzle-orm';
import type { ConsentAction, ConsentSource } from '../db/schema/contacts.js';
import type { SqlRunner } from '../db/tx.js';
import { newId } from '../lib/ids.js';
import { sqlUuidV7 } from '../db/uuid-sql.js';

export type { ConsentAction, ConsentSource };

/**
 * The consent log (table `consent_events`, issue 35): the one module that writes it. Every change of a
 * contact's `subscribed` or of a topic membership records one entry here, in the transaction that makes
 * the change, so the log and the state never disagree. Entries are never updated or deleted (a
 * contact's erasure deletes its entries by cascade).
 */

/** Where and how a change was asked for: the part of an entry the change's path knows. */
export interface ConsentOrigin {
  source: ConsentSource;
  /** The hosted form the change came through (source `form`). */
  formId?: string | null;
  /** The client address of a public request (form, preference centre, one-click), as `TRUST_PROXY` resolves it. */
  ip?: string | null;
  /** The User-Agent header of that request, cut to 512 characters. */
  userAgent?: string | null;
}

/** One entry: `topicId` null for the master switch (`subscribed`, `unsubscribed`, `confirmed`, `snoozed`). */
export interface ConsentEntry extends ConsentOrigin {
  contactId: string;
  action: ConsentAction;
  topicId?: string | null;
  at: Date;
}

const USER_AGENT_MAX = 512;

/**
 * Records `entries` of project `projectId` in the caller's transaction `tx`, in one statement.
 * Contact ids must belong to the project (the callers changed those contacts in the same transaction).
 */
export async function recordConsent(tx: SqlRunner, projectId: string, entries: readonly ConsentEntry[]): Promise<void> {
  if (!entries.length) return;
  const rows = entries.map((e) => ({
    id: newId(),
    contact_id: e.contactId,
    topic_id: e.topicId ?? null,
    action: e.action,
    source: e.source,
    form_id: e.formId ?? null,
    ip: e.ip ?? null,
    user_agent: e.userAgent ? e.userAgent.slice(0, USER_AGENT_MAX) : null,
    created_at: e.at.toISOString(),
  }));
  await tx.execute(sql`insert into consent_events (id, project_id, contact_id, topic_id, action, source, form_id, ip, user_agent, created_at)
    select x.id, ${projectId}::uuid, x.contact_id, x.topic_id, x.action, x.source, x.form_id, x.ip, x.user_agent, x.created_at
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as x(id uuid, contact_id uuid, topic_id uuid, action text,
      source text, form_id uuid, ip text, user_agent text, created_at timestamptz)`);
}

/**
 * The same insert for set-based writers, as an `INSERT … SELECT` usable as a data-modifying CTE: one
 * entry per row of `rows`, a relation (a CTE name or subquery) with columns `contact_id` (uuid),
 * `action` (text), `topic_id` (uuid or null) and `at` (timestamptz), all from origin `origin`.
 */
export function consentInsert(projectId: string, rows: SQL, origin: ConsentOrigin): SQL {
  const ua = origin.userAgent ? origin.userAgent.slice(0, USER_AGENT_MAX) : null;
  return sql`insert into consent_events (id, project_id, contact_id, topic_id, action, source, form_id, ip, user_agent, created_at)
    select ${sqlUuidV7(sql`r.at`)},
      ${projectId}::uuid, r.contact_id, r.topic_id, r.action, ${origin.source}, ${origin.formId ?? null}::uuid,
      ${origin.ip ?? null}, ${ua}, r.at
    from ${rows} r`;
}
