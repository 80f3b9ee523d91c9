import { describe, expect, it } from 'vitest';
import { mergeIds, parseContactIds, startProblem, startSummary } from './manualStart';

const A = '0190c5e2-8a4b-7c3d-9e1f-2a3b4c5d6e7f';
const B = '0190c5e2-8a4b-7c3d-9e1f-2a3b4c5d6e80';

describe('manual start helpers', () => {
  it('reads pasted ids, once each, and names what is no id', () => {
    expect(parseContactIds(`${A}\n${B.toUpperCase()}, ${A}; nope`)).toEqual({ ids: [A, B], invalid: ['nope'] });
    expect(parseContactIds('  ')).toEqual({ ids: [], invalid: [] });
    expect(mergeIds([B], [A, B])).toEqual([B, A]);
  });

  it('says what keeps a list from being sent', () => {
    expect(startProblem([A], ['nope'])).toMatch(/^"nope" is not a contact id/);
    expect(startProblem([], [])).toBe('Pick at least one contact, or paste contact ids.');
    expect(
      startProblem(
        Array.from({ length: 1001 }, () => A),
        [],
      ),
    ).toBe('That is 1001 contacts; start at most 1000 at a time.');
    expect(startProblem([A], [])).toBeNull();
  });

  it('sums the result up in a sentence', () => {
    const exec = { id: 'x' } as never;
    expect(startSummary({ data: [exec, exec], skipped: [] })).toBe('Started for 2 contacts.');
    expect(
      startSummary({
        data: [exec],
        skipped: [
          { contactId: A, reason: 'already_entered' },
          { contactId: B, reason: 'already_running' },
        ],
      }),
    ).toBe(
      'Started for 1 contact; 1 contact had already been through this workflow (re-entry is off), and 1 contact is still in it.',
    );
    expect(startSummary({ data: [], skipped: [{ contactId: A, reason: 'already_running' }] })).toBe(
      'Nobody was started; 1 contact is still in it.',
    );
  });
});
