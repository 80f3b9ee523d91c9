import { boolean, index, integer, jsonb, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { projects, ts } from './accounts.js';
import { contacts } from './contacts.js';

/** One filter of a condition tree. */
export type ConditionFilter = { field: string; operator: string; value?: unknown; unit?: string };
export type ConditionGroup = { filters: ConditionFilter[]; conditions?: ConditionTree };
export type ConditionTree = { logic: 'AND' | 'OR'; groups: ConditionGroup[] };

/** Segments. */
export const segments = pgTable(
  'segments',
  {
    id: uuid('id').primaryKey(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description'),
    type: text('type').$type<'DYNAMIC' | 'STATIC'>().notNull().default('DYNAMIC'),
    condition: jsonb('condition').$type<ConditionTree>(),
    trackMembership: boolean('track_membership').notNull().default(false),
    memberCount: integer('member_count').notNull().default(0),
    computedAt: ts('computed_at'),
    /** Why the last background compute skipped this segment (e.g. past the reference limits); null after a good one. */
    computeError: text('compute_error'),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [index('segments_project_created_idx').on(t.projectId, t.createdAt)],
);

/** Members of STATIC segments, and the last computed members of tracked DYNAMIC ones. */
export const segmentMembers = pgTable(
  'segment_members',
  {
    segmentId: uuid('segment_id')
      .notNull()
      .references(() => segments.id, { onDelete: 'cascade' }),
    contactId: uuid('contact_id')
      .notNull()
      .references(() => contacts.id, { onDelete: 'cascade' }),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.segmentId, t.contactId] }), index('segment_members_contact_idx').on(t.contactId)],
);
