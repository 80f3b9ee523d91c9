import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { templates } from '../db/schema.js';
import type { Deps } from '../deps.js';
import { AppError, type FieldError } from '../http/errors.js';
import { zodIssuesToFieldErrors } from '../http/zod-issues.js';
import { isUuid } from '../lib/ids.js';
import { projectTopic } from '../topics/topics.service.js';
import { compileCondition } from '../segments/compile.js';
import { CONDITION_STEP_OPERATORS } from '../segments/operators.js';
import { deliveryWindowBody } from '../campaigns/delivery-window.js';
import { BRANCH_KEY, SWITCH_DEFAULT_BRANCH } from './graph.rules.js';

/**
 * Step configs per step type, checked when a step is added or changed, so that the
 * engine only ever meets valid ones.
 */

const DAY_S = 86_400;
export const MAX_DELAY_SECONDS = 365 * DAY_S;
export const UNIT_SECONDS = { minutes: 60, hours: 3600, days: DAY_S } as const;

/** CONDITION operators: the segment value operators 1–10 (equals … notExists). */
export const CONDITION_OPERATORS = CONDITION_STEP_OPERATORS as unknown as readonly [string, ...string[]];

const noCrLf = z.string().regex(/^[^\r\n]*$/, 'must not contain CR or LF');

/** A CONDITION step's config, and each SWITCH branch's condition: one filter of the segment language. */
const conditionShape = {
  field: z.string().min(1).max(300),
  operator: z.enum(CONDITION_OPERATORS),
  value: z.unknown().optional(),
};

const branchKey = z
  .string()
  .regex(BRANCH_KEY, 'A branch key is 1 to 32 letters, digits, _ or -, starting with a letter or digit');
const branchLabel = z.string().trim().max(100).optional();

/** Each branch key once (case-insensitively, so "a" and "A" cannot both label edges). */
function uniqueKeys(branches: Array<{ key: string }>, ctx: z.RefinementCtx): void {
  const seen = new Set<string>();
  branches.forEach((b, i) => {
    const k = b.key.toLowerCase();
    if (seen.has(k))
      ctx.addIssue({ code: 'custom', message: `Branch key ${b.key} is used twice`, path: ['branches', i, 'key'] });
    seen.add(k);
  });
}

/** Fewest and most branches of a SPLIT step. */
export const SPLIT_BRANCHES = { min: 2, max: 5 } as const;
/** Most branches of a SWITCH step (besides its default). */
export const MAX_SWITCH_BRANCHES = 10;

const schemas = {
  SEND_EMAIL: z.object({
    templateId: z.string(),
    recipient: z
      .object({
        type: z.enum(['CONTACT', 'CUSTOM']).default('CONTACT'),
        email: z.email().optional(),
      })
      .refine((r) => r.type !== 'CUSTOM' || r.email, { message: 'a CUSTOM recipient needs an email', path: ['email'] })
      .optional(),
    /** The topic a MARKETING mail of the step goes under (its members only); absent: the template's topic. */
    topicId: z.string().max(100).optional(),
  }),
  // Either a duration ({amount, unit}) or, with `until: "window"`, until the next opening of `window`
  // in the contact's time zone (contact data `timezone`, else the project's; campaigns/delivery-window.ts).
  DELAY: z
    .object({
      amount: z.number().positive().optional(),
      unit: z.enum(['minutes', 'hours', 'days']).optional(),
      until: z.literal('window').optional(),
      window: deliveryWindowBody.optional(),
    })
    .superRefine((d, ctx) => {
      if (d.until === 'window') {
        if (!d.window)
          ctx.addIssue({ code: 'custom', message: 'Give the window to wait for: {from, to, days}', path: ['window'] });
        return;
      }
      if (d.amount === undefined)
        ctx.addIssue({ code: 'custom', message: 'Give the delay amount, or until: "window"', path: ['amount'] });
      if (d.unit === undefined)
        ctx.addIssue({ code: 'custom', message: 'Give the delay unit: minutes, hours or days', path: ['unit'] });
      if (d.amount !== undefined && d.unit && d.amount * UNIT_SECONDS[d.unit] > MAX_DELAY_SECONDS)
        ctx.addIssue({ code: 'custom', message: 'A delay is at most 365 days', path: ['amount'] });
    }),
  WAIT_FOR_EVENT: z.object({
    eventName: z.string().trim().min(1).max(200),
    timeout: z.number().int().positive().max(MAX_DELAY_SECONDS).optional(),
  }),
  CONDITION: z.object(conditionShape),
  SPLIT: z
    .object({
      branches: z
        .array(z.object({ key: branchKey, label: branchLabel, weight: z.number().int().min(0).max(100) }))
        .min(SPLIT_BRANCHES.min)
        .max(SPLIT_BRANCHES.max),
    })
    .superRefine((c, ctx) => {
      uniqueKeys(c.branches, ctx);
      const sum = c.branches.reduce((n, b) => n + b.weight, 0);
      if (sum !== 100)
        ctx.addIssue({
          code: 'custom',
          message: `The weights add up to ${sum}; they must add up to 100`,
          path: ['branches'],
        });
    }),
  SWITCH: z
    .object({
      branches: z
        .array(z.object({ key: branchKey, label: branchLabel, ...conditionShape }))
        .min(1)
        .max(MAX_SWITCH_BRANCHES),
      defaultLabel: branchLabel,
    })
    .superRefine((c, ctx) => {
      uniqueKeys(c.branches, ctx);
      c.branches.forEach((b, i) => {
        if (b.key.toLowerCase() === SWITCH_DEFAULT_BRANCH)
          ctx.addIssue({
            code: 'custom',
            message: `"${SWITCH_DEFAULT_BRANCH}" names the branch taken when none matches; pick another key`,
            path: ['branches', i, 'key'],
          });
      });
    }),
  WEBHOOK: z.object({
    url: z.url({ protocol: /^https?$/ }).max(2000),
    method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']).default('POST'),
    headers: z.record(noCrLf.min(1).max(200), noCrLf.max(2000)).optional(),
    body: z.unknown().optional(),
  }),
  UPDATE_CONTACT: z.object({
    updates: z.record(z.string(), z.unknown()).optional(),
    subscriptionAction: z.enum(['none', 'subscribe', 'unsubscribe']).default('none'),
  }),
  EXIT: z.object({ reason: z.string().max(500).optional() }),
  TRIGGER: z.object({ eventName: z.string().trim().min(1).max(200).optional() }),
} as const;

