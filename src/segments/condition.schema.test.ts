import { describe, expect, it } from 'vitest';
import { AppError } from '../http/errors.js';
import { parseConditionTree } from './condition.schema.js';

// Found by the contract fuzzer (seed 7): a filter on `__proto__` reached the compiler, whose column
// maps found it on their prototype and wrote `c.[object Object]` into the SQL, a 500.
describe('condition filter fields named like Object.prototype members', () => {
  const tree = (field: string) => ({
    logic: 'AND',
    groups: [{ filters: [{ field, operator: 'olderThan', value: 1, unit: 'days' }] }],
  });

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'email.constructor', 'email.__proto__'])(
    'refuses %s with a 422 on the field',
    (field) => {
      let err: unknown;
      try {
        parseConditionTree(tree(field));
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).status).toBe(422);
      expect((err as AppError).errors?.[0]).toMatchObject({
        field: 'condition.groups.0.filters.0.field',
        code: 'custom',
      });
    },
  );

  it('still takes such names as data keys and event names', () => {
    expect(() => parseConditionTree(tree('data.constructor'))).not.toThrow();
    expect(() => parseConditionTree(tree('event.toString'))).not.toThrow();
  });
});
