import { z } from 'zod';
import { rangeQuery } from '../analytics/range.js';
import { cursorPage, isoDateTime, jsonObject, offsetPageOut, uuidOut } from '../http/responses.js';
import { TRIGGER_TYPES } from './triggers.js';

/** Request schemas of the workflow endpoints. */

const eventName = z.string().trim().min(1).max(200);

const triggerType = z.enum(TRIGGER_TYPES).meta({
  description:
    'EVENT {eventName}; MANUAL {} (started by hand only); SEGMENT_ENTERED / SEGMENT_EXITED {segmentId} (a DYNAMIC segment with trackMembership); SCHEDULE {cron, segmentId?} (5-field cron in the project time zone, every contact of the segment or of the project at each tick)',
});

/** A trigger's settings as a client sends them; which ones a type needs is checked by triggers.ts. */
const triggerConfigIn = z.object({
  eventName: eventName.optional(),
  segmentId: z.string().max(100).optional(),
  cron: z.string().trim().min(1).max(200).optional().meta({
    description: 'minute hour day-of-month month day-of-week, e.g. "0 9 * * 1" (Mondays at 09:00)',
  }),
});

/** `POST /workflows`: an EVENT trigger by default (`eventName`, as before), or `triggerType` with its `triggerConfig`. */
export const createWorkflowBody = z.object({
  name: z.string().trim().min(1).max(200),
  description: z.string().max(1000).nullish(),
  eventName: eventName.optional().meta({ description: "The EVENT trigger's event name (or triggerConfig.eventName)" }),
  triggerType: triggerType.default('EVENT'),
  triggerConfig: triggerConfigIn.optional(),
  allowReentry: z.boolean().default(false),
});

/** `PATCH /workflows/:id`: metadata, trigger (409 while executions are live), enabled, allowReentry. */
export const updateWorkflowBody = z.object({
  name: z.string().trim().min(1).max(200).optional(),
  description: z.string().max(1000).nullish(),
  triggerType: triggerType.optional(),
  triggerConfig: triggerConfigIn.optional(),
  enabled: z.boolean().optional(),
  allowReentry: z.boolean().optional(),
});

/** `GET /workflows/schedule-preview?cron=`: a cron expression to read in the project's time zone. */
export const schedulePreviewQuery = z.object({ cron: z.string().max(200) });

/** Step types a client may add; the TRIGGER step is made with the workflow. */
export const STEP_TYPES = [
  'SEND_EMAIL',
  'DELAY',
  'WAIT_FOR_EVENT',
  'CONDITION',
  'SPLIT',
  'SWITCH',
  'WEBHOOK',
  'UPDATE_CONTACT',
  'EXIT',
] as const;

/** `POST /workflows/:id/steps`; `config` is checked per type by steps.config.ts. */
export const createStepBody = z.object({
  type: z.enum(STEP_TYPES),
  name: z.string().trim().min(1).max(200),
  config: z.record(z.string(), z.unknown()).default({}),
  templateId: z.string().nullish(),
});

/** `PATCH /workflows/:id/steps/:stepId` (the type of a step is fixed). */
export const updateStepBody = z.object({
  name: z.string().trim().min(1).max(200).optional(),
  config: z.record(z.string(), z.unknown()).optional(),
  templateId: z.string().nullish(),
});

export const deleteStepQuery = z.object({
  splice: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
});

/** `POST /workflows/:id/transitions`. */
export const createTransitionBody = z.object({
  fromStepId: z.string(),
  toStepId: z.string(),
  branch: z.string().min(1).max(32).nullish().meta({
    description: "The from step's branch: yes | no (CONDITION), a branch key (SPLIT), a branch key or default (SWITCH)",
  }),
  waitOutcome: z.enum(['EVENT', 'TIMEOUT']).nullish(),
});

/** Most contacts one `POST /workflows/:id/executions {contactIds}` starts. */
export const MAX_MANUAL_START = 1000;

/**
 * `POST /workflows/:id/executions`: starts executions by hand, for one contact (`contactId`, the
 * answer is the execution) or for a list (`contactIds`, 1 to 1000, the answer lists them); exactly one
 * of the two.
 */
