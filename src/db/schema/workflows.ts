import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { projects, ts } from './accounts.js';
import { contacts } from './contacts.js';

export type StepType =
  | 'TRIGGER'
  | 'SEND_EMAIL'
  | 'DELAY'
  | 'WAIT_FOR_EVENT'
  | 'CONDITION'
  | 'SPLIT'
  | 'SWITCH'
  | 'WEBHOOK'
  | 'UPDATE_CONTACT'
  | 'EXIT';
/** What starts a workflow (workflows/triggers.ts says what each needs). */
export type TriggerType = 'EVENT' | 'MANUAL' | 'SEGMENT_ENTERED' | 'SEGMENT_EXITED' | 'SCHEDULE';
/** A trigger's settings: `eventName` (EVENT), `segmentId` (SEGMENT_*, optional for SCHEDULE), `cron` (SCHEDULE). */
export interface TriggerConfig {
  eventName?: string;
  segmentId?: string;
  cron?: string;
}
export type ExecutionStatus = 'RUNNING' | 'WAITING' | 'COMPLETED' | 'EXITED' | 'FAILED' | 'CANCELLED';

/** Workflows. */
export const workflows = pgTable(
  'workflows',
  {
    id: uuid('id').primaryKey(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description'),
    triggerType: text('trigger_type').$type<TriggerType>().notNull().default('EVENT'),
    triggerConfig: jsonb('trigger_config').$type<TriggerConfig>().notNull().default({}),
    /** When the trigger counts from: set when the workflow is enabled or its trigger changes (a schedule fires no tick before it). */
    triggerSince: ts('trigger_since'),
    enabled: boolean('enabled').notNull().default(false),
    allowReentry: boolean('allow_reentry').notNull().default(false),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    index('workflows_project_idx').on(t.projectId, t.enabled),
    index('workflows_schedule_idx')
      .on(t.projectId)
      .where(sql`${t.enabled} and ${t.triggerType} = 'SCHEDULE'`),
  ],
);

/**
 * One tick of a SCHEDULE trigger (workflows/schedule.run.ts): claimed once by its unique key, then its
 * contacts started in batches, `after_contact_id` the last one of the last committed batch.
 */
export const workflowScheduleTicks = pgTable(
  'workflow_schedule_ticks',
  {
    id: uuid('id').primaryKey(),
    workflowId: uuid('workflow_id')
      .notNull()
      .references(() => workflows.id, { onDelete: 'cascade' }),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    tickAt: ts('tick_at').notNull(),
    status: text('status').$type<'PENDING' | 'DONE' | 'SKIPPED'>().notNull().default('PENDING'),
    afterContactId: uuid('after_contact_id'),
    started: integer('started').notNull().default(0),
    createdAt: ts('created_at').notNull().defaultNow(),
    completedAt: ts('completed_at'),
  },
  (t) => [
    uniqueIndex('workflow_schedule_ticks_uq').on(t.workflowId, t.tickAt),
    index('workflow_schedule_ticks_pending_idx')
      .on(t.id)
      .where(sql`${t.status} = 'PENDING'`),
  ],
);

export const workflowSteps = pgTable(
  'workflow_steps',
  {
    id: uuid('id').primaryKey(),
    workflowId: uuid('workflow_id')
      .notNull()
      .references(() => workflows.id, { onDelete: 'cascade' }),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    type: text('type').$type<StepType>().notNull(),
    name: text('name').notNull(),
    config: jsonb('config').$type<Record<string, unknown>>().notNull().default({}),
    templateId: uuid('template_id'),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [index('workflow_steps_workflow_idx').on(t.workflowId), index('workflow_steps_template_idx').on(t.templateId)],
);

export const workflowTransitions = pgTable(
  'workflow_transitions',
  {
    id: uuid('id').primaryKey(),
    workflowId: uuid('workflow_id')
      .notNull()
      .references(() => workflows.id, { onDelete: 'cascade' }),
    fromStepId: uuid('from_step_id')
      .notNull()
      .references(() => workflowSteps.id, { onDelete: 'cascade' }),
    toStepId: uuid('to_step_id')
      .notNull()
      .references(() => workflowSteps.id, { onDelete: 'cascade' }),
    /** The outlet of the `from` step: a CONDITION's yes | no, a SPLIT or SWITCH branch key (workflows/graph.rules.ts). */
    branch: text('branch'),
    waitOutcome: text('wait_outcome').$type<'EVENT' | 'TIMEOUT'>(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [index('workflow_transitions_from_idx').on(t.fromStepId)],
);

export const workflowExecutions = pgTable(
  'workflow_executions',
  {
    id: uuid('id').primaryKey(),
    workflowId: uuid('workflow_id')
      .notNull()
      .references(() => workflows.id, { onDelete: 'cascade' }),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    contactId: uuid('contact_id')
      .notNull()
      .references(() => contacts.id, { onDelete: 'cascade' }),
    status: text('status').$type<ExecutionStatus>().notNull().default('RUNNING'),
    currentStepId: uuid('current_step_id'),
    context: jsonb('context').$type<Record<string, unknown>>().notNull().default({}),
    triggerEventId: uuid('trigger_event_id'),
    triggerData: jsonb('trigger_data').$type<Record<string, unknown>>().notNull().default({}),
    /** Causation depth of the event that started (or last resumed) it; its steps' events are one deeper (events.causation_depth). */
    causationDepth: integer('causation_depth').notNull().default(0),
    exitReason: text('exit_reason'),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
    completedAt: ts('completed_at'),
  },
  (t) => [
    index('workflow_executions_workflow_idx').on(t.workflowId, t.status),
    // allowReentry=true still forbids two live executions for one contact.
    uniqueIndex('workflow_executions_live_uq')
      .on(t.workflowId, t.contactId)
      .where(sql`${t.status} in ('RUNNING', 'WAITING')`),
    index('workflow_executions_contact_idx').on(t.contactId, t.status),
  ],
);

export const workflowStepExecutions = pgTable(
  'workflow_step_executions',
  {
    id: uuid('id').primaryKey(),
    executionId: uuid('execution_id')
      .notNull()
      .references(() => workflowExecutions.id, { onDelete: 'cascade' }),
    stepId: uuid('step_id').notNull(),
    status: text('status')
      .$type<'PENDING' | 'RUNNING' | 'WAITING' | 'COMPLETED' | 'FAILED' | 'SKIPPED' | 'CANCELLED'>()
      .notNull(),
    output: jsonb('output').$type<Record<string, unknown>>(),
    error: text('error'),
    attempts: integer('attempts').notNull().default(0),
    startedAt: ts('started_at'),
    completedAt: ts('completed_at'),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [
    // A step runs at most once per execution: the graph has no cycles.
    uniqueIndex('workflow_step_executions_uq').on(t.executionId, t.stepId),
  ],
);
