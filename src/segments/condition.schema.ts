import { z } from 'zod';
import type { ConditionTree } from '../db/schema/segments.js';
import { AppError } from '../http/errors.js';
import { zodIssuesToFieldErrors } from '../http/zod-issues.js';

import { MAX_DEPTH, OPERATORS, UNITS } from './operators.js';

export { MAX_DEPTH, OPERATORS, UNITS, type Operator, type Unit } from './operators.js';

/**
 * Names of Object.prototype (`constructor`, `__proto__`, `toString`, …). A field so named, or an
 * `email.<activity>` so named, would be found on the prototype of the compiler's column maps and
 * spliced into SQL as `[object Object]` (a 500), so it is refused here, before compiling.
 */
const PROTOTYPE_NAMES = new Set(Object.getOwnPropertyNames(Object.prototype));
const isPrototypeName = (field: string) =>
  PROTOTYPE_NAMES.has(field) || PROTOTYPE_NAMES.has(field.replace(/^email\./, ''));

export const conditionFilterSchema = z.object({
  field: z
    .string()
    .min(1)
    .max(300)
    .refine((f) => !isPrototypeName(f), {
      message:
        'Unknown field: use email, subscribed, createdAt, updatedAt, data.<key>, event.<name>, email.<activity> or segment.<id>',
    }),
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
 * A condition tree `{logic, groups: [{filters, conditions?}]}`. Shape only;
 * whether an operator fits its field, units and value types are checked by `compileCondition`.
 */
export const conditionTreeSchema: z.ZodType<ConditionTree> = z.object({
  logic: z.enum(['AND', 'OR']),
  get groups() {
    return z.array(conditionGroupSchema).max(100);
  },
}) as unknown as z.ZodType<ConditionTree>;

// The same tree in answers, a component of its own (`ConditionTree`) so that the recursion is a $ref.
const conditionGroupOut = z.object({
  filters: z.array(conditionFilterSchema),
  get conditions() {
    return conditionTreeOut.optional();
  },
});

/** A stored condition tree as answers carry it (segments, campaign audiences). */
export const conditionTreeOut: z.ZodType<ConditionTree> = z
  .object({
    logic: z.enum(['AND', 'OR']),
    get groups() {
      return z.array(conditionGroupOut);
    },
  })
  .meta({
    id: 'ConditionTree',
    description: 'A condition tree: groups combined by logic; within a group, filters and nested conditions are ANDed',
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
    throw new AppError(
      'VALIDATION_ERROR',
      `Invalid ${prefix}: ${errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`,
      { errors },
    );
  }
  if (depthOf(r.data) > MAX_DEPTH) throw tooDeepError(prefix);
  if (filterCount(r.data) > MAX_FILTERS) {
    throw new AppError('VALIDATION_ERROR', `Invalid ${prefix}: more than ${MAX_FILTERS} filters`, {
      errors: [{ field: prefix, message: `A condition may have at most ${MAX_FILTERS} filters`, code: 'too_big' }],
    });
  }
  return r.data;
}