export const startExecutionBody = z
  .object({
    contactId: z.string().optional(),
    contactIds: z.array(z.string().max(100)).min(1).max(MAX_MANUAL_START).optional().meta({
      description: 'Contact ids of the project (1 to 1000); an unknown one answers 422 naming it, nothing started',
    }),
    context: z.record(z.string(), z.unknown()).default({}),
  })
  .superRefine((b, ctx) => {
    if ((b.contactId === undefined) === (b.contactIds === undefined))
      ctx.addIssue({
        code: 'custom',
        message: 'Give either contactId (one contact) or contactIds (a list), not both',
        path: [b.contactId === undefined ? 'contactId' : 'contactIds'],
      });
  });

export const EXECUTION_STATUSES = ['RUNNING', 'WAITING', 'COMPLETED', 'EXITED', 'FAILED', 'CANCELLED'] as const;

export const listExecutionsQuery = z.object({
  status: z.enum(EXECUTION_STATUSES).optional(),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .default(50)
    .transform((n) => Math.min(n, 100)),
  cursor: z.string().optional(),
});

/** Path ids are plain strings: a non-uuid is a 404 like an unknown id. */
export const workflowParams = z.object({ id: z.string() });
export const stepParams = z.object({ id: z.string(), stepId: z.string() });
export const transitionParams = z.object({ id: z.string(), transitionId: z.string() });
export const executionParams = z.object({ id: z.string(), executionId: z.string() });

// Responses.

const count = z.number().int();

/** A workflow without its graph. */
export const workflowOutSchema = z.object({
  id: uuidOut,
  projectId: uuidOut,
  name: z.string(),
  description: z.string().nullable(),
  triggerType: z.enum(TRIGGER_TYPES),
  triggerConfig: z.object({
    eventName: z.string().optional(),
    segmentId: uuidOut.optional(),
    cron: z.string().optional(),
  }),
  enabled: z.boolean(),
  allowReentry: z.boolean(),
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
});

export const stepOutSchema = z
  .object({
    id: uuidOut,
    workflowId: uuidOut,
    type: z.enum(['TRIGGER', ...STEP_TYPES]),
    name: z.string(),
    config: jsonObject.meta({
      description:
        'Per step type: TRIGGER the trigger config ({eventName}, {segmentId}, {cron, segmentId?}), SEND_EMAIL {templateId, recipient?, topicId?}, DELAY {amount, unit} or {until: "window", window: {from, to, days}} (the next opening of the window in the time zone of the contact), WAIT_FOR_EVENT {eventName, timeout?}, CONDITION {field, operator, value?}, SPLIT {branches: [{key, label?, weight}]} (2 to 5, integer weights adding up to 100), SWITCH {branches: [{key, label?, field, operator, value?}], defaultLabel?} (1 to 10, first match wins, else the default branch), WEBHOOK {url, method, headers?, body?}, UPDATE_CONTACT {updates?, subscriptionAction}, EXIT {reason?}',
    }),
    templateId: uuidOut.nullable(),
    createdAt: isoDateTime,
    updatedAt: isoDateTime,
  })
  .meta({ id: 'WorkflowStep' });

export const transitionOutSchema = z
  .object({
    id: uuidOut,
    workflowId: uuidOut,
    fromStepId: uuidOut,
    toStepId: uuidOut,
    branch: z.string().nullable().meta({
      description: 'yes | no from a CONDITION, a branch key from a SPLIT or SWITCH (default: no branch matched)',
    }),
    waitOutcome: z.enum(['EVENT', 'TIMEOUT']).nullable(),
    createdAt: isoDateTime,
  })
  .meta({ id: 'WorkflowTransition' });

/** What a SCHEDULE trigger does, read in the project's time zone (triggers.ts `scheduleView`). */
const scheduleOut = z.object({
  description: z.string().meta({ description: 'For people, e.g. "Every Monday at 09:00 (Europe/Paris)"' }),
  timeZone: z.string().meta({ description: "The project's IANA time zone the cron is read in" }),
  nextRunAt: isoDateTime
    .nullable()
    .meta({ description: 'The next tick; null when the expression never matches again' }),
});

/** `GET /workflows/schedule-preview`: the schedule a cron expression makes, before it is saved. */
export const schedulePreviewOut = scheduleOut.extend({
  cron: z.string(),
  nextRuns: z.array(isoDateTime).meta({ description: 'The next (up to) 3 ticks' }),
});

/** `GET /workflows/:id` and the answers of create and update: the workflow with its graph. */
export const workflowFullOut = workflowOutSchema
  .extend({
    schedule: scheduleOut
      .nullable()
      .meta({ description: 'SCHEDULE triggers: the schedule in words and its next tick; null otherwise' }),
    steps: z.array(stepOutSchema),
    transitions: z.array(transitionOutSchema),
  })
  .meta({ id: 'Workflow' });

