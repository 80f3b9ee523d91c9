import { sql } from 'drizzle-orm';
import { contactUpsertRow, contactUpsertSetCtes, upsertContact } from '../../contacts/contacts.upsert.js';
import { subscriptionChangeCtes } from '../../contacts/subscription.js';
import { groupCommitPerPool } from '../../db/group-commit.js';
import { executePrepared } from '../../db/prepared.js';
import { relation, unionAll } from '../../db/relation.js';
import type { TemplateType } from '../../db/schema/messaging.js';
import type { Deps } from '../../deps.js';
import { workflowDispatchJobs } from '../../events/emit.js';
import { contactUpsertEvents, webhookDeliveries } from '../../webhook-endpoints/fanout.js';
import { queueEmailsCtes, queueEmailSql } from '../queue/queue.js';

/**
 * The common `/v1/send`: one transactional mail to one recipient, group-committed. Concurrent such
 * sends of one project run as ONE statement (db/group-commit.ts, as `/v1/track` does): per request its
 * contact upserted (contacts.upsert.ts, the one upsert rule), the subscription event when an existing
 * contact's state flips, the `contact.created` / `contact.updated` webhook deliveries, the `emails`
 * row and its `emails:send` job (queue.ts). One statement is atomic without an explicit transaction,
 * so each request's contact, mail and job commit together or not at all, and its caller is answered
 * only after that commit. A batch that fails is run again request by request (GroupCommit), so a
 * request the database refuses fails alone, and nothing of it is written: no mail is lost or queued twice.
 */

/** `/v1/send` (and SMTP submission, which goes through it) is an API key's call: its consent entries' origin. */
export const SEND_ORIGIN = { source: 'api' } as const;

/** One send to batch: what it writes and who it is. */
export interface SingleSend {
  projectId: string;
  /** The recipient as given (normalised by the upsert rule) and its display name. */
  to: { email: string; name?: string };
  /** Contact data of the request (contact-data.ts `splitData`). */
  data: Parameters<typeof contactUpsertRow>[0]['data'];
  /** Explicit subscription state; undefined keeps an existing contact's (new contacts: unsubscribed). */
  subscribed?: boolean;
  /** The email row's fields (queue.ts writes them as the one-statement send did). */
  mail: {
    id: string;
    fromEmail: string;
    fromName: string | null;
    replyTo: string | null;
    subject: string;
    body: string;
    headers: Record<string, string>;
    variables: Record<string, unknown>;
    type: TemplateType;
    templateId: string | null;
  };
  /** When the request was taken: the contact's `updated_at` and the email's `created_at`. */
  now: Date;
}

/**
 * The largest send, in {@link batchBytes}, that joins a batch. A larger one (bodies run to 1,000,000
 * characters) goes through its own statement instead: batching saves one round
 * trip and one commit, which is little beside moving such a body, and in a batch the body would
 * travel inside the batch's JSON document, parsed by PostgreSQL into jsonb and out again as text,
 * where alone it is a text parameter written as it is. Transactional HTML is far below (Gmail clips
 * at 102 KB).
 */
const BATCH_ITEM_MAX_BYTES = 128 * 1024;

/** The estimated weight of `s` in a batch's JSON: body, subject, headers, variables and contact data. */
function batchBytes(s: Pick<SingleSend, 'mail' | 'data'>): number {
  const json = (v: unknown) => JSON.stringify(v ?? {}).length;
  // Ids, addresses, names and times: under 600 bytes.
  return (
    s.mail.body.length + s.mail.subject.length + json(s.mail.headers) + json(s.mail.variables) + json(s.data) + 600
  );
}

/** One request as a row of the statement: its contact upsert row plus its email's fields (JSON keys are columns). */
interface SendRow extends ReturnType<typeof contactUpsertRow> {
  project: string;
  bytes: number;
  email_id: string;
  to_name: string | null;
  from_email: string;
  from_name: string | null;
  reply_to: string | null;
  subject: string;
  body: string;
  headers: Record<string, string>;
  variables: Record<string, unknown>;
  type: TemplateType;
  template_id: string | null;
}

/** A row without the fields only the batching reads. */
const statementRow = ({ project, bytes, ...row }: SendRow) => row;

