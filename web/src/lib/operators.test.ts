import { describe, expect, it } from 'vitest';
import { fieldKind, OPERATORS_BY_KIND, OPERATORS_BY_TYPE, type ValueType } from '../../../src/segments/operators';
import {
  conditionStepOperators,
  fieldLabel,
  OPERATOR_LABELS,
  operatorChoices,
  operatorLabel,
  OPERATORS,
  operatorsForField,
  valueTypeOf,
  valueTypeOfField,
} from './operators';

const TEXTY = ['contains', 'notContains'];
const ORDERING = ['greaterThan', 'lessThan', 'greaterThanOrEqual', 'lessThanOrEqual'];

describe('the operator table by field type', () => {
  it('offers each type only its operators', () => {
    expect(operatorsForField('data.plan', 'text')).toEqual([
      'equals',
      'notEquals',
      'contains',
      'notContains',
      'exists',
      'notExists',
    ]);
    const num = operatorsForField('data.seats', 'number');
    expect(num).toEqual(['equals', 'notEquals', ...ORDERING, 'exists', 'notExists']);
    expect(operatorsForField('data.vip', 'boolean')).toEqual(['equals', 'notEquals', 'exists', 'notExists']);
    expect(operatorsForField('data.renewsAt', 'date')).toEqual([
      'equals',
      'notEquals',
      ...ORDERING,
      'exists',
      'notExists',
      'within',
      'olderThan',
    ]);
    expect(operatorsForField('data.tags', 'list')).toEqual(['contains', 'notContains', 'exists', 'notExists']);
    // A key the inventory has not seen: everything the compiler takes on data.
    expect(operatorsForField('data.new', 'unknown')).toEqual(OPERATORS_BY_KIND.data);
  });

  it('never offers "contains" on numbers, booleans or dates, nor an ordering on text', () => {
    for (const t of ['number', 'boolean', 'date'] as ValueType[])
      for (const op of TEXTY) expect(operatorsForField('data.x', t)).not.toContain(op);
    for (const t of ['text', 'boolean', 'list'] as ValueType[])
      for (const op of ORDERING) expect(operatorsForField('data.x', t)).not.toContain(op);
  });

  it('gives built-in fields their own type, whatever the inventory says', () => {
    expect(operatorsForField('email', 'number')).toEqual(['equals', 'notEquals', 'contains', 'notContains']);
    expect(operatorsForField('subscribed')).toEqual(['equals', 'notEquals']);
    expect(operatorsForField('createdAt')).toEqual(OPERATORS_BY_KIND.contactDate);
    expect(valueTypeOfField('createdAt', 'string')).toBe('date');
    expect(valueTypeOfField('data.n', 'number')).toBe('number');
    expect(operatorsForField('event.signup', 'number')).toBe(OPERATORS_BY_KIND.event);
    expect(operatorsForField('segment.x')).toBe(OPERATORS_BY_KIND.segment);
  });

  it('offers only what the compiler accepts for the kind', () => {
    for (const t of Object.keys(OPERATORS_BY_TYPE) as ValueType[])
      for (const f of ['email', 'subscribed', 'createdAt', 'data.x']) {
        const accepted = OPERATORS_BY_KIND[fieldKind(f)!];
        for (const op of operatorsForField(f, t)) expect(accepted).toContain(op);
      }
  });

  it('reads the inventories’ type names', () => {
    expect(['string', 'number', 'boolean', 'date', 'object', 'array', 'null', undefined].map(valueTypeOf)).toEqual([
      'text',
      'number',
      'boolean',
      'date',
      'list',
      'list',
      'unknown',
      'unknown',
    ]);
  });

  it('workflow conditions: value operators only, event data and context read like contact data', () => {
    expect(conditionStepOperators('event.data.amount', 'number')).toEqual(operatorsForField('data.x', 'number'));
    expect(conditionStepOperators('context.plan', 'text')).toEqual(operatorsForField('data.x', 'text'));
    expect(conditionStepOperators('createdAt', 'date')).not.toContain('within');
    expect(conditionStepOperators('data.x', 'unknown')).toHaveLength(10);
  });
});

describe('operator and field words', () => {
  it('has words for every operator the server accepts', () => {
    for (const op of OPERATORS) {
      expect(OPERATOR_LABELS[op]).toMatch(/^[a-z /]+$/);
      // Camel-case names (notEquals) never reach the screen.
      expect(operatorLabel(op)).not.toMatch(/[A-Z]/);
    }
    expect(new Set(Object.values(OPERATOR_LABELS)).size).toBe(OPERATORS.length);
  });

  it('says "greater than" of numbers and "after" of dates', () => {
    expect(operatorLabel('greaterThan', 'number')).toBe('is greater than');
    expect(operatorLabel('lessThan', 'date')).toBe('is before');
    expect(operatorLabel('notEquals', 'text')).toBe('is not');
    expect(operatorLabel('exists', 'list')).toBe('is set');
    expect(operatorLabel('madeUp')).toBe('madeUp');
  });

  it('keeps an operator that no longer fits among the choices, so the select shows it', () => {
    expect(operatorChoices(['equals'], 'text', 'greaterThan')).toEqual([
      { value: 'equals', label: 'is' },
      { value: 'greaterThan', label: 'is greater than / after' },
    ]);
  });

  it('names fields for people', () => {
    expect(['email', 'subscribed', 'createdAt', 'updatedAt'].map(fieldLabel)).toEqual([
      'Email',
      'Subscribed',
      'Created at',
      'Updated at',
    ]);
    expect(fieldLabel('data.plan')).toBe('plan');
    expect(fieldLabel('event.data.amount')).toBe('event data: amount');
    expect(fieldLabel('context.step')).toBe('context: step');
  });
});
