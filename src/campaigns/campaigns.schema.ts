import { z } from 'zod';
import { cursorPage, isoDateTime, offsetPageOut, okEnvelope, uuidOut } from '../http/responses.js';
import { conditionTreeOut } from '../segments/condition.schema.js';
import { bodyField, subjectField } from '../emails/api/content.schema.js';
import { offsetPage } from '../templates/templates.schema.js';
import { emailField } from '../users/users.schema.js';
import { blocksDocument } from '../content/blocks.schema.js';
import { languageStatsOut } from './language.stats.js';
import { translationsIn, translationsOut } from '../content/translations.js';
import { ALWAYS, bodyUnlessBlocks, contentFormat } from '../content/format.schema.js';
import {
  experimentBody,
  experimentOut,
  experimentStatsOut,
  variantBody,
  variantOut,
  variantStatsOut,
} from './experiment.schema.js';
import { deliveryBody, deliveryOut } from './delivery.schema.js';
import { EMAIL_STATUSES } from '../emails/api/emails.log.schema.js';

export const campaignType = z.enum(['TRANSACTIONAL', 'MARKETING', 'HEADLESS']);
export const audienceType = z.enum(['ALL', 'SEGMENT', 'FILTERED']);
export const CAMPAIGN_STATUSES = ['DRAFT', 'SCHEDULED', 'SENDING', 'SENT', 'CANCELLED'] as const;

// Subjects end up in a MIME header: 1..998 characters, no line breaks (RFC 5322 §2.1.1).
const subject = subjectField('Subject must not contain line breaks');
const optionalText = (max: number) => z.string().max(max).nullish();

/**
 * Body of `POST /campaigns` and `PUT /campaigns/:id`. Required: name,
 * subject, body, from. `segmentId` / `audienceCondition` are checked against `audienceType` by the
 * service (422 with `errors[]`), and the condition by the segment compiler. `segmentId` stays a plain
 * string here so that an unknown or malformed id gets the same 422 as a missing one.
 */
export const campaignBody = z
  .object({
    name: z.string().trim().min(1).max(200),
    description: optionalText(2000),
    subject,
    body: bodyField.optional(),
    from: emailField,
    fromName: optionalText(200).transform((s) => (s ? s.replace(/[\r\n]+/g, ' ') : s)),
    replyTo: emailField.nullish(),
    type: campaignType.default('MARKETING'),
    audienceType: audienceType.default('ALL'),
    segmentId: z.string().max(100).nullish(),
    audienceCondition: z.unknown().optional(),
    /** A MARKETING campaign with a topic goes only to the topic's members (422 when not a topic of the project). */
    topicId: z.string().max(100).nullish(),
    /** A/B/n: 2 to 5 versions (with `experiment`); a field left out is the campaign's own (experiment.ts). */
    variants: z.array(variantBody).max(26).nullish(),
    experiment: experimentBody.nullish(),
    /** Send windows and local time (delivery.ts); absent or null: everything at once. */
    delivery: deliveryBody.nullish(),
    format: contentFormat.optional().meta({
      description:
        'html (default for a new campaign): body is HTML; mjml: body is MJML, compiled at save; blocks: `blocks` is the visual editor document. Left out on PUT: the stored format is kept',
    }),
    blocks: blocksDocument.nullish(),
    translations: translationsIn,
  })
  .superRefine(bodyUnlessBlocks, ALWAYS);
export type CampaignInput = z.output<typeof campaignBody>;

export const idParams = z.object({ id: z.string() });

/**
 * Body of `POST /campaigns/:id/send`: `scheduledFor` omitted or null sends now; anything else must
 * parse as a date (else 400 BAD_REQUEST), so it is taken as unknown and parsed by the service.
 */
export const sendBody = z.object({ scheduledFor: z.unknown().optional() }).nullish();

