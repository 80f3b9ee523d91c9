import type { ConditionTree } from '../db/schema.js';
import { MAX_FILTERS } from './condition.schema.js';

/**
 * Limits on `segment.<id>` references (issue "Hardening" 2). A DYNAMIC segment named in a condition
 * is compiled inline, each time it is named, so a chain of segments that each name the previous one
 * many times grows geometrically (S1 = 500×S0, S2 = 500×S1, S3 = 500×S2 is 10^8 filters). The
 * compiler counts every filter it compiles against one budget for the whole expanded tree and
 * refuses, before building any more SQL, a tree past {@link MAX_EXPANDED_FILTERS} or a reference
 * chain deeper than {@link MAX_REFERENCE_DEPTH}.
 */

/**
 * Filters in a whole expanded tree: the tree's own filters plus, for every `segment.<id>` reference
 * to a DYNAMIC segment, that segment's expanded filters again (a reference named twice counts twice).
 *
 * Why the same 500 as the cap on one tree (`MAX_FILTERS`): PostgreSQL evaluates every filter for
 * every contact it cannot rule out early, so the cost of a condition grows with its expanded size,
 * and the largest tree a client may write by hand is the largest the service has agreed to run.
 * References save typing; they do not buy a bigger predicate. For scale (bench/segment-references.ts,
 * 2 shared cores): 500 of the costliest filters bind ~4,000 parameters (PostgreSQL allows 65,535),
 * compile in ~35 ms, plan in 30–150 ms and cost tens of milliseconds per contact they do not rule
 * out early (every `event.`/`email.` filter is a correlated EXISTS); twice that is already minutes
 * for a recompute of a 100,000-contact project.
 */
export const MAX_EXPANDED_FILTERS = MAX_FILTERS;

/**
 * `segment.<id>` hops from the tree being compiled to the deepest DYNAMIC segment it inlines: a
 * segment naming a segment that names a segment (3) is allowed, one more level is refused. Real
 * audiences rarely need more than two levels, and every level multiplies.
 */
export const MAX_REFERENCE_DEPTH = 3;

/** One inlined reference on the way to where a limit was hit. */
export interface ReferenceHop {
  segmentId: string;
  name: string;
}

/**
 * Thrown by the compiler when the expanded tree goes past a limit; it unwinds the whole compile (no
 * more SQL is built) and `compileCondition` turns it into a 422. `field` ends up naming the filter of
 * the outermost tree whose expansion went over; `hops` the references from there to the segment where
 * the limit was hit.
 */
export class ReferenceLimitError extends Error {
  field?: string;
  constructor(
    readonly code: 'segment_too_large' | 'segment_too_deep',
    readonly hops: ReferenceHop[],
  ) {
    super(code);
  }

  /** The path in words: `condition.groups.0.filters.2 → segment "S2" (id) → segment "S1" (id)`. */
  path(): string {
    return [this.field ?? 'condition', ...this.hops.map((h) => `segment "${h.name}" (${h.segmentId})`)].join(' → ');
  }

  /** The sentence of the 422. */
  describe(): string {
    return this.code === 'segment_too_large'
      ? `Segment references expand to more than ${MAX_EXPANDED_FILTERS} filters (every reference to a dynamic segment counts its filters again): ${this.path()}`
      : `Segment references nest deeper than ${MAX_REFERENCE_DEPTH} levels: ${this.path()}`;
  }
}

/** Every `segment.<id>` a tree names (nested groups included), lower-cased, without repeats. */
export function referencedSegmentIds(tree: ConditionTree | null | undefined): string[] {
  const ids = new Set<string>();
  const todo = tree ? [tree] : [];
  while (todo.length) {
    const t = todo.pop()!;
    for (const g of t.groups ?? []) {
      for (const f of g.filters ?? [])
        if (typeof f.field === 'string' && f.field.startsWith('segment.')) ids.add(f.field.slice(8).toLowerCase());
      if (g.conditions) todo.push(g.conditions);
    }
  }
  return [...ids];
}
