import { compileTemplate, usedVariables } from '../emails/render/liquid.js';
import { RESERVED_VARIABLES } from '../emails/render/render.js';

/** A variable a template reads that the sample contact and the reserved set do not have. */
export interface UnknownVariable {
  /** The name as written (first segment of a path). */
  name: string;
  /** The known name it most likely meant (`unsubscribeUrl` for `unsubscribe_url`), or null. */
  suggestion: string | null;
}

/** Case, `_`, `-` and spaces do not tell names apart for a suggestion (`unsubscribe_url` ~ `unsubscribeUrl`). */
const loose = (s: string) => s.toLowerCase().replace(/[\s_-]/g, '');

/** Levenshtein distance of `a` and `b` (two rows; names are short). */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return prev[b.length];
}

/**
 * The known name closest to `name`: the same once case, `_` and `-` are ignored, else at most two
 * edits apart (one for names under 5 characters), nearest first. Null when none is that close.
 */
export function suggestName(name: string, known: readonly string[]): string | null {
  const l = loose(name);
  const same = known.find((k) => loose(k) === l);
  if (same) return same;
  const max = l.length < 5 ? 1 : 2;
  let best: { k: string; d: number } | null = null;
  for (const k of known) {
    const d = distance(l, loose(k));
    if (d <= max && (!best || d < best.d)) best = { k, d };
  }
  return best?.k ?? null;
}

/**
 * The variables a subject and body read (Liquid and Plunk forms, not loop or assigned names, not
 * Plunk forms with a fallback) that match neither a key of the sample contact's `data` nor a
 * reserved variable: they render empty for that contact, often a misspelling. Each comes with the
 * nearest known name. Both sources must parse (call after rendering them).
 */
export function unknownVariables(
  sources: { subject: string; body: string },
  data: Record<string, unknown>,
): UnknownVariable[] {
  const known = [...RESERVED_VARIABLES.map((r) => r.name), ...Object.keys(data)];
  const used = new Set([
    ...usedVariables(compileTemplate('text', sources.subject)),
    ...usedVariables(compileTemplate('html', sources.body)),
  ]);
  // A data key may hold dots (`user.name`): `{{user.name}}` reads it, and its root `user` is no typo.
  const has = new Set([...known, ...Object.keys(data).map((k) => k.split('.')[0])]);
  return [...used].filter((n) => !has.has(n)).map((name) => ({ name, suggestion: suggestName(name, known) }));
}
