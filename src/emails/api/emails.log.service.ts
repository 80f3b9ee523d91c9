import { instanceTransportName } from '../../transports/keys.js';
import type { Deps } from '../../deps.js';
import { decodeCursor, encodeCursor } from '../../events/events.cursor.js';
import { notFound } from '../../http/errors.js';
import { isUuid } from '../../lib/ids.js';
import { MessageRenderError, renderEmail } from '../render/render.js';
import * as repo from './emails.log.repo.js';
import type { ListEmailsQuery } from './emails.log.schema.js';

/**
 * The email log: every outgoing email of a project whatever sent it (`/v1/send`, SMTP submission,
 * campaigns, workflows, test sends), newest first, and one email with its events and the message as
 * rendered. Read-only; the rows are written by the sending stages (queue, delivery, feedback).
 */

const ID_KEY = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// A preview renders for a contact that is gone as for one without data.
const NO_CONTACT_ID = '00000000-0000-0000-0000-000000000000';

/** The fields the list and the page share. */
function summaryOf(r: repo.LogRow) {
  return {
    id: r.id,
    status: r.status,
    to: { email: r.toEmail, name: r.toName },
    contactId: r.contactId,
    from: { email: r.fromEmail, name: r.fromName },
    subject: r.subject,
    type: r.type,
    source: {
      type: r.source,
      campaign: r.campaignId ? { id: r.campaignId, name: r.campaignName } : null,
      workflow: r.executionId ? { id: r.workflowId, name: r.workflowName, executionId: r.executionId } : null,
      template: r.templateId ? { id: r.templateId, name: r.templateName } : null,
    },
    senderVerified: r.senderVerified,
    error: r.error,
    createdAt: r.createdAt,
    sentAt: r.sentAt,
    updatedAt: r.updatedAt,
  };
}

/**
 * `GET /emails`: the project's emails newest first (queued time), filtered by status (one or more),
 * part of the recipient address, source (`api`, `campaign`, `workflow`, `test`), campaign, workflow
 * and a `[since, until)` window, in the cursor envelope `{data, cursor, hasMore, total}` (`total`
 * counts the matches on the first page only, 0 after).
 * @throws AppError 422 for a cursor this route did not issue (the schema refuses other bad filters).
 */
export async function listEmails(deps: Deps, projectId: string, q: ListEmailsQuery) {
  const cursor = q.cursor ? decodeCursor(q.cursor, ID_KEY) : undefined;
  const filter: repo.LogFilter = {
    statuses: q.status?.length ? q.status : undefined,
    to: q.to,
    source: q.source,
    campaignId: q.campaignId,
    workflowId: q.workflowId,
    since: q.since,
    until: q.until,
  };
  const [rows, total] = await Promise.all([
    repo.logPage(deps.db, projectId, filter, { cursor, limit: q.limit }),
    cursor ? 0 : repo.logCount(deps.db, projectId, filter),
  ]);
  const hasMore = rows.length > q.limit;
  const page = rows.slice(0, q.limit);
  const last = page.at(-1);
  return {
    data: page.map(summaryOf),
    cursor: hasMore && last ? encodeCursor(Number(last.atUs), last.id) : null,
    hasMore,
    total,
  };
}

/**
 * `GET /emails/:id`: one email of the project with every time it records, its failure reason, its
 * source, its `email.*` events and the subject and body as the recipient gets them. The body is
 * rendered here again (the rows keep the template and the variables, not the built message), with the
 * contact's data as it is now and without tracking, so looking at it records no open and no click; the
 * subject of a sent email is the one it was sent with.
 * @throws AppError 404 when the id is not an email of this project.
 */
export async function getEmail(deps: Deps, projectId: string, id: string) {
  const row = isUuid(id) ? await repo.findEmail(deps.db, projectId, id) : undefined;
  if (!row) throw notFound('Email');
  const [attachments, events] = await Promise.all([
    repo.attachmentsOf(deps.db, row),
    repo.eventsOf(deps.db, projectId, row),
  ]);
  let rendered: { subject: string; html: string; text: string } | null = null;
  let renderError: string | null = null;
  try {
    const out = await renderEmail({
      // A sent email's subject is stored rendered: rendering it again could read its text as a template.
      emailId: row.id,
      subject: row.sentAt ? '' : row.subject,
      body: row.body ?? '',
      type: row.type,
      tracking: 'DISABLED',
      contactData: row.contactData ?? {},
      variables: row.variables,
      contact: { id: row.contactId ?? NO_CONTACT_ID, email: row.toEmail },
      publicUrl: deps.config.PUBLIC_URL,
      secret: deps.secret,
    });
    rendered = { subject: row.sentAt ? row.subject : out.subject, html: out.html, text: out.text };
  } catch (err) {
    if (!(err instanceof MessageRenderError)) throw err;
    renderError = `Rendering failed: ${err.message}`;
  }
  return {
    ...summaryOf(row),
    replyTo: row.replyTo,
    messageId: row.messageId,
    transport: row.transport
      ? { id: row.transport, name: instanceTransportName(row.transport) ?? row.transportName }
      : null,
    locale: row.locale,
    attempts: row.attempts,
    deliveredAt: row.deliveredAt,
    openedAt: row.openedAt,
    clickedAt: row.clickedAt,
    bouncedAt: row.bouncedAt,
    complainedAt: row.complainedAt,
    headers: row.headers,
    attachments,
    events,
    rendered,
    renderError,
  };
}
