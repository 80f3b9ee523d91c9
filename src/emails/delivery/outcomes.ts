import { and, eq, inArray, sql } from 'drizzle-orm';
import { executePrepared, hotStatement, uuidArray } from '../../db/prepared.js';
import type pg from 'pg';
import { emails } from '../../db/schema.js';
import { workflowDispatchJobs } from '../../events/emit.js';
import { verifiedDomainSql } from '../../domains/verified.js';
import { hardBounce } from '../../feedback/consequences.js';
import { newId } from '../../lib/ids.js';
import { queueWebhookDeliveries, webhookDeliveries } from '../../webhook-endpoints/fanout.js';
import { MARKETING_SKIPPED, marketingEligibleSql } from '../eligibility.js';
import type { EmailRow } from '../emails.repo.js';
import type { Tx } from '../../db/tx.js';
import { emailEventData } from '../email-events.js';
import { relation } from '../../db/relation.js';

/**
 * What happens to an email after it was queued.
 * Status only moves up `PENDING → SENDING → SENT → DELIVERED → OPENED → CLICKED`, or ends in
 * `BOUNCED | COMPLAINED | FAILED | SUPPRESSED`; every move is a conditional UPDATE, so a replay or a
 * race changes nothing twice. Each outcome records its `email.*` event in the same transaction.
 */

/**
 * A delivery run's hold on a SENDING row: `token` is written by {@link claimForDelivery}; the hand-off
 * mark and every delivery outcome below require it, so a run whose row was taken over (its worker
 * presumed dead, see src/worker/liveness.ts) changes nothing.
 */
export interface Claim {
  emailId: string;
  token: string;
}

/** What a delivery run needs of a claimed email, read by the claim statement itself. */
export interface ClaimedEmail {
  email: Pick<
    EmailRow,
    | 'id'
    | 'projectId'
    | 'contactId'
    | 'toEmail'
    | 'toName'
    | 'fromEmail'
    | 'fromName'
    | 'replyTo'
    | 'subject'
    | 'body'
    | 'contentId'
    | 'headers'
    | 'variables'
    | 'type'
    | 'campaignId'
    | 'sourceType'
    | 'transport'
    | 'locale'
  > & {
    /** True when attachments are stored on this email itself (no shared content): getContent must read them. */
    ownAttachments: boolean;
  };
  /** The topic the mail was sent to (issue 35), or null; gone topics read as null. */
  topic: { id: string; name: string } | null;
  /** The contact, or null when it was deleted since the mail was queued. */
  contact: { id: string; email: string; data: Record<string, unknown> } | null;
  /** The project's verified domain covering the sender (most specific first), or null when none is. */
  /** `dkimPrivateKey` as stored: sealed (lib/secrets.ts), opened where the mail is signed. */
  domain: { id: string; domain: string; dkimSelector: string; dkimPrivateKey: string } | null;
  /** The project's tracking mode. */
  tracking: 'ENABLED' | 'DISABLED' | 'MARKETING_ONLY';
}

/** What {@link claimForDelivery} found. */
export type ClaimResult =
  /** The run holds the row. `retaken`: it was SENDING (a run that died); `handedOff`: that run had
   * reached the final "." of DATA, so the recipient may already have it (RFC 1047). */
  | { kind: 'claimed'; claim: Claim; retaken: boolean; handedOff: boolean; data: ClaimedEmail }
  /** MARKETING mail whose recipient stopped being eligible since it was queued: now SUPPRESSED. */
  | { kind: 'suppressed' }
  /** Nothing to do: the row is gone or already past sending (a replayed job). */
  | { kind: 'none' };

type ClaimRow = {
  was: string;
  t_id: string | null;
  t_name: string | null;
  handed_off: boolean;
  eligible: boolean;
  id: string;
  project_id: string;
  contact_id: string | null;
  to_email: string;
  to_name: string | null;
  from_email: string;
  from_name: string | null;
  reply_to: string | null;
  subject: string;
  body: string | null;
  content_id: string | null;
  headers: Record<string, string>;
  variables: Record<string, unknown>;
  type: EmailRow['type'];
  campaign_id: string | null;
  locale: string | null;
  source_type: EmailRow['sourceType'];
  transport: string | null;
  own_attachments: boolean;
  c_id: string | null;
  c_email: string | null;
  c_data: Record<string, unknown> | null;
  d_id: string | null;
  d_domain: string | null;
  d_selector: string | null;
  d_key: string | null;
  tracking: ClaimedEmail['tracking'] | null;
};

/** What {@link claimBatch} found for a list of emails. */
export interface BatchClaim {
  /** The rows this run now holds, in id order (see {@link ClaimResult} `claimed`). */
  claimed: Array<{ claim: Claim; retaken: boolean; handedOff: boolean; data: ClaimedEmail }>;
  /** How many MARKETING rows ended SUPPRESSED because their recipient stopped being eligible. */
  suppressed: number;
}

