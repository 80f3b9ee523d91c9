import {
  CONDITION_STEP_OPERATORS,
  OPERATORS,
  operatorsForField,
  valueTypeOf,
  valueTypeOfField,
  type Operator,
  type ValueType,
} from '../../../src/segments/operators';

/**
 * The words of conditions, shared by the segment builder and the workflow CONDITION step. Which
 * operator fits which field is the server's own rule (src/segments/operators.ts `operatorsForField`);
 * this module only names operators and fields for people.
 */

export { OPERATORS, operatorsForField, valueTypeOf, valueTypeOfField, type Operator, type ValueType };

/** What each operator reads as when the field's type does not change the words. */
export const OPERATOR_LABELS: Record<Operator, string> = {
  equals: 'is',
  notEquals: 'is not',
  contains: 'contains',
  notContains: 'does not contain',
  greaterThan: 'is greater than / after',
  lessThan: 'is less than / before',
  greaterThanOrEqual: 'is at least / on or after',
  lessThanOrEqual: 'is at most / on or before',
  exists: 'is set',
  notExists: 'is not set',
  within: 'is within the last',
  olderThan: 'is longer ago than',
  triggered: 'happened',
  triggeredWithin: 'happened within the last',
  triggeredOlderThan: 'last happened longer ago than',
  notTriggered: 'never happened',
  notTriggeredWithin: 'did not happen within the last',
  memberOfSegment: 'is a member',
  notMemberOfSegment: 'is not a member',
};

/** Comparisons say "greater than" of numbers and "after" of dates. */
const BY_TYPE: Partial<Record<ValueType, Partial<Record<Operator, string>>>> = {
  number: {
    greaterThan: 'is greater than',
    lessThan: 'is less than',
    greaterThanOrEqual: 'is at least',
    lessThanOrEqual: 'is at most',
  },
  date: {
    greaterThan: 'is after',
    lessThan: 'is before',
    greaterThanOrEqual: 'is on or after',
    lessThanOrEqual: 'is on or before',
  },
};

/** The words for `op` on a field of `type`; an operator unknown to the server reads as itself. */
export function operatorLabel(op: string, type: ValueType = 'unknown'): string {
  return BY_TYPE[type]?.[op as Operator] ?? OPERATOR_LABELS[op as Operator] ?? op;
}

/** `{value, label}` choices of operators for a select, the current one kept even when it no longer fits. */
export function operatorChoices(
  ops: readonly string[],
  type: ValueType,
  current?: string,
): Array<{ value: string; label: string }> {
  const all = current && !ops.includes(current) ? [...ops, current] : ops;
  return all.map((o) => ({ value: o, label: operatorLabel(o, type) }));
}

/** Names of the built-in contact fields. */
export const BUILT_IN_FIELD_LABELS: Record<string, string> = {
  email: 'Email',
  subscribed: 'Subscribed',
  createdAt: 'Created at',
  updatedAt: 'Updated at',
};

/**
 * The name a person reads for a condition field: built-ins by their name ("Created at"), contact
 * data keys as they are (`data.plan` → "plan"), workflow event data and context with their source
 * ("event data: plan", "context: plan"); anything else as it is.
 */
export function fieldLabel(field: string): string {
  if (BUILT_IN_FIELD_LABELS[field]) return BUILT_IN_FIELD_LABELS[field];
  if (field.startsWith('data.')) return field.slice(5);
  if (field.startsWith('event.data.')) return `event data: ${field.slice(11)}`;
  if (field.startsWith('context.')) return `context: ${field.slice(8)}`;
  return field;
}

/**
 * Operators a workflow CONDITION step offers on `field` of inventory type `type`. `event.data.<key>`
 * and `context.<key>` compile as `data.<key>` (src/workflows/steps.config.ts `localConditionField`),
 * and a CONDITION takes the value operators only.
 */
export function conditionStepOperators(field: string, type: ValueType): readonly Operator[] {
  const local = /^(event\.data|context)\.(.*)$/.exec(field);
  const ops = operatorsForField(local ? `data.${local[2]}` : field, type);
  return ops.filter((o) => CONDITION_STEP_OPERATORS.includes(o));
}
