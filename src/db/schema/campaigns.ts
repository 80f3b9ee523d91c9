import type { BlocksDocument } from '../../content/blocks.schema.js';
import { index, integer, jsonb, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { projects, ts } from './accounts.js';
import type { ContentFormat, TemplateType } from './messaging.js';
import type { ConditionTree } from './segments.js';

export type CampaignStatus = 'DRAFT' | 'SCHEDULED' | 'SENDING' | 'SENT' | 'CANCELLED';
export type AudienceType = 'ALL' | 'SEGMENT' | 'FILTERED';

/** One version of an A/B/n campaign; a field left out is the campaign's own. */
export interface CampaignVariant {
  /** "A", "B", … (one capital letter, unique in the campaign). */
  key: string;
  subject?: string;
  body?: string;
  from?: string;
  fromName?: string;
}

/**
 * How an A/B/n campaign is tested (campaigns/experiment.ts): `testPercent` of the audience is split
 * evenly between the variants (100: everyone outside the holdout, a pure split with no winner phase),
 * `holdoutPercent` gets nothing, and `waitMinutes` after the start the variant with the best human
 * rate on `metric` ("open", "click" or "event:<name>") goes to the rest.
 */
export interface CampaignExperiment {
  testPercent: number;
  metric: string;
  waitMinutes: number;
  holdoutPercent: number;
}

/** Where an experiment's send is: see migration 0028. */
/**
 * How a campaign's mail is handed out over time (campaigns/delivery.ts); null: all at once. Days are
 * "mon".."sun"; times "HH:MM".
 */
export interface CampaignDelivery {
  mode: 'now' | 'spread' | 'local-time';
  spreadHours?: number;
  localTime?: string;
  window?: { from: string; to: string; days: Array<'mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat' | 'sun'> };
}

export type ExperimentPhase = 'test' | 'waiting' | 'winner';

/** Campaigns. */
export const campaigns = pgTable(
  'campaigns',
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
    from: text('from').notNull(),
    fromName: text('from_name'),
    replyTo: text('reply_to'),
    type: text('type').$type<TemplateType>().notNull().default('MARKETING'),
    status: text('status').$type<CampaignStatus>().notNull().default('DRAFT'),
    /** Why Pigeon itself set the status (a scheduled send cancelled when it fired); null otherwise. */
    statusReason: text('status_reason'),
    audienceType: text('audience_type').$type<AudienceType>().notNull().default('ALL'),
    audienceCondition: jsonb('audience_condition').$type<ConditionTree>(),
    segmentId: uuid('segment_id'),
    /** The topic the campaign is sent to (its members only, topics/membership.ts); null: no topic. */
    topicId: uuid('topic_id'),
    scheduledFor: ts('scheduled_for'),
    totalRecipients: integer('total_recipients').notNull().default(0),
    sentCount: integer('sent_count').notNull().default(0),
    deliveredCount: integer('delivered_count').notNull().default(0),
    openedCount: integer('opened_count').notNull().default(0),
    clickedCount: integer('clicked_count').notNull().default(0),
    bouncedCount: integer('bounced_count').notNull().default(0),
    /** A/B/n variants (2 to 5) and their test settings; both null for a plain campaign. */
    variants: jsonb('variants').$type<CampaignVariant[]>(),
    experiment: jsonb('experiment').$type<CampaignExperiment>(),
    /** Seed of the recorded random order the audience was drawn in (set when the groups are drawn). */
    experimentSeed: integer('experiment_seed'),
    experimentPhase: text('experiment_phase').$type<ExperimentPhase>(),
    winnerKey: text('winner_key'),
    winnerChosenAt: ts('winner_chosen_at'),
    winnerChosenBy: text('winner_chosen_by').$type<'auto' | 'manual'>(),
    /** Send windows and local time (migration 0033); null = send now. */
    delivery: jsonb('delivery').$type<CampaignDelivery>(),
    /** When the last mail of the send is due, as far as the fan-out got (null: at once). */
    deliveryEndsAt: ts('delivery_ends_at'),
    /** Last contact id whose email row the fan-out has created (of the current phase of an experiment). */
    fanoutCheckpoint: uuid('fanout_checkpoint'),
    sentAt: ts('sent_at'),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [index('campaigns_project_created_idx').on(t.projectId, t.createdAt)],
);

/**
 * The groups an A/B/n campaign drew at its start: `grp` is a variant key (its test group) or
 * "holdout" (never mailed). Contacts without a row get the winner.
 */
export const campaignGroups = pgTable(
  'campaign_groups',
  {
    campaignId: uuid('campaign_id')
      .notNull()
      .references(() => campaigns.id, { onDelete: 'cascade' }),
    contactId: uuid('contact_id').notNull(),
    grp: text('grp').notNull(),
  },
  (t) => [primaryKey({ name: 'campaign_groups_pk', columns: [t.campaignId, t.contactId] })],
);

/**
 * The latest count of a large campaign's figures (campaigns/figures.ts): `data` is what its stats,
 * campaign and list answers are built from, `counted_at` when it was counted.
 */
export const campaignFigures = pgTable('campaign_figures', {
  campaignId: uuid('campaign_id')
    .primaryKey()
    .references(() => campaigns.id, { onDelete: 'cascade' }),
  data: jsonb('data').$type<Record<string, unknown>>().notNull(),
  countedAt: ts('counted_at').notNull(),
});