/**
 * Takes emails for a delivery run, in one statement whatever their number: PENDING → SENDING, or a
 * SENDING row left by a run that died (Graphile runs a job again only once its previous run released
 * it or was found dead), each stamped with the run's claim `token`; the same statement reads what
 * sending needs (the row, its contact, the verified domain covering the sender with its DKIM key, the
 * project's tracking mode). Rows are locked in id order, so two runs claiming overlapping lists cannot
 * deadlock. The marketing rule (eligibility.ts) is applied here again, at the moment of sending:
 * MARKETING mail to a contact who unsubscribed, snoozed or was suppressed after it was queued ends
 * SUPPRESSED with the reason instead. Ids that are gone or already past sending are left out.
 */
export async function claimBatch(tx: Tx, emailIds: string[], token: string, at: Date): Promise<BatchClaim> {
  if (!emailIds.length) return { claimed: [], suppressed: 0 };
  const now = at.toISOString();
  const r = await executePrepared<ClaimRow>(
    tx,
    sql`
    with prev as (select id, status, message_id from emails
      where id = any(${uuidArray(emailIds)}) and status in ('PENDING', 'SENDING') order by id for update),
    upd as (
      update emails e set status = 'SENDING', claim_token = ${token}::uuid, attempts = e.attempts + 1, updated_at = ${now}::timestamptz
      from prev where e.id = prev.id
      returning e.*, prev.status as was, prev.message_id is not null as handed_off)
    select upd.was, upd.handed_off, upd.id, upd.project_id, upd.contact_id, upd.to_email, upd.to_name, upd.from_email,
      upd.from_name, upd.reply_to, upd.subject, upd.body, upd.content_id, upd.headers, upd.variables, upd.type, upd.campaign_id,
      upd.source_type, upd.transport, upd.locale, t.id as t_id, t.name as t_name,
      -- An index probe here saves the attachment read (a round trip) of the common mail that has none.
      (upd.content_id is null and exists (select 1 from email_attachments a where a.email_id = upd.id)) as own_attachments,
      (upd.type <> 'MARKETING' or upd.source_type = 'TEST' or (c.id is not null
        and ${marketingEligibleSql('c', at, sql`upd.to_email`, sql`upd.topic_id`)})) as eligible,
      c.id as c_id, c.email as c_email, c.data as c_data,
      d.id as d_id, d.domain as d_domain, d.dkim_selector as d_selector, d.dkim_private_key as d_key, p.tracking
    from upd
    left join contacts c on c.id = upd.contact_id
    left join projects p on p.id = upd.project_id
    left join topics t on t.id = upd.topic_id
    left join lateral ${verifiedDomainSql(sql`upd.project_id`, sql`upd.from_email`)} d on true
    order by upd.id`,
  );
  const ineligible = r.rows.filter((row) => !row.eligible).map((row) => row.id);
  if (ineligible.length) {
    await tx
      .update(emails)
      .set({ status: 'SUPPRESSED', error: MARKETING_SKIPPED, claimToken: null, updatedAt: at })
      .where(and(inArray(emails.id, ineligible), eq(emails.status, 'SENDING'), eq(emails.claimToken, token)));
  }
  const claimed = r.rows
    .filter((row) => row.eligible)
    .map((row) => ({
      claim: { emailId: row.id, token },
      retaken: row.was === 'SENDING',
      handedOff: row.handed_off,
      data: {
        email: {
          id: row.id,
          projectId: row.project_id,
          contactId: row.contact_id,
          toEmail: row.to_email,
          toName: row.to_name,
          fromEmail: row.from_email,
          fromName: row.from_name,
          replyTo: row.reply_to,
          subject: row.subject,
          body: row.body,
          contentId: row.content_id,
          headers: row.headers,
          variables: row.variables,
          type: row.type,
          campaignId: row.campaign_id,
          sourceType: row.source_type,
          transport: row.transport,
          locale: row.locale,
          ownAttachments: row.own_attachments,
        },
        topic: row.t_id ? { id: row.t_id, name: row.t_name! } : null,
        contact: row.c_id ? { id: row.c_id, email: row.c_email!, data: row.c_data ?? {} } : null,
        domain: row.d_domain
          ? { id: row.d_id!, domain: row.d_domain, dkimSelector: row.d_selector!, dkimPrivateKey: row.d_key! }
          : null,
        tracking: row.tracking ?? 'ENABLED',
      } satisfies ClaimedEmail,
    }));
  return { claimed, suppressed: ineligible.length };
}

