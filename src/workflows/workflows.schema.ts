import { z } from 'zod';

/** Request schemas of the workflow endpoints (api.md §4.3 workflows; decisions.md "Workflows"). */

const eventName = z.string().trim().min(1).max(200);

/** `POST /workflows` (decisions.md: create body). */
export const createWorkflowBody = z.object({
  name: z.string().trim().min(1).max(200),
  description: z.string().max(1000).nullish(),
  eventName,
  allowReentry: z.boolean().default(false),
});

/** `PATCH /workflows/:id`: metadata, trigger (409 while executions are live), enabled, allowReentry. */
export const updateWorkflowBody = z.object({
  name: z.string().trim().min(1).max(200).optional(),
  description: z.string().max(1000).nullish(),
  triggerType: z.enum(['EVENT', 'MANUAL']).optional(),
  triggerConfig: z.object({ eventName: eventName.optional() }).optional(),
  enabled: z.boolean().optional(),
  allowReentry: z.boolean().optional(),
});

/** Step types a client may add; the TRIGGER step is made with the workflow. */
export const STEP_TYPES = ['SEND_EMAIL', 'DELAY', 'WAIT_FOR_EVENT', 'CONDITION', 'WEBHOOK', 'UPDATE_CONTACT', 'EXIT'] as const;

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
  splice: z.enum(['true', 'false']).default('false').transform((v) => v === 'true'),
});

/** `POST /workflows/:id/transitions`. */
export const createTransitionBody = z.object({
  fromStepId: z.string(),
  toStepId: z.string(),
  branch: z.enum(['yes', 'no']).nullish(),
  waitOutcome: z.enum(['EVENT', 'TIMEOUT']).nullish(),
});

/** `POST /workflows/:id/executions` (decisions.md: manual execution). */
export const startExecutionBody = z.object({
  contactId: z.string(),
  context: z.record(z.string(), z.unknown()).default({}),
});

export const EXECUTION_STATUSES = ['RUNNING', 'WAITING', 'COMPLETED', 'EXITED', 'FAILED', 'CANCELLED'] as const;

export const listExecutionsQuery = z.object({
  status: z.enum(EXECUTION_STATUSES).optional(),
  limit: z.coerce.number().int().min(1).default(50).transform((n) => Math.min(n, 100)),
  cursor: z.string().optional(),
});

/** Path ids are plain strings: a non-uuid is a 404 like an unknown id. */
export const workflowParams = z.object({ id: z.string() });
export const stepParams = z.object({ id: z.string(), stepId: z.string() });
export const transitionParams = z.object({ id: z.string(), transitionId: z.string() });
export const executionParams = z.object({ id: z.string(), executionId: z.string() });
