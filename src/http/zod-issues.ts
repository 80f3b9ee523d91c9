import type { z } from 'zod';
import type { FieldError } from './errors.js';

// zod 4 issue codes → the zod 3 names clients of this API know.
const CODE_NAMES: Record<string, string> = {
  invalid_format: 'invalid_string',
  invalid_value: 'invalid_enum_value',
  invalid_union: 'invalid_union',
  invalid_key: 'invalid_type',
  invalid_element: 'invalid_type',
};

/** Path of an issue as a dotted field name (`to.0.email`); the root is `body`. */
function fieldOf(path: PropertyKey[], prefix?: string): string {
  const parts = path.map(String);
  if (prefix) parts.unshift(prefix);
  return parts.join('.') || 'body';
}

/**
 * A union whose every branch failed on the type of the same (missing or wrong-typed) value is, for a
 * client, a plain `invalid_type` (zod 3 said so); keep `invalid_union` only when branches disagree.
 */
function collapseUnion(issue: z.core.$ZodIssue): z.core.$ZodIssue {
  if (issue.code !== 'invalid_union') return issue;
  const branches = (issue as { errors?: z.core.$ZodIssue[][] }).errors ?? [];
  // Nested unions (a union of unions) collapse from the inside out.
  const firsts = branches
    .map((b) => b[0])
    .filter(Boolean)
    .map(collapseUnion);
  if (!firsts.length || !firsts.every((f) => f.code === 'invalid_type' && f.path.length === 0)) return issue;
  const received = /received (\w+)/.exec(firsts[0].message)?.[1] ?? 'undefined';
  const expected = [...new Set(firsts.map((f) => (f as { expected?: string }).expected).filter(Boolean))].join(' | ');
  return {
    ...firsts[0],
    path: issue.path,
    message: `Invalid input: expected ${expected}, received ${received}`,
  } as z.core.$ZodIssue;
}

/**
 * Turns zod issues into `errors[]` entries of the error envelope with zod 3 code names; `received` is the
 * offending input value when zod reports it or it can be read from `input`.
 */
export function zodIssuesToFieldErrors(issues: readonly z.core.$ZodIssue[], prefix?: string): FieldError[] {
  return issues.map((raw) => {
    const issue = collapseUnion(raw);
    let code: string = CODE_NAMES[issue.code] ?? issue.code;
    // A wrong literal (z.literal) was "invalid_literal" in zod 3.
    if (issue.code === 'invalid_value' && issue.values.length === 1) code = 'invalid_literal';
    const out: FieldError = { field: fieldOf(issue.path, prefix), message: issue.message, code };
    if (issue.code === 'invalid_type') {
      const input = (issue as { input?: unknown }).input;
      const said = /received (\w+)/.exec(issue.message)?.[1];
      out.received =
        'input' in issue
          ? input === undefined
            ? 'undefined'
            : input === null
              ? 'null'
              : Array.isArray(input)
                ? 'array'
                : typeof input
          : (said ?? 'undefined');
    } else if (issue.code === 'unrecognized_keys') {
      out.received = issue.keys;
    }
    return out;
  });
}