/** Body of `POST /campaigns/:id/test`: the address, and an A/B variant's key to test that variant. */
export const testBody = z.object({
  email: emailField,
  variant: z
    .string()
    .max(1)
    .optional()
    .meta({ description: "An A/B variant's key: the test carries that variant's subject, body and sender" }),
  locale: z
    .string()
    .max(64)
    .optional()
    .meta({ description: 'A language (BCP 47): the test carries the translation a contact of that language gets' }),
});

/**
 * Query of `GET /campaigns`. `status` is validated by the service so that an
 * unknown value answers 400 BAD_REQUEST rather than 422; sort/dir fall back to their defaults.
 */
export const listCampaignsQuery = z.object({
  ...offsetPage,
  status: z.string().optional(),
  search: z.string().max(200).optional(),
  sort: z
    .string()
    .optional()
    .transform((s) => (s === 'name' || s === 'updatedAt' ? s : 'createdAt')),
  dir: z
    .string()
    .optional()
    .transform((d) => (d === 'asc' ? 'asc' : 'desc')),
});
export type ListCampaignsQuery = z.output<typeof listCampaignsQuery>;

// Responses.

const count = z.number().int();

/** A campaign as every endpoint answers it; counters are live once it is being sent. */
export const campaignOutSchema = z
  .object({
    id: uuidOut,
    name: z.string(),
    description: z.string().nullable(),
    subject: z.string(),
    body: z
      .string()
      .meta({ description: 'As written in the format: HTML, MJML, or (blocks) the MJML generated from the document' }),
    format: contentFormat,
    blocks: blocksDocument.nullable().meta({ description: 'The visual editor document (format blocks), else null' }),
    html: z.string().meta({ description: 'The compiled HTML that is sent (equal to body for format html)' }),
    translations: translationsOut,
    from: z.string(),
    fromName: z.string().nullable(),
    replyTo: z.string().nullable(),
    type: campaignType,
    status: z.enum(CAMPAIGN_STATUSES),
    statusReason: z.string().nullable().meta({
      description:
        'Why Pigeon itself moved the campaign to its status (a scheduled send cancelled at its time: over the monthly cap, sender no longer verified, audience gone); null otherwise',
    }),
    audienceType,
    audienceCondition: conditionTreeOut.nullable(),
    segmentId: uuidOut.nullable(),
    topicId: uuidOut.nullable(),
    variants: z.array(variantOut).nullable().meta({ description: 'A/B/n variants; null for a plain campaign' }),
    experiment: experimentOut.nullable(),
    winner: z.string().nullable().meta({ description: 'The variant chosen to go to the rest, once chosen' }),
    delivery: deliveryOut,
    scheduledFor: isoDateTime.nullable(),
    totalRecipients: count,
    sentCount: count,
    deliveredCount: count,
    openedCount: count,
    clickedCount: count,
    bouncedCount: count,
    projectId: uuidOut,
    sentAt: isoDateTime.nullable(),
    createdAt: isoDateTime,
    updatedAt: isoDateTime,
  })
  .meta({ id: 'Campaign' });

export const campaignListOut = offsetPageOut(campaignOutSchema);

/** `POST /campaigns/:id/send`: `{success, data: {id, name, status, scheduledFor}, message}`. */
export const sendCampaignOut = okEnvelope(
  z.object({
    id: uuidOut,
    name: z.string(),
    status: z.enum(CAMPAIGN_STATUSES),
    scheduledFor: isoDateTime.nullable(),
  }),
).extend({ message: z.string() });

/** `POST /campaigns/:id/test`: the queued test email. */
export const testSendOut = okEnvelope(z.object({ id: uuidOut, email: z.string(), campaignId: uuidOut })).extend({
  message: z.string(),
});

