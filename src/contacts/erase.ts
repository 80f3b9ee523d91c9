import { sql } from 'drizzle-orm';
import { recordAudit, type AuditActor } from '../audit/audit.js';
import type { Deps } from '../deps.js';
import type { Transaction } from '../db/tx.js';
import { invalid, notFound } from '../http/errors.js';
import { isUuid } from '../lib/ids.js';
import { erasedAddress } from '../suppressions/erased.js';
import { rekeyAsErased } from '../suppressions/suppressions.repo.js';

/** What an erasure did, counted (no address in it). */
export interface ErasureResult {
  erased: true;
  /** Email rows kept for reports, their recipient replaced by the keyed hash and their content blanked. */
  emails: number;
  /** The contact's events deleted. */
  events: number;
  /** Suppressions of the address kept under its keyed hash (0 or 1). */
  suppressions: number;
  /** Webhook deliveries whose payload named the address or one of the contact's events, deleted. */
  webhookDeliveries: number;
  /** Export files of the project deleted (they may hold the address). */
  exportFiles: number;
}

/** A PostgreSQL regular expression matching `s` literally (ARE syntax). */
const literalRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * `POST /contacts/:id/erase` (GDPR Art. 17): irreversibly removes contact `contactId` and every trace
 * of its address from the project, in one transaction with the audit entry `contact.erase` (no address
 * in it). `confirm` must be the contact's address (any case), so it cannot happen by accident.
 *
 * - the contact goes, and with it (foreign keys) its consent entries, topics, segment memberships,
 *   workflow runs and form sign-ups; its events are deleted first (webhook deliveries of them too);
 * - its email rows (by contact or by recipient address) stay, so reports keep their counts, with
 *   `to_email` = `erased:<HMAC>` (suppressions/erased.ts), no name, subject, body, headers, variables
 *   or attachments, the address cut out of the error text and of clicked URLs; mail not yet sent ends
 *   `SUPPRESSED`; shared contents no other mail uses are deleted, the address cut out of the others;
 * - a suppression of the address is kept under the keyed hash: the address stays suppressed;
 * - webhook deliveries whose payload, subject or response mentions it are deleted; finished imports
 *   whose file holds it lose the file and have it cut out of their results; exports' filters lose it,
 *   and every finished export file of the project is deleted after the commit (`onCommitted` gets their keys).
 * @throws AppError 404 for an unknown contact, another project's, or a non-uuid id; 422 when `confirm`
 * is not the contact's address.
 */
export async function eraseContact(
  deps: Deps,
  projectId: string,
  contactId: string,
  confirm: string,
  actor: AuditActor,
): Promise<{ result: ErasureResult; exportKeys: string[] }> {
  if (!isUuid(contactId)) throw notFound('Contact');
  return deps.db.transaction(async (tx) => {
    const c = await tx.execute<{ email: string }>(
      sql`select email from contacts where id = ${contactId} and project_id = ${projectId} for update`,
    );
    const email = c.rows[0]?.email;
    if (!email) throw notFound('Contact');
    if (confirm.trim().toLowerCase() !== email) {
      throw invalid('confirm', "Type the contact's email address to confirm the erasure");
    }
    const hash = erasedAddress(email);
    const re = literalRegex(email);
    const out = await eraseRows(tx, projectId, contactId, email, hash, re);
    await recordAudit(tx, projectId, actor, {
      action: 'contact.erase',
      target: { type: 'contact', id: contactId },
      changes: null,
    });
    return out;
  });
}

async function eraseRows(
  tx: Transaction,
  p: string,
  contactId: string,
  email: string,
  hash: string,
  re: string,
): Promise<{ result: ErasureResult; exportKeys: string[] }> {
  const cut = (col: string) => sql`regexp_replace(${sql.raw(col)}, ${re}, ${hash}, 'gi')`;
  // Email rows: by contact, and any other mail to the address.
  const emails = await tx.execute<{ id: string; content_id: string | null }>(sql`
    with old as (select id, content_id from emails where project_id = ${p}
        and (contact_id = ${contactId} or to_email = ${email}) for update),
      upd as (update emails e set to_email = ${hash}, to_name = null, subject = '', body = '', content_id = null,
          headers = '{}', variables = '{}', error = ${cut('e.error')},
          status = case when e.status in ('PENDING', 'SENDING') then 'SUPPRESSED' else e.status end,
          updated_at = now()
        from old where e.id = old.id returning e.id, old.content_id)
    select id, content_id from upd`);
  const emailIds = emails.rows.map((r) => r.id);
  const contentIds = [...new Set(emails.rows.map((r) => r.content_id).filter((x): x is string => !!x))];
  const ids = sql`${`{${emailIds.join(',')}}`}::uuid[]`;
  const contents = sql`${`{${contentIds.join(',')}}`}::uuid[]`;
  if (emailIds.length) {
    await tx.execute(sql`delete from email_attachments where email_id = any(${ids})`);
    await tx.execute(
      sql`update email_link_clicks set url = ${cut('url')} where email_id = any(${ids}) and url ~* ${re}`,
    );
  }
  if (contentIds.length) {
    await tx.execute(sql`delete from email_contents c where c.id = any(${contents})
      and not exists (select 1 from emails e where e.content_id = c.id)`);
    await tx.execute(
      sql`update email_contents set body = ${cut('body')} where id = any(${contents}) and body ~* ${re}`,
    );
  }
  // Webhook deliveries of the contact's events or naming the address, then the events.
  const hooks = await tx.execute(sql`delete from webhook_deliveries d
    where d.endpoint_id in (select id from webhook_endpoints where project_id = ${p})
      and (d.event_id in (select id from events where project_id = ${p} and contact_id = ${contactId})
        or d.payload::text ~* ${re} or d.subject ~* ${re} or d.response_body ~* ${re})`);
  const events = await tx.execute(sql`delete from events where project_id = ${p}
    and (contact_id = ${contactId} or email_id = any(${ids}))`);
  // The suppression stays, under the keyed hash.
  const supp = await rekeyAsErased(tx, p, email, hash);
  // Finished imports: the uploaded file goes if it holds the address (bytes other than ASCII escaped to compare).
  await tx.execute(sql`update background_jobs set input = input - 'file' || '{"fileErased": true}'::jsonb
    where project_id = ${p} and state in ('completed', 'failed') and input ? 'file'
      and lower(encode(decode(input->>'file', 'base64'), 'escape')) like ${`%${email.replace(/[\\%_]/g, (x) => `\\${x}`)}%`}`);
  await tx.execute(sql`update background_jobs set result = ${cut('result::text')}::jsonb,
      failed_reason = ${cut('failed_reason')}
    where project_id = ${p} and (result::text ~* ${re} or failed_reason ~* ${re})`);
  await tx.execute(
    sql`update exports set filter = ${cut('filter::text')}::jsonb where project_id = ${p} and filter::text ~* ${re}`,
  );
  const files = await tx.execute<{ key: string }>(sql`with f as (select id, storage_key from exports
      where project_id = ${p} and storage_key is not null for update)
    update exports e set storage_key = null from f where e.id = f.id returning f.storage_key as key`);
  await tx.execute(sql`delete from contacts where id = ${contactId}`);
  return {
    result: {
      erased: true,
      emails: emailIds.length,
      events: events.rowCount ?? 0,
      suppressions: supp,
      webhookDeliveries: hooks.rowCount ?? 0,
      exportFiles: files.rows.length,
    },
    exportKeys: files.rows.map((r) => r.key),
  };
}
