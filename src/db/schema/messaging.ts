import type { StoredTranslations } from '../../content/stored.js';
import type { BlocksDocument } from '../../content/blocks.schema.js';
import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  customType,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { projects, ts } from './accounts.js';
import { contacts } from './contacts.js';
import { topics } from './topics.js';

const bytea = customType<{ data: Buffer }>({ dataType: () => 'bytea' });

/** A template's or campaign's body format (content/format.ts). */
export type ContentFormat = 'html' | 'mjml' | 'blocks';

export type TemplateType = 'TRANSACTIONAL' | 'MARKETING' | 'HEADLESS';

/** Templates. */
export const templates = pgTable(
  'templates',
  {
    id: uuid('id').primaryKey(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description'),
    subject: text('subject').notNull(),
    body: text('body').notNull(),
    /** Body format (migration 0034): html as written, mjml, or blocks (the visual editor's document). */
    format: text('format').$type<ContentFormat>().notNull().default('html'),
    /** The MJML as written (mjml) or generated from `blocks`; null for html. `body` holds the compiled HTML that is sent. */
    source: text('source'),
    /** The visual editor's document (format blocks). */
    blocks: jsonb('blocks').$type<BlocksDocument>(),
    /** Per-language variants (migration 0034, content/translations.ts); null: none. */
    translations: jsonb('translations').$type<StoredTranslations>(),
    from: text('from').notNull(),
    fromName: text('from_name'),
    replyTo: text('reply_to'),
    type: text('type').$type<TemplateType>().notNull().default('MARKETING'),
    /** Its MARKETING mail goes only to this topic's members (unless a workflow step names another); in use, the topic cannot be deleted. */
    topicId: uuid('topic_id').references(() => topics.id, { onDelete: 'restrict' }),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    index('templates_project_created_idx').on(t.projectId, t.createdAt),
    index('templates_topic_idx')
      .on(t.topicId)
      .where(sql`${t.topicId} is not null`),
  ],
);

/** A DNS record the user publishes; `status` is the result of the last check. */
export type DomainRecord = {
  type: 'TXT' | 'MX' | 'CNAME';
  name: string;
  value: string;
  status: 'pending' | 'verified';
};

/** Sender domains with their DKIM key pair. */
export const domains = pgTable(
  'domains',
  {
    id: uuid('id').primaryKey(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    domain: text('domain').notNull(),
    dkimSelector: text('dkim_selector').notNull(),
    dkimPrivateKey: text('dkim_private_key').notNull(),
    dkimPublicKey: text('dkim_public_key').notNull(),
    verified: boolean('verified').notNull().default(false),
    records: jsonb('records').$type<DomainRecord[]>().notNull().default([]),
    verifiedAt: ts('verified_at'),
    lastCheckedAt: ts('last_checked_at'),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [uniqueIndex('domains_project_domain_uq').on(t.projectId, t.domain)],
);

export type EmailStatus =
  | 'PENDING'
  | 'SENDING'
  | 'SENT'
  | 'DELIVERED'
  | 'OPENED'
  | 'CLICKED'
  | 'BOUNCED'
  | 'COMPLAINED'
  | 'FAILED'
  | 'SUPPRESSED';
export type EmailSource = 'TRANSACTIONAL' | 'CAMPAIGN' | 'WORKFLOW' | 'TEST';

/**
 * A body template shared by many emails and stored once: one per `/v1/send` request (with its
 * attachments) and one per campaign send (its id is the campaign's). Rendered per recipient at send.
 */
export const emailContents = pgTable(
  'email_contents',
  {
    id: uuid('id').primaryKey(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    body: text('body').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [index('email_contents_project_idx').on(t.projectId)],
);

/**
 * One outgoing message to one recipient.
 * Content is stored unrendered plus `variables`; the send job renders it.
 */
export const emails = pgTable(
  'emails',
  {
    id: uuid('id').primaryKey(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    contactId: uuid('contact_id').references(() => contacts.id, { onDelete: 'set null' }),
    toEmail: text('to_email').notNull(),
    toName: text('to_name'),
    fromEmail: text('from_email').notNull(),
    fromName: text('from_name'),
    replyTo: text('reply_to'),
    subject: text('subject').notNull(),
    /** The body template of this email alone; null when it is shared through `contentId`. */
    body: text('body'),
    /**
     * Content shared by many emails, stored once (`email_contents`): a `/v1/send` request's body and
     * attachments, or a campaign's body. Exactly one of `body` and `contentId` is set.
     */
    // No foreign key: a check per inserted row would slow a large fan-out; contents go with the project.
    contentId: uuid('content_id'),
    headers: jsonb('headers').$type<Record<string, string>>().notNull().default({}),
    variables: jsonb('variables').$type<Record<string, unknown>>().notNull().default({}),
    type: text('type').$type<TemplateType>().notNull().default('TRANSACTIONAL'),
    sourceType: text('source_type').$type<EmailSource>().notNull(),
    templateId: uuid('template_id'),
    /** The translation the mail went out in (migration 0034), a BCP 47 tag; null: the default content. */
    locale: text('locale'),
    campaignId: uuid('campaign_id'),
    /** The topic the mail was sent under (checked again at claim time); no foreign key, like `campaign_id`. */
    topicId: uuid('topic_id'),
    workflowExecutionId: uuid('workflow_execution_id'),
    status: text('status').$type<EmailStatus>().notNull().default('PENDING'),
    messageId: text('message_id'),
    /**
     * The id the sending provider gave the message (Amazon SES `MessageId`), written when the transport
     * accepted it; delivery feedback (SNS notifications) names the message by it.
     */
    providerMessageId: text('provider_message_id'),
    error: text('error'),
    attempts: integer('attempts').notNull().default(0),
    /**
     * The delivery run that holds a SENDING row: set when a run claims the row; the hand-off mark and
     * every outcome require it, so a run whose row was taken over (its worker presumed dead) can neither
     * finish DATA nor record an outcome.
     */
    claimToken: uuid('claim_token'),
    sentAt: ts('sent_at'),
    deliveredAt: ts('delivered_at'),
    openedAt: ts('opened_at'),
    clickedAt: ts('clicked_at'),
    bouncedAt: ts('bounced_at'),
    complainedAt: ts('complained_at'),
    /** The first open not marked as machine activity (emails/tracking/machine.ts); `openedAt` is any open. */
    humanOpenedAt: ts('human_opened_at'),
    /** The first click not marked as machine activity; `clickedAt` is any click. */
    humanClickedAt: ts('human_clicked_at'),
    /** The SEND_EMAIL step of the workflow that queued this mail; no foreign key, like `workflow_execution_id`. */
    workflowStepId: uuid('workflow_step_id'),
    /** The A/B/n variant key of a campaign experiment's mail ("A", "B", …); null outside an experiment. */
    variant: text('variant'),
    /** True on a campaign experiment's mail sent to the rest once the winner was chosen; null otherwise. */
    winnerPhase: boolean('winner_phase'),
    /**
     * The transport the mail was handed to, written with the hand-off mark: `default` (the instance's
     * SMTP_URL / SES_REGION / outbox) or a project transport's id. A retry after the mark keeps it
     * (transports/route.ts): a mail handed to one transport is never handed to another.
     */
    transport: text('transport'),
    /** When a campaign mail with a delivery setting is due (its send job's run_at); null: at once. */
    dueAt: ts('due_at'),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    // status last: the sender-health rates (src/projects/health.ts) count a project's window of mail by
    // status from the index alone; it still serves every (project, created_at) range.
    index('emails_project_created_idx').on(t.projectId, t.createdAt, t.status),
    index('emails_contact_idx').on(t.projectId, t.contactId),
    // The exactly-once guard of campaign fan-out.
    uniqueIndex('emails_campaign_contact_uq')
      .on(t.campaignId, t.contactId)
      .where(sql`${t.campaignId} is not null`),
    index('emails_campaign_status_idx')
      .on(t.campaignId, t.status)
      .where(sql`${t.campaignId} is not null`),
    index('emails_workflow_step_idx')
      .on(t.workflowStepId, t.status)
      .where(sql`${t.workflowStepId} is not null`),
    index('emails_campaign_test_variant_idx')
      .on(t.campaignId, t.variant)
      .where(sql`${t.variant} is not null and ${t.winnerPhase} is null`),
    index('emails_message_id_idx').on(t.messageId),
    // Which mail still uses a shared content: retention and erasure delete contents nobody uses (migration 0038).
    index('emails_content_idx')
      .on(t.contentId)
      .where(sql`${t.contentId} is not null`),
    index('emails_provider_message_id_idx')
      .on(t.providerMessageId)
      .where(sql`${t.providerMessageId} is not null`),
    check('emails_body_or_content', sql`${t.body} is not null or ${t.contentId} is not null`),
  ],
);

/**
 * Attachments of `/v1/send`, kept apart so the emails table stays narrow: of one email (`emailId`,
 * rows written before contents were shared) or of a shared content (`contentId`), stored once for all
 * the request's recipients.
 */
export const emailAttachments = pgTable(
  'email_attachments',
  {
    id: uuid('id').primaryKey(),
    emailId: uuid('email_id').references(() => emails.id, { onDelete: 'cascade' }),
    contentId: uuid('content_id').references(() => emailContents.id, { onDelete: 'cascade' }),
    filename: text('filename').notNull(),
    contentType: text('content_type'),
    content: bytea('content').notNull(),
  },
  (t) => [index('email_attachments_email_idx').on(t.emailId), index('email_attachments_content_idx').on(t.contentId)],
);

/**
 * Clicks of one tracked link of one email (issue 36): the per-link reports' narrow summary of the
 * `email.click` events, kept by delivery/outcomes.ts recordClick in the click's transaction. One row
 * per email, position and URL; `clicks` counts the email's click events of the link, `humanClicks`
 * those not machine activity (a delivery-time sweep sets it back to 0, emails/tracking/machine.ts).
 * Reports sum these rows instead of parsing every click event (bench/link-stats.ts).
 */
export const emailLinkClicks = pgTable(
  'email_link_clicks',
  {
    emailId: uuid('email_id')
      .notNull()
      .references(() => emails.id, { onDelete: 'cascade' }),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    campaignId: uuid('campaign_id'),
    workflowStepId: uuid('workflow_step_id'),
    /** 0-based position among the email's tracked links; null for links of tokens made before positions. */
    position: integer('position'),
    url: text('url').notNull(),
    clicks: integer('clicks').notNull().default(0),
    humanClicks: integer('human_clicks').notNull().default(0),
  },
  (t) => [
    // The upsert's key; the URL hashed, as a URL may pass a b-tree entry's size limit.
    uniqueIndex('email_link_clicks_key').on(t.emailId, sql`coalesce(${t.position}, -1)`, sql`md5(${t.url})`),
    index('email_link_clicks_campaign_idx')
      .on(t.campaignId)
      .where(sql`${t.campaignId} is not null`),
    index('email_link_clicks_step_idx')
      .on(t.workflowStepId)
      .where(sql`${t.workflowStepId} is not null`),
  ],
);

/**
 * SNS notification ids already processed, so a replay changes nothing. Rows are kept a day longer
 * than the oldest notification accepted (feedback/sns.verify.ts `SNS_MAX_AGE_MS`), then purged daily.
 */
export const snsNotifications = pgTable(
  'sns_notifications',
  {
    id: text('id').primaryKey(),
    processedAt: ts('processed_at').notNull().defaultNow(),
  },
  (t) => [index('sns_notifications_processed_at_idx').on(t.processedAt)],
);
