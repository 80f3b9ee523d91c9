import type { ResponseOf } from '../../api/types';
import {
  EMAIL_ACTIVITIES,
  fieldKind,
  MAX_DEPTH,
  OPERATORS_BY_KIND,
  UNITS,
  VALUELESS_OPERATORS,
  WINDOW_OPERATORS,
  type FieldKind,
  type Operator,
  type Unit,
} from '../../../../src/segments/operators';

/**
 * The condition tree the builder edits, and the rules it follows. The operator lists per field kind
 * are the server compiler's own table (src/segments/operators.ts), so the builder offers exactly what
 * the server accepts.
 */

export type ConditionTree = ResponseOf<'/segments/{id}', 'get'>['condition'] & object;
export type ConditionGroup = ConditionTree['groups'][number];
export type ConditionFilter = ConditionGroup['filters'][number];
export { EMAIL_ACTIVITIES, fieldKind, MAX_DEPTH, UNITS, type FieldKind, type Operator, type Unit };

/** Operators a field accepts (empty for an unknown field). */
export function operatorsFor(field: string): readonly Operator[] {
  const kind = fieldKind(field);
  return kind ? OPERATORS_BY_KIND[kind] : [];
}

export const isWindow = (op: string) => (WINDOW_OPERATORS as readonly string[]).includes(op);
export const isValueless = (op: string) => (VALUELESS_OPERATORS as readonly string[]).includes(op);

/** Words a person reads for each operator. */
export const OPERATOR_LABELS: Record<Operator, string> = {
  equals: 'equals',
  notEquals: 'does not equal',
  contains: 'contains',
  notContains: 'does not contain',
  greaterThan: 'greater than / after',
  lessThan: 'less than / before',
  greaterThanOrEqual: 'at least / on or after',
  lessThanOrEqual: 'at most / on or before',
  exists: 'is set',
  notExists: 'is not set',
  within: 'within the last',
  olderThan: 'longer ago than',
  triggered: 'happened',
  triggeredWithin: 'happened within the last',
  triggeredOlderThan: 'last happened longer ago than',
  notTriggered: 'never happened',
  notTriggeredWithin: 'did not happen within the last',
  memberOfSegment: 'is a member',
  notMemberOfSegment: 'is not a member',
};

/** A filter on `field` with its first operator and an empty value of the right shape. */
export function newFilter(field = 'email'): ConditionFilter {
  return withOperator({ field, operator: 'equals' }, operatorsFor(field)[0] ?? 'equals');
}

/** The filter with another operator: the value and unit are reset when their shape changes. */
export function withOperator(f: ConditionFilter, operator: Operator): ConditionFilter {
  if (isValueless(operator)) return { field: f.field, operator };
  if (isWindow(operator))
    return { field: f.field, operator, value: isWindow(f.operator) ? f.value : 30, unit: f.unit ?? 'days' };
  const keep = !isWindow(f.operator) && !isValueless(f.operator);
  const blank = fieldKind(f.field) === 'subscribed' ? true : '';
  return { field: f.field, operator, value: keep && f.value !== undefined ? f.value : blank };
}

/** The filter on another field: keeps the operator when the new field accepts it. */
export function withField(f: ConditionFilter, field: string): ConditionFilter {
  const ops = operatorsFor(field);
  if (ops.includes(f.operator as Operator)) return { ...f, field };
  return withOperator({ field, operator: f.operator }, ops[0] ?? 'equals');
}

export const emptyTree = (): ConditionTree => ({ logic: 'AND', groups: [{ filters: [newFilter()] }] });

/** Path of a node in error paths: `condition.groups.0.conditions.groups.1`. */
export const groupPath = (treePath: string, i: number) => `${treePath}.groups.${i}`;

/**
 * The server's field errors that concern one filter (`<prefix>.groups.0.filters.1.operator` →
 * the filter at `<prefix>.groups.0.filters.1`), as `{part: message}`.
 */
export function errorsAt(
  errors: Array<{ field: string; message: string }>,
  filterPath: string,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of errors) {
    if (e.field === filterPath) out.field = e.message;
    else if (e.field.startsWith(`${filterPath}.`)) out[e.field.slice(filterPath.length + 1)] = e.message;
  }
  return out;
}
