import { index, integer, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { projects, ts } from './accounts.js';
import type { TemplateType } from './messaging.js';
import type { ConditionTree } from './segments.js';

export type CampaignStatus = 'DRAFT' | 'SCHEDULED' | 'SENDING' | 'SENT' | 'CANCELLED';
export type AudienceType = 'ALL' | 'SEGMENT' | 'FILTERED';

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
    /** Last contact id whose email row the fan-out has created. */
    fanoutCheckpoint: uuid('fanout_checkpoint'),
    sentAt: ts('sent_at'),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [index('campaigns_project_created_idx').on(t.projectId, t.createdAt)],
);