export const workflowListOut = offsetPageOut(
  workflowOutSchema.extend({
    stepCount: count,
    activeExecutions: count,
    totalExecutions: count,
  }),
);

export const workflowFieldsOut = z.object({
  fields: z.array(
    z.object({
      field: z.string(),
      type: z.string(),
      source: z.string().meta({ description: 'contact, event or context' }),
    }),
  ),
  events: z.array(z.string()),
  operators: z.array(z.string()),
});

export const executionOutSchema = z
  .object({
    id: uuidOut,
    workflowId: uuidOut,
    contactId: uuidOut,
    contactEmail: z
      .string()
      .nullable()
      .meta({ description: "The contact's email address; null once the contact is deleted" }),
    status: z.enum(EXECUTION_STATUSES),
    currentStepId: uuidOut.nullable(),
    context: jsonObject,
    triggerEventId: uuidOut.nullable(),
    triggerData: jsonObject,
    /** How many workflow-caused events led to this execution (0: started by an outside event); loops stop past a limit. */
    causationDepth: z.number().int(),
    exitReason: z.string().nullable(),
    createdAt: isoDateTime,
    updatedAt: isoDateTime,
    completedAt: isoDateTime.nullable(),
  })
  .meta({ id: 'WorkflowExecution' });

export const executionListOut = cursorPage(executionOutSchema);

/** One execution with its step history. */
export const executionDetailOut = executionOutSchema.extend({
  steps: z.array(
    z.object({
      id: uuidOut,
      stepId: uuidOut,
      status: z.enum(['PENDING', 'RUNNING', 'WAITING', 'COMPLETED', 'FAILED', 'SKIPPED', 'CANCELLED']),
      output: jsonObject.nullable(),
      error: z.string().nullable(),
      attempts: count,
      startedAt: isoDateTime.nullable(),
      completedAt: isoDateTime.nullable(),
      createdAt: isoDateTime,
    }),
  ),
});

export const cancelAllOut = z.object({ cancelled: count });

/** The answer of `POST /workflows/:id/executions {contactIds}`: what started, and who was skipped and why. */
export const startManyOut = z
  .object({
    data: z.array(executionOutSchema).meta({ description: 'The executions started, in the order of contactIds' }),
    skipped: z
      .array(
        z.object({
          contactId: uuidOut,
          reason: z.enum(['already_entered', 'already_running']).meta({
            description:
              'already_entered: allowReentry is false and the contact entered once; already_running: it has a running or waiting execution',
          }),
        }),
      )
      .meta({ description: 'Contacts the allowReentry rules kept out' }),
  })
  .meta({ id: 'WorkflowManualStart' });

/** `POST /workflows/:id/executions`: one execution (`contactId`) or the list (`contactIds`). */
export const startExecutionOut = z.union([executionDetailOut, startManyOut]);

/** `GET /workflows/:id/stats?from&to`: ISO dates or date-times, `[from, to)`; default the last 30 days. */
export const workflowStatsQuery = z.object(rangeQuery);

/** Per-step figures of a workflow over `[from, to)` (stats.service.ts says how each is counted). */
export const workflowStatsOut = z
  .object({
    from: isoDateTime,
    to: isoDateTime,
    steps: z.array(
      z.object({
        stepId: uuidOut,
        type: z.string(),
        name: z.string(),
        entered: count.meta({ description: 'Step runs that started in the range (TRIGGER: executions started)' }),
        completed: count.meta({ description: 'Of those, the runs that completed' }),
        failed: count.meta({ description: 'Of those, the runs that failed' }),
        exited: count.meta({
          description: 'Executions that ended at this step in the range: an EXIT step, a cancel, a refused start',
        }),
        waitingNow: count.meta({ description: 'Executions waiting at this step now, whatever the range' }),
        mail: z
          .object({
            emails: count,
            sent: count,
            delivered: count,
            opened: count.meta({ description: 'Raw: machine opens included' }),
            clicked: count.meta({ description: 'Raw: machine clicks included' }),
            humanOpened: count,
            humanClicked: count,
            bounced: count,
          })
          .nullable()
          .meta({ description: 'SEND_EMAIL steps: their emails created in the range; null for other steps' }),
      }),
    ),
  })
  .meta({ id: 'WorkflowStats' });