export type StepConfigType = keyof typeof schemas;

/** The config of a step of type `T` as stored (validated on save by {@link validateStepConfig}). */
export type StepConfigOf<T extends StepConfigType> = z.output<(typeof schemas)[T]>;

/** A CONDITION field read from the trigger event's data or the execution context, not the contact. */
export function localConditionField(field: string): { source: 'event' | 'context'; dataField: string } | null {
  if (field.startsWith('event.data.')) return { source: 'event', dataField: `data.${field.slice(11)}` };
  if (field.startsWith('context.')) return { source: 'context', dataField: `data.${field.slice(8)}` };
  return null;
}

/** One condition of a CONDITION step or a SWITCH branch. */
export type ConditionConfig = { field: string; operator: string; value?: unknown };

/**
 * Checks that a condition compiles (the segment compiler's own checks of field, operator and value),
 * its field errors named under `prefix` (`config.field`, `config.branches.2.value`).
 * @throws AppError 422 VALIDATION_ERROR.
 */
async function checkCondition(deps: Deps, projectId: string, c: ConditionConfig, prefix: string): Promise<void> {
  const local = localConditionField(c.field);
  try {
    await compileCondition(conditionTree(c, local?.dataField), {
      db: deps.db,
      projectId,
      now: deps.clock.now(),
      prefix: 'config',
    });
  } catch (err) {
    if (!(err instanceof AppError) || !err.errors) throw err;
    throw fail(err.errors.map((e) => ({ ...e, field: e.field.replace(/^config\.groups\.0\.filters\.0/, prefix) })));
  }
}

/** The one-filter tree a CONDITION step (or a SWITCH branch) compiles to (issue: workflows engine). */
export function conditionTree(config: ConditionConfig, field = config.field) {
  return { logic: 'AND', groups: [{ filters: [{ field, operator: config.operator, value: config.value }] }] };
}

/**
 * Validates `config` of a step of `type` and returns it normalised (defaults filled in) with the
 * template id to store on the step (SEND_EMAIL).
 * @throws AppError 422 VALIDATION_ERROR, fields `config.<key>`; `config.templateId` code
 *   `template_not_found` for an unknown template or one of another project; `config.topicId` code
 *   `topic_not_found` for a topic that is not the project's.
 */
export async function validateStepConfig(
  deps: Deps,
  projectId: string,
  type: StepConfigType,
  rawConfig: Record<string, unknown>,
  templateId?: string | null,
): Promise<{ config: Record<string, unknown>; templateId: string | null }> {
  const input = { ...rawConfig };
  if (type === 'SEND_EMAIL' && input.templateId === undefined && templateId) input.templateId = templateId;
  const parsed = schemas[type].safeParse(input);
  if (!parsed.success) throw fail(zodIssuesToFieldErrors(parsed.error.issues, 'config'));
  const config = parsed.data as Record<string, unknown>;

  if (type === 'SEND_EMAIL') {
    const id = config.templateId as string;
    const found =
      isUuid(id) &&
      (
        await deps.db
          .select({ id: templates.id })
          .from(templates)
          .where(and(eq(templates.projectId, projectId), eq(templates.id, id)))
          .limit(1)
      ).length > 0;
    if (!found)
      throw fail([
        { field: 'config.templateId', code: 'template_not_found', message: 'No template with this id in the project' },
      ]);
    await projectTopic(deps.db, projectId, config.topicId as string | undefined, 'config.topicId');
    return { config, templateId: id };
  }
  if (type === 'CONDITION') await checkCondition(deps, projectId, config as ConditionConfig, 'config');
  if (type === 'SWITCH') {
    const branches = (config as StepConfigOf<'SWITCH'>).branches;
    for (const [i, b] of branches.entries()) await checkCondition(deps, projectId, b, `config.branches.${i}`);
  }
  return { config, templateId: null };
}

function fail(errors: FieldError[]): AppError {
  return new AppError(
    'VALIDATION_ERROR',
    `Invalid step config: ${errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`,
    { errors },
  );
}