/** The statement of a batch of one project's sends to distinct contacts; one row (`email`, `id`) per contact. */
function sendStatement(projectId: string, rows: SendRow[]) {
  const u = contactUpsertSetCtes(
    projectId,
    rows.map(statementRow),
    sql`, email_id uuid, to_name text, from_email text, from_name text, reply_to text, subject text, body text,
      headers jsonb, variables jsonb, type text, template_id uuid`,
  );
  const flipped = subscriptionChangeCtes('flipped', projectId, u.upserted, SEND_ORIGIN);
  // `contact.created` for a new contact, `contact.updated` for an existing one the send changed.
  const announced = contactUpsertEvents(
    relation(sql`(select * from ${u.upserted.from} x where x.is_new or x.changed)`),
    sql`r.at`,
  );
  const mails = queueEmailsCtes('mails', {
    values: {
      id: sql`r.email_id`,
      projectId,
      contactId: sql`c.id`,
      toEmail: sql`c.email`,
      toName: sql`r.to_name`,
      fromEmail: sql`r.from_email`,
      fromName: sql`r.from_name`,
      replyTo: sql`r.reply_to`,
      subject: sql`r.subject`,
      body: sql`r.body`,
      headers: sql`r.headers`,
      variables: sql`r.variables`,
      type: sql`r.type`,
      sourceType: 'TRANSACTIONAL',
      templateId: sql`r.template_id`,
      createdAt: sql`r.at`,
      updatedAt: sql`r.at`,
    },
    from: sql`up c join input r on r.email = c.email`,
  });
  return sql`
    with ${u.ctes}, ${flipped.def},
    webhooks as (${webhookDeliveries(unionAll(flipped.rel, announced), projectId)}),
    jobs as (${workflowDispatchJobs(flipped.rel, projectId)}),
    ${mails.ctes}
    select up.email, up.id, (select count(*) from jobs) as jobs, ${mails.jobs} as mail_jobs from up`;
}

/**
 * Sends in flight: a sixth of the pool for these writes and a twelfth for their sender checks
 * (send.sender-check.ts), a quarter in all: `/v1/track` may hold half, and other routes keep the rest
 * however busy both get. Two per project, so a busy project's sends gather into batches.
 */
const committer = groupCommitPerPool(6, (deps: Deps) => ({
  maxInFlightPerKey: 2,
  maxBatch: 100,
  maxBytes: 1024 * 1024,
  key: (r: SendRow) => r.project,
  // ON CONFLICT DO UPDATE touches a contact once a statement: two sends to one contact go in turn.
  distinct: (r: SendRow) => r.email,
  size: (r: SendRow) => r.bytes,
  async run(projectId: string, rows: SendRow[]): Promise<Array<{ id: string; email: string }>> {
    const res = await executePrepared<{ email: string; id: string }>(deps.db, sendStatement(projectId, rows));
    // Only the contact: the statement's other columns (its job counts) are not part of the answer.
    const ids = new Map(res.rows.map((x) => [x.email, x.id]));
    return rows.map((r) => ({ id: ids.get(r.email)!, email: r.email }));
  },
}));

/**
 * Writes the send `s` (see the module comment) and resolves once the statement holding it has
 * committed: with the concurrent sends of its project, or, larger than {@link BATCH_ITEM_MAX_BYTES},
 * in a statement of its own (the same writes: contacts.upsert.ts `upsertContact` with the mail's
 * insert and job, queue.ts `queueEmailSql`). A lone send goes at once either way.
 * @returns the recipient's contact (`id`, stored `email`).
 * @throws (rejects with) the database's error when the send, run alone, is refused.
 */
export async function sendSingle(deps: Deps, s: SingleSend): Promise<{ id: string; email: string }> {
  const bytes = batchBytes(s);
  if (bytes > BATCH_ITEM_MAX_BYTES) return sendAlone(deps, s);
  const row: SendRow = {
    ...contactUpsertRow({
      email: s.to.email,
      data: s.data,
      subscribed: s.subscribed,
      defaultSubscribed: false,
      now: s.now,
    }),
    project: s.projectId,
    bytes,
    email_id: s.mail.id,
    to_name: s.to.name ?? null,
    from_email: s.mail.fromEmail,
    from_name: s.mail.fromName,
    reply_to: s.mail.replyTo,
    subject: s.mail.subject,
    body: s.mail.body,
    headers: s.mail.headers,
    variables: s.mail.variables,
    type: s.mail.type,
    template_id: s.mail.templateId,
  };
  return committer(deps).submit(row);
}

/** {@link sendSingle} in a statement of its own, the body a text parameter. */
async function sendAlone(deps: Deps, s: SingleSend): Promise<{ id: string; email: string }> {
  const { contact } = await upsertContact(
    deps.db,
    {
      projectId: s.projectId,
      email: s.to.email,
      data: s.data,
      subscribed: s.subscribed,
      defaultSubscribed: false,
      origin: SEND_ORIGIN,
      now: s.now,
    },
    queueEmailSql({
      ...s.mail,
      projectId: s.projectId,
      contactId: sql`(select id from up)`,
      toEmail: sql`(select email from up)`,
      toName: s.to.name ?? null,
      contentId: null,
      sourceType: 'TRANSACTIONAL',
      createdAt: s.now,
      updatedAt: s.now,
    }),
  );
  return { id: contact.id, email: contact.email };
}
