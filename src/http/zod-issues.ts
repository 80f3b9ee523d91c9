import type { z } from 'zod';
import type { FieldError } from './errors.js';

// zod 4 issue codes → the zod 3 names clients of this API know (decisions.md: status codes).
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
 * Turns zod issues into `errors[]` entries (api.md §7.1) with zod 3 code names; `received` is the
 * offending input value when zod reports it or it can be read from `input`.
 */
export function zodIssuesToFieldErrors(issues: readonly z.core.$ZodIssue[], prefix?: string): FieldError[] {
  return issues.map((issue) => {
    let code: string = CODE_NAMES[issue.code] ?? issue.code;
    // A wrong literal (z.literal) was "invalid_literal" in zod 3.
    if (issue.code === 'invalid_value' && issue.values.length === 1) code = 'invalid_literal';
    const out: FieldError = { field: fieldOf(issue.path, prefix), message: issue.message, code };
    if (issue.code === 'invalid_type') {
      const input = (issue as { input?: unknown }).input;
      const said = /received (\w+)/.exec(issue.message)?.[1];
      out.received = 'input' in issue
        ? (input === undefined ? 'undefined' : input === null ? 'null' : Array.isArray(input) ? 'array' : typeof input)
        : (said ?? 'undefined');
    } else if (issue.code === 'unrecognized_keys') {
      out.received = issue.keys;
    }
    return out;
  });
}