/** {@link claimBatch} for one email (the `emails:send` job). */
export async function claimForDelivery(tx: Tx, emailId: string, token: string, at: Date): Promise<ClaimResult> {
  const { claimed, suppressed } = await claimBatch(tx, [emailId], token, at);
  if (suppressed) return { kind: 'suppressed' };
  return claimed.length ? { kind: 'claimed', ...claimed[0] } : { kind: 'none' };
}

const held = (c: Claim) => and(eq(emails.id, c.emailId), eq(emails.status, 'SENDING'), eq(emails.claimToken, c.token));

/**
 * The hand-off mark, written just before the final "." of DATA: `message_id` set on the held row.
 * @returns false when the run no longer holds the row (it was taken over): the caller must not finish DATA.
 */
export async function markHandOff(
  client: pg.Pool | pg.ClientBase,
  c: Claim,
  messageId: string,
  transport = 'default',
): Promise<boolean> {
  return (await markHandOffMany(client, [{ claim: c, messageId, transport }])).has(c.emailId);
}

/** One hand-off mark for {@link markHandOffMany}. */
export interface HandOffMark {
  claim: Claim;
  /** The Message-ID the mail is sent with (`<emailId@domain>`). */
  messageId: string;
  /**
   * The transport it is handed to (`default` or a project transport's id), kept on the row: a retry
   * goes to the same one, never another (transports/registry.ts `sendRouted`).
   */
  transport: string;
}

/**
 * {@link markHandOff} for several held rows in one statement, so one round trip and one commit (a
 * named prepared statement: parsed once per connection). Each row is marked only while its own
 * claim token still holds it.
 * @returns the ids of the rows marked; an id missing from it was taken over, and its DATA must not be finished.
 */
export async function markHandOffMany(client: pg.Pool | pg.ClientBase, marks: HandOffMark[]): Promise<Set<string>> {
  if (!marks.length) return new Set();
  const r = await client.query<{ id: string }>({
    name: 'pigeon_mark_hand_off',
    text: `update emails e set message_id = m.message_id, transport = m.transport
      from unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[]) as m(id, token, message_id, transport)
      where e.id = m.id and e.status = 'SENDING' and e.claim_token = m.token
      returning e.id`,
    values: [
      marks.map((m) => m.claim.emailId),
      marks.map((m) => m.claim.token),
      marks.map((m) => m.messageId),
      marks.map((m) => m.transport),
    ],
  });
  return new Set(r.rows.map((row) => row.id));
}

/** One accepted message for {@link markSentMany}. */
export interface SentOutcome {
  claim: Claim;
  messageId: string;
  /** The rendered subject, stored on the row so events and the activity feed show what was seen. */
  subject: string;
  /** True when an SMTP server accepted DATA (the next hop has it): DELIVERED as well as SENT. */
  delivered: boolean;
  /** The provider's id of the message (SES `MessageId`), stored for matching its delivery feedback. */
  providerMessageId?: string;
}

/** The statement of {@link markSentMany}, its text rendered once (db/prepared.ts `hotStatement`). */
const sentStatement = hotStatement<
  { input: string; now: string; projectId: string },
  { updated: number; jobs: number }
>(
  (v) => sql`
    with input as (
      select * from jsonb_to_recordset(${v.input}::jsonb)
        as x(id uuid, token uuid, message_id text, subject text, delivered boolean, provider_message_id text, sent_event uuid, delivery_event uuid)),
    upd as (
      update emails e set status = case when x.delivered then 'DELIVERED' else 'SENT' end, message_id = x.message_id,
        provider_message_id = x.provider_message_id,
        subject = x.subject, error = null, sent_at = ${v.now}::timestamptz,
        delivered_at = case when x.delivered then ${v.now}::timestamptz end, updated_at = ${v.now}::timestamptz
      from input x
      where e.id = x.id and e.project_id = ${v.projectId}::uuid and e.status = 'SENDING' and e.claim_token = x.token
      returning e.*, x.sent_event, x.delivery_event),
    inserted as (
      insert into events (id, project_id, contact_id, name, data, email_id, campaign_id, created_at, causation_depth)
      select v.id, upd.project_id, upd.contact_id, v.name,
        jsonb_strip_nulls(jsonb_build_object('emailId', upd.id, 'messageId', upd.message_id, 'to', upd.to_email, 'subject', upd.subject,
          'templateId', upd.template_id, 'campaignId', upd.campaign_id, 'workflowExecutionId', upd.workflow_execution_id,
          'sourceType', upd.source_type)),
        upd.id, upd.campaign_id, ${v.now}::timestamptz,
        coalesce((select x.causation_depth + 1 from workflow_executions x where x.id = upd.workflow_execution_id), 0)::smallint
      from upd cross join lateral (values (upd.sent_event, 'email.sent'), (upd.delivery_event, 'email.delivery')) as v(id, name)
      where v.id is not null
      returning id, contact_id, name, data, created_at),
    webhooks as (${webhookDeliveries(relation(sql`inserted`), v.projectId)}),
    jobs as (${workflowDispatchJobs(relation(sql`inserted`), v.projectId)})
    select (select count(*)::int from upd) as updated, (select count(*)::int from jobs) as jobs`,
);

