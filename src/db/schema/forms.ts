import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { projects, ts } from './accounts.js';
import { contacts } from './contacts.js';
import { templates } from './messaging.js';
import { topics } from './topics.js';

/** What kind of input a form field is. */
export type FormFieldType = 'text' | 'email' | 'select' | 'checkbox';

/**
 * One input of a form: `key` names the contact data it fills (the `email` field fills the contact's
 * address), `options` the choices of a `select`.
 */
export interface FormField {
  key: string;
  label: string;
  type: FormFieldType;
  required: boolean;
  options?: string[];
}

/** Hosted sign-up forms (migration 0025); the API's `from`/`fromName` are `fromEmail`/`fromName`. */
export const forms = pgTable(
  'forms',
  {
    id: uuid('id').primaryKey(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    doubleOptIn: boolean('double_opt_in').notNull().default(false),
    fields: jsonb('fields').$type<FormField[]>().notNull(),
    redirectUrl: text('redirect_url'),
    successMessage: text('success_message').notNull(),
    confirmationTemplateId: uuid('confirmation_template_id').references(() => templates.id, { onDelete: 'set null' }),
    fromEmail: text('from_email'),
    fromName: text('from_name'),
    submissions: integer('submissions').notNull().default(0),
    confirmations: integer('confirmations').notNull().default(0),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [index('forms_project_created_idx').on(t.projectId, t.createdAt)],
);

/** The topics a form's contacts join. */
export const formTopics = pgTable(
  'form_topics',
  {
    formId: uuid('form_id')
      .notNull()
      .references(() => forms.id, { onDelete: 'cascade' }),
    topicId: uuid('topic_id')
      .notNull()
      .references(() => topics.id),
  },
  (t) => [
    primaryKey({ name: 'form_topics_pk', columns: [t.formId, t.topicId] }),
    index('form_topics_topic_idx').on(t.topicId),
  ],
);

/** A double opt-in sign-up, pending until `confirmedAt` (at most one pending per form and contact). */
export const formSignups = pgTable(
  'form_signups',
  {
    id: uuid('id').primaryKey(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    formId: uuid('form_id')
      .notNull()
      .references(() => forms.id, { onDelete: 'cascade' }),
    contactId: uuid('contact_id')
      .notNull()
      .references(() => contacts.id, { onDelete: 'cascade' }),
    createdAt: ts('created_at').notNull(),
    /** When the newest confirmation mail was queued: a second within 10 minutes is not sent. */
    lastSentAt: ts('last_sent_at').notNull(),
    /** The expiry the newest link carries. */
    expiresAt: ts('expires_at').notNull(),
    confirmedAt: ts('confirmed_at'),
  },
  (t) => [
    uniqueIndex('form_signups_pending_uq')
      .on(t.formId, t.contactId)
      .where(sql`${t.confirmedAt} is null`),
    index('form_signups_expiry_idx')
      .on(t.expiresAt)
      .where(sql`${t.confirmedAt} is null`),
    index('form_signups_contact_idx').on(t.contactId),
  ],
);
