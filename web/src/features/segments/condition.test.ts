import { describe, expect, it } from 'vitest';
import { OPERATORS_BY_KIND } from '../../../../src/segments/operators';
import { errorsAt, newFilter, operatorsFor, withField, withOperator } from './condition';
import { parseEmails } from './SegmentMembers';

describe('condition builder rules', () => {
  it("offers the compiler's operators for every field kind", () => {
    expect(operatorsFor('email')).toEqual(OPERATORS_BY_KIND.email);
    expect(operatorsFor('data.plan')).toEqual(OPERATORS_BY_KIND.data);
    expect(operatorsFor('data.seats', 'number')).not.toContain('contains');
    expect(operatorsFor('event.purchase')).toEqual([
      'triggered',
      'notTriggered',
      'triggeredWithin',
      'triggeredOlderThan',
      'notTriggeredWithin',
    ]);
    expect(operatorsFor('email.opened')).toBe(OPERATORS_BY_KIND.emailActivity);
    expect(operatorsFor('segment.0190')).toEqual(['memberOfSegment', 'notMemberOfSegment']);
    expect(operatorsFor('createdAt')).toContain('within');
    expect(operatorsFor('nonsense')).toEqual([]);
  });

  it('shapes value and unit to the operator', () => {
    const f = { field: 'data.plan', operator: 'equals' as const, value: 'pro' };
    expect(withOperator(f, 'notEquals')).toEqual({ field: 'data.plan', operator: 'notEquals', value: 'pro' });
    expect(withOperator(f, 'exists')).toEqual({ field: 'data.plan', operator: 'exists' });
    expect(withOperator(f, 'within')).toEqual({ field: 'data.plan', operator: 'within', value: 30, unit: 'days' });
    expect(withOperator({ field: 'data.x', operator: 'within', value: 7, unit: 'hours' }, 'equals')).toEqual({
      field: 'data.x',
      operator: 'equals',
      value: '',
    });
    expect(newFilter('subscribed')).toEqual({ field: 'subscribed', operator: 'equals', value: true });
  });

  it("resets an operator that does not fit the new field's type, and the value with the type", () => {
    expect(withField({ field: 'data.plan', operator: 'contains', value: 'x' }, 'data.seats', 'number', 'text')).toEqual(
      { field: 'data.seats', operator: 'equals', value: '' },
    );
    expect(withField({ field: 'data.plan', operator: 'equals', value: 'x' }, 'data.seats', 'number', 'text')).toEqual({
      field: 'data.seats',
      operator: 'equals',
      value: '',
    });
    expect(withField({ field: 'data.a', operator: 'exists' }, 'data.vip', 'boolean', 'text')).toEqual({
      field: 'data.vip',
      operator: 'exists',
    });
    expect(newFilter('data.vip', 'boolean')).toEqual({ field: 'data.vip', operator: 'equals', value: true });
  });

  it("keeps the operator when the new field takes it, else picks the field's first", () => {
    expect(withField({ field: 'data.a', operator: 'contains', value: 'x' }, 'data.b')).toEqual({
      field: 'data.b',
      operator: 'contains',
      value: 'x',
    });
    expect(withField({ field: 'data.a', operator: 'contains', value: 'x' }, 'event.buy')).toEqual({
      field: 'event.buy',
      operator: 'triggered',
    });
    expect(
      withField({ field: 'event.a', operator: 'triggeredWithin', value: 3, unit: 'days' }, 'email.opened'),
    ).toEqual({ field: 'email.opened', operator: 'triggeredWithin', value: 3, unit: 'days' });
  });

  it("finds the server's messages of one filter by its path", () => {
    const errors = [
      { field: 'condition.groups.0.filters.1.operator', message: 'bad op' },
      { field: 'condition.groups.0.filters.10.value', message: 'not this one' },
      { field: 'condition.groups.0.filters.1', message: 'whole' },
    ];
    expect(errorsAt(errors, 'condition.groups.0.filters.1')).toEqual({ operator: 'bad op', field: 'whole' });
  });

  it('reads pasted addresses in any separator, once each', () => {
    expect(parseEmails('a@x.test, b@x.test;c@x.test\n a@x.test  ')).toEqual(['a@x.test', 'b@x.test', 'c@x.test']);
  });
});
