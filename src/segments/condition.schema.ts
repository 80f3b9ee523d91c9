import { z } from 'zod';
import type { ConditionTree } from '../db/schema/segments.js';
import { AppError } from '../http/errors.js';
import { zodIssuesToFieldErrors } from '../http/zod-issues.js';

/**
 * Operators of decisions.md "Segments and condition trees", in its order: keep it, the first ten
 * (equals … notExists) are the workflow CONDITION operators (src/workflows/steps.config.ts).
 */
export const OPERATORS = [
  'equals', 'notEquals', 'contains', 'notContains', 'greaterThan', 'lessThan', 'greaterThanOrEqual',
  'lessThanOrEqual', 'exists', 'notExists', 'within', 'olderThan', 'triggered', 'triggeredWithin',
  'triggeredOlderThan', 'notTriggered', 'notTriggeredWithin', 'memberOfSegment', 'notMemberOfSegment',
] as const;
export type Operator = (typeof OPERATORS)[number];

/** Units of the time-window operators (decisions.md). */
export const UNITS = ['minutes', 'hours', 'days'] as const;
export type Unit = (typeof UNITS)[number];

/** Nesting limit of `groups[].conditions`, so a hostile tree cannot exhaust the stack or the planner. */
export const MAX_DEPTH = 5;

export const conditionFilterSchema = z.object({
  field: z.string().min(1).max(300),
  operator: z.enum(OPERATORS),
  value: z.unknown().optional(),
  unit: z.enum(UNITS).optional(),
});

// zod 4 recursive object: the getter defers the reference until the schema is complete.
export const conditionGroupSchema = z.object({
  filters: z.array(conditionFilterSchema).max(100),
  get conditions() {
    return conditionTreeSchema.optional();
  },
});

/**
 * A condition tree `{logic, groups: [{filters, conditions?}]}` (api.md §2.5, decisions.md). Shape only;
 * whether an operator fits its field, units and value types are checked by `compileCondition`.
 */
export const conditionTreeSchema: z.ZodType<ConditionTree> = z.object({
  logic: z.enum(['AND', 'OR']),
  get groups() {
    return z.array(conditionGroupSchema).max(100);
  },
}) as unknown as z.ZodType<ConditionTree>;

/** Filters in a whole tree, nested ones included: each compiles to SQL, some to a look-up. */
export const MAX_FILTERS = 500;

function filterCount(tree: ConditionTree): number {
  return tree.groups.reduce((n, g) => n + g.filters.length + (g.conditions ? filterCount(g.conditions) : 0), 0);
}

function depthOf(tree: ConditionTree): number {
  let d = 1;
  for (const g of tree.groups) if (g.conditions) d = Math.max(d, 1 + depthOf(g.conditions));
  return d;
}

const tooDeepError = (prefix: string) =>
  new AppError('VALIDATION_ERROR', `Invalid ${prefix}: nested conditions go deeper than ${MAX_DEPTH} levels`, {
    errors: [{ field: prefix, message: `Nested conditions may be at most ${MAX_DEPTH} levels deep`, code: 'too_big' }],
  });

/** Iterative look at raw input: does `groups[].conditions` nest deeper than {@link MAX_DEPTH}? */
function tooDeep(input: unknown): boolean {
  const todo: Array<[unknown, number]> = [[input, 1]];
  while (todo.length) {
    const [node, depth] = todo.pop()!;
    if (depth > MAX_DEPTH) return true;
    const groups = (node as { groups?: unknown })?.groups;
    if (!Array.isArray(groups)) continue;
    for (const g of groups.slice(0, 101)) {
      const next = (g as { conditions?: unknown })?.conditions;
      if (next && typeof next === 'object') todo.push([next, depth + 1]);
    }
  }
  return false;
}

/**
 * Parses an untrusted condition tree.
 * @param prefix field name of the tree in error paths (`condition`, `audienceCondition`, `config`).
 * @throws AppError 422 VALIDATION_ERROR with `errors[].field` like `condition.groups.0.filters.1.operator`.
 */
export function parseConditionTree(input: unknown, prefix = 'condition'): ConditionTree {
  // Refused before zod walks it: zod recurses once per level, and a hostile body can nest thousands.
  if (tooDeep(input)) throw tooDeepError(prefix);
  const r = conditionTreeSchema.safeParse(input);
  if (!r.success) {
    const errors = zodIssuesToFieldErrors(r.error.issues, prefix);
    throw new AppError('VALIDATION_ERROR', `Invalid ${prefix}: ${errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`, { errors });
  }
  if (depthOf(r.data) > MAX_DEPTH) throw tooDeepError(prefix);
  if (filterCount(r.data) > MAX_FILTERS) {
    throw new AppError('VALIDATION_ERROR', `Invalid ${prefix}: more than ${MAX_FILTERS} filters`, {
      errors: [{ field: prefix, message: `A condition may have at most ${MAX_FILTERS} filters`, code: 'too_big' }],
    });
  }
  return r.data;
}
