import { z } from 'zod';
import { dateParam } from '../../analytics/range.js';
import type { EmailStatus } from '../../db/schema/messaging.js';
import { limitParam } from '../../events/events.schema.js';
import { cursorPage, isoDateTime, jsonObject, uuidOut } from '../../http/responses.js';

/** Every status of an email row (outcomes.ts describes how a row moves between them). */
export const EMAIL_STATUSES = [
  'PENDING',
  'SENDING',
  'SENT',
  'DELIVERED',
  'OPENED',
  'CLICKED',
  'BOUNCED',
  'COMPLAINED',
  'FAILED',
  'SUPPRESSED',
] as const satisfies readonly EmailStatus[];

/**
 * Where an email came from, as the log names it: `api` (`/v1/send` or SMTP submission), `campaign`,
 * `workflow` (a SEND_EMAIL step) or `test` (a template's or campaign's test send).
 */
export const EMAIL_SOURCES = ['api', 'campaign', 'workflow', 'test'] as const;
export type EmailSourceName = (typeof EMAIL_SOURCES)[number];

/** `status=A,B` or repeated `status` parameters; every value must be a known status. */
const statusFilter = z
  .union([z.string(), z.array(z.string())])
  .transform((v) =>
    (Array.isArray(v) ? v : [v])
      .flatMap((s) => s.split(','))
      .map((s) => s.trim().toUpperCase())
      .filter(Boolean),
  )
  .pipe(z.array(z.enum(EMAIL_STATUSES, { message: `Unknown status; one of ${EMAIL_STATUSES.join(', ')}` })));

/**
 * Query of `GET /emails`. The time window is `since`/`until` (not `from`/`to`: `to` is the recipient
 * filter) over the time the email was queued.
 */
export const listEmailsQuery = z
  .object({
    limit: limitParam,
    cursor: z.string().max(500).optional(),
    status: statusFilter
      .optional()
      .meta({ description: 'One status or several, comma-separated (PENDING, SENT, FAILED, …)' }),
    to: z
      .string()
      .trim()
      .min(1, { message: 'to must not be empty' })
      .max(320)
      .optional()
      .meta({ description: 'Part of the recipient address, any case' }),
    source: z.enum(EMAIL_SOURCES, { message: `Unknown source; one of ${EMAIL_SOURCES.join(', ')}` }).optional(),
    campaignId: z.uuid({ message: 'campaignId must be a uuid' }).optional(),
    workflowId: z.uuid({ message: 'workflowId must be a uuid' }).optional(),
    since: dateParam.optional().meta({ description: 'Queued at or after this ISO 8601 date or date-time' }),
    until: dateParam.optional().meta({ description: 'Queued before this ISO 8601 date or date-time' }),
  })
  .refine((q) => !q.since || !q.until || q.since < q.until, {
    message: '"since" must be before "until"',
    path: ['since'],
  });
export type ListEmailsQuery = z.output<typeof listEmailsQuery>;

export const emailIdParams = z.object({ id: z.string() });

// Responses.

const when = isoDateTime.nullable();

/** Where an email came from; the names are null when the campaign, workflow or template is gone. */
const sourceOut = z.object({
  type: z.enum(EMAIL_SOURCES),
  campaign: z.object({ id: uuidOut, name: z.string().nullable() }).nullable(),
  workflow: z.object({ id: uuidOut.nullable(), name: z.string().nullable(), executionId: uuidOut }).nullable(),
  template: z.object({ id: uuidOut, name: z.string().nullable() }).nullable(),
});

const emailSummaryFields = {
  id: uuidOut,
  status: z.enum(EMAIL_STATUSES),
  to: z.object({ email: z.string(), name: z.string().nullable() }),
  contactId: uuidOut.nullable(),
  from: z.object({ email: z.string(), name: z.string().nullable() }),
  subject: z.string().meta({ description: 'As sent once sent; the template before' }),
  type: z.enum(['TRANSACTIONAL', 'MARKETING', 'HEADLESS']),
  source: sourceOut,
  senderVerified: z.boolean().meta({
    description:
      'Whether a verified domain of the project covers the sender now. False with the outbox transport: the ' +
      'mail was written unsigned with the header X-Pigeon-Unverified-Sender: outbox only (with SMTP or SES it fails instead)',
  }),
  error: z.string().nullable().meta({
    description:
      'Why it failed, bounced or was suppressed (the SMTP answer of a bounce); the last temporary failure while retried',
  }),
  createdAt: isoDateTime,
  sentAt: when,
  updatedAt: isoDateTime,
};

/** One row of the email log. */
export const emailSummaryOut = z.object(emailSummaryFields).meta({ id: 'EmailSummary' });
export const emailListOut = cursorPage(emailSummaryOut);

/** One email with its times, events and the message as rendered. */
export const emailDetailOut = z
  .object({
    ...emailSummaryFields,
    replyTo: z.string().nullable(),
    messageId: z.string().nullable().meta({ description: 'The Message-ID it was handed over with' }),
    transport: z
      .object({
        id: z.string().meta({
          description:
            '`default` (the instance transport), `fallback-N` (FALLBACK_TRANSPORTS) or a project transport id',
        }),
        name: z.string().nullable().meta({ description: "The transport's name; null for a deleted one" }),
      })
      .nullable()
      .meta({ description: 'The transport the mail was handed to (routing rules, /transports); null before' }),
    locale: z.string().nullable().meta({
      description: "The translation it went out in (BCP 47, the contact's language); null: the default content",
    }),
    attempts: z.number().int(),
    deliveredAt: when,
    openedAt: when,
    clickedAt: when,
    bouncedAt: when,
    complainedAt: when,
    headers: z
      .record(z.string(), z.string())
      .meta({ description: 'The custom headers asked for (the service adds its own when it builds the mail)' }),
    attachments: z.array(
      z.object({ filename: z.string(), contentType: z.string().nullable(), size: z.number().int() }),
    ),
    events: z
      .array(z.object({ id: uuidOut, name: z.string(), data: jsonObject, createdAt: isoDateTime }))
      .meta({ description: 'The email.* events recorded for it, oldest first' }),
    rendered: z.object({ subject: z.string(), html: z.string(), text: z.string() }).nullable().meta({
      description:
        "The subject and body as the recipient gets them, rendered with the contact's data now and without tracking (showing it counts no open); null when it does not render",
    }),
    renderError: z.string().nullable(),
  })
  .meta({ id: 'EmailDetail' });
