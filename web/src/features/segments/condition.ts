import type { ResponseOf } from '../../api/types';
import { operatorsForField, type ValueType } from '../../lib/operators';
import {
  EMAIL_ACTIVITIES,
  fieldKind,
  MAX_DEPTH,
  UNITS,
  VALUELESS_OPERATORS,
  WINDOW_OPERATORS,
  type FieldKind,
  type Operator,
  type Unit,
} from '../../../../src/segments/operators';

/**
 * The condition tree the builder edits, and the rules it follows. The operators offered for a field
 * are the server's own rule by field kind and value type (src/segments/operators.ts), so the builder
 * offers only what the server accepts and what fits the field.
 */

export type ConditionTree = ResponseOf<'/segments/{id}', 'get'>['condition'] & object;
export type ConditionGroup = ConditionTree['groups'][number];
export type ConditionFilter = ConditionGroup['filters'][number];
export { EMAIL_ACTIVITIES, fieldKind, MAX_DEPTH, UNITS, type FieldKind, type Operator, type Unit };

/** Operators offered for a field holding `type` values (empty for a field of no known kind). */
export function operatorsFor(field: string, type: ValueType = 'unknown'): readonly Operator[] {
  return fieldKind(field) ? operatorsForField(field, type) : [];
}

export const isWindow = (op: string) => (WINDOW_OPERATORS as readonly string[]).includes(op);
export const isValueless = (op: string) => (VALUELESS_OPERATORS as readonly string[]).includes(op);

/** A filter on `field` (values of `type`) with its first operator and an empty value of the right shape. */
export function newFilter(field = 'email', type: ValueType = 'unknown'): ConditionFilter {
  return withOperator({ field, operator: 'equals' }, operatorsFor(field, type)[0] ?? 'equals', type);
}

/**
 * The filter with another operator: the value and unit are reset when their shape changes; a fresh
 * value of a yes/no field is `true`.
 */
export function withOperator(f: ConditionFilter, operator: Operator, type: ValueType = 'unknown'): ConditionFilter {
  if (isValueless(operator)) return { field: f.field, operator };
  if (isWindow(operator))
    return { field: f.field, operator, value: isWindow(f.operator) ? f.value : 30, unit: f.unit ?? 'days' };
  const keep = !isWindow(f.operator) && !isValueless(f.operator);
  const blank = fieldKind(f.field) === 'subscribed' || type === 'boolean' ? true : '';
  return { field: f.field, operator, value: keep && f.value !== undefined ? f.value : blank };
}

/**
 * The filter on another field holding `type` values (the old field held `fromType`): keeps the
 * operator when it fits the new field, else takes the field's first operator; the value is kept only
 * when the type and the operator's shape stay the same.
 */
export function withField(
  f: ConditionFilter,
  field: string,
  type: ValueType = 'unknown',
  fromType: ValueType = type,
): ConditionFilter {
  const ops = operatorsFor(field, type);
  const keepOp = ops.includes(f.operator as Operator);
  if (keepOp && type === fromType) return { ...f, field };
  return withOperator({ field, operator: 'equals' }, keepOp ? (f.operator as Operator) : (ops[0] ?? 'equals'), type);
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
