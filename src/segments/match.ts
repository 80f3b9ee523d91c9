import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/pool.js';
import type { Deps } from '../deps.js';
import { AppError } from '../http/errors.js';
import { compileCondition, compileStaged, type CompileContext, type StagedPredicate } from './compile.js';

/* Running a compiled condition (compile.ts) against the project's contacts: the staged query, counts,
   one contact's match and a segment's audience. */

/**
 * `select <columns> from contacts c where c.project_id = $p and <first and later>`, written so that
 * `later` runs only on the rows that pass `first`: those rows come from a subquery ending in
 * `OFFSET 0`, which PostgreSQL never flattens into the outer query, so it cannot push the per-row
 * reads of `later` down into the scan below the joins of `first` (an `event.<name>` filter's semi
 * join, say). `columns` may read `c.id` and `c.data` (and aggregates of them), which is all `later` reads.
 *
 * Why: a data comparison is the costly part of a row (find the key, check its type, cast), and a
 * segment like "plan is pro, age over 30, bought in the last 30 days" otherwise reads the age of every
 * pro contact to keep the few that also bought: bench/segments.ts measures the fenced count against
 * the unfenced one.
 */
export function matchingContacts(projectId: string, p: StagedPredicate, columns: SQL): SQL {
  if (!p.later) return sql`select ${columns} from contacts c where c.project_id = ${projectId} and ${p.first}`;
  // Only the columns `later` and the callers read: a parallel plan hands every row of the subquery
  // from its workers to the leader.
  return sql`select ${columns} from (select c.id, c.data from contacts c where c.project_id = ${projectId} and ${p.first} offset 0) c where ${p.later}`;
}

/** A database handle (pool or transaction) and the clock. */
export interface MatchDeps {
  db: Pick<Db, 'select' | 'execute'>;
  clock: Deps['clock'];
}

/**
 * The ids of the project's contacts that match `tree`, as a subquery (`select c.id …`, staged as
 * {@link matchingContacts}): `segmentAudience` and the tests' matcher. @throws AppError 422 as {@link compileCondition}.
 */
export async function contactsMatching(
  deps: MatchDeps,
  projectId: string,
  tree: unknown,
  opts: Partial<CompileContext> = {},
): Promise<SQL> {
  const staged = await compileStaged(tree, { db: deps.db, projectId, now: deps.clock.now(), ...opts });
  return matchingContacts(projectId, staged, sql`c.id`);
}

/** Number of contacts of the project that match `tree`, in one query. @throws AppError 422. */
export async function countMatching(
  deps: MatchDeps,
  projectId: string,
  tree: unknown,
  opts: Partial<CompileContext> = {},
): Promise<number> {
  const staged = await compileStaged(tree, { db: deps.db, projectId, now: deps.clock.now(), ...opts });
  const r = await deps.db.execute<{ n: number }>(matchingContacts(projectId, staged, sql`count(*)::int as n`));
  return r.rows[0].n;
}

/**
 * Whether one contact matches `tree` (workflow CONDITION steps: wrap the step's `{field, operator,
 * value, unit?}` as `{logic: 'AND', groups: [{filters: [filter]}]}` and pass `prefix: 'config'`).
 * A contact of another project never matches. @throws AppError 422.
 */
export async function contactMatches(
  deps: MatchDeps,
  projectId: string,
  contactId: string,
  tree: unknown,
  opts: Partial<CompileContext> = {},
): Promise<boolean> {
  const predicate = await compileCondition(tree, { db: deps.db, projectId, now: deps.clock.now(), ...opts });
  const r = await deps.db.execute<{ ok: boolean }>(sql`select exists (select 1 from contacts c
    where c.id = ${contactId} and c.project_id = ${projectId} and ${predicate}) as ok`);
  return r.rows[0].ok;
}

/**
 * `select c.id …` of the members of segment `segmentId` (campaign audience `SEGMENT`): a STATIC
 * segment's member list, a DYNAMIC segment's condition evaluated live.
 * @throws AppError 422 `{field: 'segmentId', code: 'segment_not_found'}` for an unknown id or a
 *   segment of another project.
 */
export async function segmentAudience(deps: MatchDeps, projectId: string, segmentId: string): Promise<SQL> {
  try {
    return await contactsMatching(deps, projectId, {
      logic: 'AND',
      groups: [{ filters: [{ field: `segment.${segmentId}`, operator: 'memberOfSegment' }] }],
    });
  } catch (err) {
    if (err instanceof AppError && err.errors?.[0]?.code === 'segment_not_found') {
      throw new AppError('VALIDATION_ERROR', 'No such segment in this project', {
        errors: [{ field: 'segmentId', message: 'No such segment in this project', code: 'segment_not_found' }],
      });
    }
    throw err;
  }
}
