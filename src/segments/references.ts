import { sql } from 'drizzle-orm';
import type { ConditionTree } from '../db/schema.js';
import { AppError } from '../http/errors.js';
import type { Db } from '../db/pool.js';
import { compileCondition } from './compile.js';
import { referencedSegmentIds } from './reference-limits.js';

// Reads through drizzle's query builder too, so a bare SqlRunner is not enough.
type DbOrTx = Pick<Db, 'select' | 'execute'>;

/**
 * What a change to a segment's condition does to the trees that name it (issue "Hardening" 2): a
 * segment S0 within the limits on its own can push a segment S1 that names it (or S2 naming S1, or a
 * campaign audience naming any of them) past the reference limits. Saves of segment conditions are
 * serialised per project ({@link lockSegmentReferences}) so two saves cannot each pass on the other's
 * old version.
 */

/** Serialises saves of segment conditions in a project until the transaction ends. */
export async function lockSegmentReferences(tx: DbOrTx, projectId: string): Promise<void> {
  await tx.execute(
    sql`select pg_advisory_xact_lock(hashtext('pigeon:segment-references'), hashtext(${projectId}::text))`,
  );
}

const LIMIT_CODES = new Set(['segment_too_large', 'segment_too_deep']);

/** The reference-limit error of a compile, or null when it compiles or fails for another reason. */
async function limitError(run: () => Promise<unknown>): Promise<AppError | null> {
  try {
    await run();
    return null;
  } catch (err) {
    if (err instanceof AppError && err.errors?.some((e) => LIMIT_CODES.has(e.code))) return err;
    if (err instanceof AppError && err.status < 500) return null; // broken for another reason, not by this change
    throw err;
  }
}

type Tree = { id: string; name: string; condition: ConditionTree };

/**
 * Checks that saving `condition` as the condition of segment `segmentId` keeps every tree that names
 * it, directly or through other segments, within the reference limits: the DYNAMIC segments of the
 * project and the audiences of its DRAFT and SCHEDULED FILTERED campaigns. A tree that is already past
 * a limit with the stored conditions is not this change's doing and does not block it.
 * Call it in the transaction that saves, after {@link lockSegmentReferences}.
 * @throws AppError 422 VALIDATION_ERROR `{field: 'condition', code: 'segment_too_large' |
 *   'segment_too_deep'}` naming the tree that would go over and the path to this segment.
 */
export async function checkReferencingTrees(
  tx: DbOrTx,
  projectId: string,
  segmentId: string,
  condition: ConditionTree,
  now: Date,
): Promise<void> {
  const key = segmentId.toLowerCase();
  // Only rows that mention a segment reference at all; a project has few of those.
  const segs = (
    await tx.execute<Tree>(sql`select id::text, name, condition from segments
    where project_id = ${projectId} and type = 'DYNAMIC' and condition::text like '%"segment.%' order by id`)
  ).rows;
  const names = new Map<string, string[]>(segs.map((s) => [s.id, referencedSegmentIds(s.condition)]));
  // Segments that reach `key` through their references, found by walking the references backwards.
  const reaching = new Set<string>([key]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [id, refs] of names) {
      if (!reaching.has(id) && refs.some((r) => reaching.has(r))) {
        reaching.add(id);
        grew = true;
      }
    }
  }
  reaching.delete(key);
  const campaigns = (
    await tx.execute<Tree>(sql`select id::text, name, audience_condition as condition from campaigns
    where project_id = ${projectId} and status in ('DRAFT', 'SCHEDULED') and audience_type = 'FILTERED'
      and audience_condition::text like '%"segment.%' order by id`)
  ).rows.filter((c) => referencedSegmentIds(c.condition).some((r) => r === key || reaching.has(r)));

  const overrides = new Map([[key, condition]]);
  const trees: Array<Tree & { what: string; stack: string[] }> = [
    ...segs.filter((s) => reaching.has(s.id)).map((s) => ({ ...s, what: 'segment', stack: [s.id] })),
    ...campaigns.map((c) => ({ ...c, what: 'campaign audience of', stack: [] })),
  ];
  for (const t of trees) {
    const compile = (o?: Map<string, ConditionTree>) => () =>
      compileCondition(t.condition, { db: tx, projectId, now, segmentStack: t.stack, overrides: o });
    const after = await limitError(compile(overrides));
    if (!after || (await limitError(compile()))) continue;
    const inner = after.errors![0];
    const message = `This condition would take ${t.what} "${t.name}" (${t.id}) past a limit: ${inner.message}`;
    throw new AppError('VALIDATION_ERROR', `Invalid condition: ${message}`, {
      errors: [{ field: 'condition', message, code: inner.code }],
      details: {
        ...after.details,
        referencedBy: { type: t.what === 'segment' ? 'segment' : 'campaign', id: t.id, name: t.name },
      },
    });
  }
}