const pct = z.number().meta({ description: 'Percent, two decimals' });
export const campaignStatsOut = z.object({
  campaignId: uuidOut,
  status: z.enum(CAMPAIGN_STATUSES),
  totalRecipients: count,
  emails: count,
  pendingCount: count,
  sentCount: count,
  deliveredCount: count,
  openedCount: count,
  clickedCount: count,
  bouncedCount: count,
  complainedCount: count,
  failedCount: count,
  suppressedCount: count.meta({
    description:
      'Emails skipped when claimed for sending: the contact unsubscribed, snoozed or was suppressed after the send started',
  }),
  deliveryRate: pct,
  confirmedDeliveredCount: count.meta({
    description:
      'Emails whose delivery the feedback loop confirmed (SES Delivery notification, DSN "delivered"); deliveredCount also counts mail an SMTP relay accepted',
  }),
  confirmedDeliveryRate: pct.meta({ description: 'confirmedDeliveredCount / sentCount, percent, two decimals' }),
  deliveryReports: z.boolean().meta({
    description:
      'True once any delivery confirmation arrived for the campaign; false with a plain SMTP relay or the outbox, which report none, so the confirmed counts say nothing there',
  }),
  openRate: pct,
  clickRate: pct,
  humanOpenedCount: count.meta({
    description:
      'Emails opened by a person: openedCount without the opens of Apple Mail Privacy Protection, security scanners and link previews',
  }),
  humanClickedCount: count.meta({ description: 'Emails clicked by a person (machine clicks left out)' }),
  humanOpenRate: pct.meta({ description: 'humanOpenedCount over delivered (or sent), percent' }),
  humanClickRate: pct.meta({ description: 'humanClickedCount over delivered (or sent), percent' }),
  bounceRate: pct,
  asOf: isoDateTime.meta({
    description:
      'When these figures were counted: now, or for a campaign of over 50,000 recipients the snapshot read (at most 30 s old, counted again in the background when older)',
  }),
  experiment: experimentStatsOut
    .nullable()
    .meta({ description: 'Where an A/B/n test stands; null for a plain campaign' }),
  variants: z
    .array(variantStatsOut)
    .nullable()
    .meta({ description: "Each variant's test group; null for a plain campaign" }),
  languages: z
    .array(languageStatsOut)
    .nullable()
    .meta({ description: 'Counts by the language each mail went out in; null for a campaign without translations' }),
});

/** Body of `POST /campaigns/audience-count`: the audience fields of a campaign and its type. */
export const audienceCountBody = z.object({
  type: campaignType.default('MARKETING'),
  audienceType: audienceType.default('ALL'),
  segmentId: z.string().max(100).nullish(),
  audienceCondition: z.unknown().optional(),
  topicId: z.string().max(100).nullish(),
});
export type AudienceCountInput = z.output<typeof audienceCountBody>;
export const audienceCountOut = z.object({
  count: count.meta({ description: 'Eligible recipients if the campaign were sent now' }),
});

/** Query of `GET /campaigns/:id/emails`: cursor-paged, optionally one status. */
export const campaignEmailsQuery = z.object({
  cursor: z.string().max(100).optional(),
  limit: z.coerce
    .number({ message: 'limit must be an integer >= 1' })
    .int()
    .min(1)
    .default(50)
    .transform((n) => Math.min(n, 100)),
  status: z.enum(EMAIL_STATUSES).optional(),
});
export type CampaignEmailsQuery = z.output<typeof campaignEmailsQuery>;

const when = isoDateTime.nullable();
export const campaignEmailsOut = cursorPage(
  z.object({
    id: uuidOut,
    to: z.string(),
    contactId: uuidOut.nullable(),
    status: z.enum(EMAIL_STATUSES),
    error: z.string().nullable(),
    sentAt: when,
    deliveredAt: when,
    openedAt: when,
    clickedAt: when,
    bouncedAt: when,
    complainedAt: when,
    variant: z
      .string()
      .nullable()
      .meta({ description: 'The A/B/n variant the email carried; null outside an experiment' }),
  }),
);

export const campaignTimelineOut = z.object({
  interval: z.literal('hour'),
  data: z.array(
    z.object({
      date: isoDateTime,
      sent: count,
      delivered: count,
      opened: count,
      clicked: count,
      bounced: count,
      complained: count,
    }),
  ),
});
