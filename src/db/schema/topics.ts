import { sql } from 'drizzle-orm';
import { boolean, check, index, pgTable, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { projects, ts } from './accounts.js';
import { contacts } from './contacts.js';

/** Whether a topic holds every subscribed contact unless they left (`opt-out`) or only those who joined (`opt-in`). */
export type TopicDefault = 'opt-in' | 'opt-out';

/** A project's subscription topics (migration 0021); the API's `default` is `subscriptionDefault`. */
export const topics = pgTable(
  'topics',
  {
    id: uuid('id').primaryKey(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description'),
    subscriptionDefault: text('subscription_default').$type<TopicDefault>().notNull(),
    /** Shown on the preference centre. */
    public: boolean('public').notNull().default(true),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('topics_project_name_uq').on(t.projectId, sql`lower(${t.name})`),
    check('topics_subscription_default', sql`${t.subscriptionDefault} in ('opt-in', 'opt-out')`),
  ],
);

/** A contact's explicit choice about a topic (joined: true, left: false); no row = the topic's default. */
export const contactTopics = pgTable(
  'contact_topics',
  {
    topicId: uuid('topic_id')
      .notNull()
      .references(() => topics.id, { onDelete: 'cascade' }),
    contactId: uuid('contact_id')
      .notNull()
      .references(() => contacts.id, { onDelete: 'cascade' }),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    subscribed: boolean('subscribed').notNull(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    // The index also INCLUDEs subscribed (migration 0026: index-only reads of the topic rule), which drizzle cannot say.
    primaryKey({ name: 'contact_topics_pk', columns: [t.topicId, t.contactId] }),
    index('contact_topics_contact_idx').on(t.contactId),
  ],
);