/**
 * The transport took these messages (all of project `projectId`): each held row becomes SENT, or
 * DELIVERED when an SMTP server accepted it, with its rendered subject. One statement for the whole
 * list: the rows, their `email.sent` (and `email.delivery`) events and the events' workflow dispatch
 * jobs are written together (the same events {@link recordEvent} writes, set-based, since this runs
 * for every mail sent). Rows the run no longer holds (taken over) are left alone.
 * @returns how many rows changed.
 */
export async function markSentMany(tx: Tx, outcomes: SentOutcome[], at: Date, projectId: string): Promise<number> {
  if (!outcomes.length) return 0;
  const now = at.toISOString();
  const input = outcomes.map((o) => ({
    id: o.claim.emailId,
    token: o.claim.token,
    message_id: o.messageId,
    subject: o.subject,
    delivered: o.delivered,
    provider_message_id: o.providerMessageId ?? null,
    sent_event: newId(),
    delivery_event: o.delivered ? newId() : null,
  }));
  const r = await sentStatement(tx, { input: JSON.stringify(input), now, projectId });
  return r.rows[0].updated;
}

/**
 * A campaign is cancelled: its emails still PENDING (not claimed by a delivery run) end FAILED with
 * error "cancelled", kept so that the record shows who did not get it. Rows already SENDING or past
 * it are left to their runs: mail handed to the transport stays sent.
 * @returns how many rows changed.
 */
export async function cancelPendingOfCampaign(
  tx: Tx,
  projectId: string,
  campaignId: string,
  at: Date,
): Promise<number> {
  const r = await tx
    .update(emails)
    .set({ status: 'FAILED', error: 'cancelled', updatedAt: at })
    .where(and(eq(emails.campaignId, campaignId), eq(emails.projectId, projectId), eq(emails.status, 'PENDING')));
  return r.rowCount ?? 0;
}

/** {@link markSentMany} for one message. @returns false when the run no longer held the row. */
export async function markSent(
  tx: Tx,
  c: Claim,
  messageId: string,
  subject: string,
  delivered: boolean,
  at: Date,
  projectId: string,
): Promise<boolean> {
  return (await markSentMany(tx, [{ claim: c, messageId, subject, delivered }], at, projectId)) > 0;
}

/**
 * A permanent refusal (SMTP 5xx on RCPT or DATA): BOUNCED, `email.bounce` with `bounceType:
 * 'Permanent'` (a hard bounce), the contact unsubscribed and the address suppressed.
 */
export async function markBounced(
  tx: Tx,
  c: Claim,
  messageId: string,
  diagnostic: string,
  at: Date,
  transport?: string,
): Promise<boolean> {
  // The transport that refused it: the hand-off mark, which also names it, may not have been written
  // yet when a recipient is refused (the mark runs alongside MAIL FROM and RCPT TO).
  const [row] = await tx
    .update(emails)
    .set({
      status: 'BOUNCED',
      messageId,
      error: diagnostic,
      bouncedAt: at,
      updatedAt: at,
      ...(transport ? { transport } : {}),
    })
    .where(held(c))
    .returning();
  if (!row) return false;
  await hardBounce(tx, row, at, diagnostic);
  return true;
}

/**
 * Gives up on a held email (retries exhausted, sender no longer verified, contact deleted, …). No
 * event row is recorded; the `email.failed` event webhook is queued here (webhook-endpoints/fanout.ts).
 */
export async function markFailed(tx: Tx, c: Claim, reason: string, at: Date): Promise<void> {
  const [row] = await tx
    .update(emails)
    .set({ status: 'FAILED', error: reason.slice(0, 2000), updatedAt: at })
    .where(held(c))
    .returning();
  if (row) {
    await queueWebhookDeliveries(tx, row.projectId, [
      {
        type: 'email.failed',
        contactId: row.contactId,
        data: emailEventData(row, { error: reason.slice(0, 500) }),
        at,
      },
    ]);
  }
}

/** A temporary failure: back to PENDING (the retry state) with the reason; the job runs again later. */
export async function markRetry(tx: Tx, c: Claim, reason: string, at: Date): Promise<void> {
  await tx
    .update(emails)
    .set({ status: 'PENDING', error: reason.slice(0, 2000), claimToken: null, updatedAt: at })
    .where(held(c));
}

// Opens and clicks, and the status rule of delivery feedback: the rest of this module, in files of
// their own.
export * from './engagement.js';
export * from './feedback-status.js';
