import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  smallint,
  text,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { projects, ts } from './accounts.js';

/** Contacts; `email` is trimmed and lower-cased, unique per project. */
export const contacts = pgTable(
  'contacts',
  {
    id: uuid('id').primaryKey(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    subscribed: boolean('subscribed').notNull().default(true),
    snoozedUntil: ts('snoozed_until'),
    data: jsonb('data').$type<Record<string, unknown>>().notNull().default({}),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('contacts_project_email_uq').on(t.projectId, t.email),
    // Cursor pages of GET /contacts walk (created_at, id) in either direction.
    index('contacts_project_created_idx').on(t.projectId, t.createdAt, t.id),
    index('contacts_data_gin').using('gin', sql`${t.data} jsonb_path_ops`),
    // `search` is a substring match (LIKE '%term%'): without trigrams it reads every contact of the
    // project (0.9 s at 1M contacts); with them a selective term is a bitmap scan (< 1 ms). bench/contacts.ts.
    index('contacts_email_trgm').using('gin', t.email.op('gin_trgm_ops')),
  ],
);

/**
 * The number of contacts of each project, as rows of signed deltas whose sum is the count. Kept by
 * statement-level triggers on `contacts` (migration 0011): every statement that inserts or deletes
 * contacts adds one row per project it touched, in its own transaction, so the sum is exact in any
 * snapshot, and concurrent writers never wait on one shared counter row. `count(*)` over a project
 * of 1,000,000 contacts reads the whole index (~200 ms); summing these rows takes under a millisecond.
 * The `contacts:compact-counts` job folds each project's rows into one.
 */
export const contactCounts = pgTable(
  'contact_counts',
  {
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    n: integer('n').notNull(),
  },
  (t) => [index('contact_counts_project_idx').on(t.projectId)],
);

/**
 * Addresses that must not receive marketing mail; survives contact deletion. `email` is trimmed and
 * lower-cased like `contacts.email`. `reason` is the API's own word (src/suppressions/reasons.ts):
 * `bounce` (hard bounce), `complaint`, `manual`, `unsubscribe`; the `suppressions_sender_health` migration mapped the earlier
 * `HARD_BOUNCE` / `COMPLAINT` / `MANUAL`.
 */
export const suppressions = pgTable(
  'suppressions',
  {
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    reason: text('reason').$type<'bounce' | 'complaint' | 'manual' | 'unsubscribe'>().notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.projectId, t.email] }),
    // Cursor pages of GET /suppressions walk (created_at, email), newest first.
    index('suppressions_project_created_idx').on(t.projectId, t.createdAt, t.email),
    check('suppressions_reason_check', sql`${t.reason} in ('bounce', 'complaint', 'manual', 'unsubscribe')`),
  ],
);

/** Tracked and emitted events. */
export const events = pgTable(
  'events',
  {
    id: uuid('id').primaryKey(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    contactId: uuid('contact_id').references(() => contacts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    data: jsonb('data').$type<Record<string, unknown>>().notNull().default({}),
    emailId: uuid('email_id'),
    campaignId: uuid('campaign_id'),
    /**
     * How many workflow steps lie between this event and one nobody's workflow caused: 0 for tracked
     * and service events, the depth of the execution that caused it + 1 for events a workflow step
     * caused (an UPDATE_CONTACT subscription change, the email.* events of a SEND_EMAIL's mail).
     * Dispatch stops past a limit, so workflows that trigger each other cannot loop (workflows/causation.ts).
     */
    causationDepth: smallint('causation_depth').notNull().default(0),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [
    index('events_contact_name_time_idx').on(t.projectId, t.contactId, t.name, t.createdAt),
    // contact_id last: a segment's `event.<name> triggeredWithin` window (and the other EXISTS filters)
    // reads the contacts of a name and time range from the index alone; the heap fetches this saves
    // were half of a 3-filter count over 10M events (bench/segments.ts). Also serves (project, name, time).
    index('events_project_name_time_contact_idx').on(t.projectId, t.name, t.createdAt, t.contactId),
    index('events_project_time_idx').on(t.projectId, t.createdAt),
  ],
);

/** Uploaded images. */
export const uploads = pgTable('uploads', {
  id: uuid('id').primaryKey(),
  projectId: uuid('project_id')
    .notNull()
    .references(() => projects.id, { onDelete: 'cascade' }),
  storageKey: text('storage_key').notNull(),
  contentType: text('content_type').notNull(),
  size: integer('size').notNull(),
  createdAt: ts('created_at').notNull().defaultNow(),
});

/** A consent entry's action (migration 0020). */
export type ConsentAction = 'subscribed' | 'unsubscribed' | 'joined' | 'left' | 'confirmed' | 'snoozed';
/** Where a consent entry's change came from (migration 0020). */
export type ConsentSource =
  | 'api'
  | 'track'
  | 'import'
  | 'form'
  | 'preference-centre'
  | 'one-click'
  | 'complaint'
  | 'bounce'
  | 'dashboard'
  | 'workflow';

/**
 * The consent log: one row per change of a contact's subscription or topic membership, written only by
 * src/consent/consent.ts in the change's transaction. `topicId` and `formId` are plain ids (no foreign
 * key): the history outlives a deleted topic or form.
 */
export const consentEvents = pgTable(
  'consent_events',
  {
    id: uuid('id').primaryKey(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    contactId: uuid('contact_id')
      .notNull()
      .references(() => contacts.id, { onDelete: 'cascade' }),
    topicId: uuid('topic_id'),
    action: text('action').$type<ConsentAction>().notNull(),
    source: text('source').$type<ConsentSource>().notNull(),
    formId: uuid('form_id'),
    ip: text('ip'),
    userAgent: text('user_agent'),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [
    index('consent_events_contact_idx').on(t.contactId, t.id),
    // The consent export's order (exports/kinds.ts): keyset pages by (created_at, id).
    index('consent_events_project_created_idx').on(t.projectId, t.createdAt, t.id),
  ],
);
