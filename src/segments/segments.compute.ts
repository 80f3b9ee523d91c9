import { sqlUuidV7 } from '../db/uuid-sql.js';
import { sql, type SQL } from 'drizzle-orm';
import type { ConditionTree } from '../db/schema.js';
import type { Deps } from '../deps.js';
import { notFound } from '../http/errors.js';
import { workflowDispatchJobs } from '../events/emit.js';
import { webhookDeliveries } from '../webhook-endpoints/fanout.js';
import { compileStaged, type StagedPredicate } from './compile.js';
import { countMatching, matchingContacts } from './match.js';
import type { Transaction as Tx } from '../db/tx.js';
import { relation } from '../db/relation.js';

/**
 * Slug of a segment name for `segment.<slug>.entry|exit`: lower-case, trim, drop
 * characters other than letters, digits, `_`, `-` and spaces, spaces to `-`, collapse repeated `-`,
 * strip leading and trailing `-`. A name with nothing left (only symbols) falls back to `fallback`
 * (the segment id) so the event name is never `segment..entry`.
 */
export function segmentSlug(name: string, fallback: string): string {
  const slug = name
    .toLowerCase()
    .trim()
    .replace(/[^\p{L}\p{N}_\s-]/gu, '')
    .replace(/\s+/g, '-')
    .replace(/-+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug || fallback;
}

export interface ComputeResult {
  entered: number;
  exited: number;
  memberCount: number;
}

/**
 * The one statement of a tracked compute (exported for bench/segments.ts, which EXPLAINs it): with
 * `predicate` compiled (staged) for the segment, it moves the difference into `segment_members` and writes an
 * event per move; answers one row `{entered, exited, jobs}`.
 */
export function membershipStatement(m: {
  projectId: string;
  segmentId: string;
  segmentName: string;
  predicate: StagedPredicate;
  now: Date;
}): SQL {
  const slug = segmentSlug(m.segmentName, m.segmentId);
  const data = JSON.stringify({ segmentId: m.segmentId, segmentName: m.segmentName });
  const nowIso = m.now.toISOString();

  const entryName = `segment.${slug}.entry`;
  const exitName = `segment.${slug}.exit`;
  // One statement, one snapshot, one evaluation of the condition (materialized): members that no
  // longer match exit, matches that are not members enter, each move is one event. The events queue
  // their workflow dispatch jobs by the same rule as `recordEvent` (segment entry/exit events can be
  // workflow triggers).
  return sql`
      with matched as materialized (${matchingContacts(m.projectId, m.predicate, sql`c.id`)}),
      exits as (
        delete from segment_members sm
        where sm.segment_id = ${m.segmentId} and not exists (select 1 from matched m where m.id = sm.contact_id)
        returning sm.contact_id),
      entries as (
        insert into segment_members (segment_id, contact_id, project_id, created_at)
        select ${m.segmentId}, m.id, ${m.projectId}, ${nowIso}::timestamptz from matched m
        where not exists (select 1 from segment_members sm where sm.segment_id = ${m.segmentId} and sm.contact_id = m.id)
        on conflict (segment_id, contact_id) do nothing
        returning contact_id),
      moves as (
        select contact_id, ${exitName}::text as name from exits
        union all select contact_id, ${entryName}::text from entries),
      ev as (
        insert into events (id, project_id, contact_id, name, data, created_at)
        select ${sqlUuidV7(m.now.getTime())}, ${m.projectId}, moves.contact_id, moves.name, ${data}::jsonb, ${nowIso}::timestamptz from moves
        returning id, contact_id, name, data, created_at),
      webhooks as (${webhookDeliveries(relation(sql`ev`), m.projectId)}),
      jobs as (${workflowDispatchJobs(relation(sql`ev`), m.projectId)})
      select (select count(*) from entries)::int as entered, (select count(*) from exits)::int as exited,
        (select count(*) from jobs)::int as jobs`;
}

type LockedSegment = {
  id: string;
  project_id: string;
  name: string;
  type: 'DYNAMIC' | 'STATIC';
  condition: ConditionTree | null;
  track_membership: boolean;
};

/** Takes the segment row `FOR UPDATE`: computes of one segment run one after the other. */
async function lockSegment(tx: Tx, projectId: string, segmentId: string): Promise<LockedSegment> {
  const r = await tx.execute<LockedSegment>(sql`select id, project_id, name, type, condition, track_membership
    from segments where id = ${segmentId} and project_id = ${projectId} for update`);
  if (!r.rows[0]) throw notFound('Segment');
  return r.rows[0];
}

/** Options of a compute or count refresh. */
export interface ComputeOptions {
  /**
   * PostgreSQL `statement_timeout` of its transaction, in milliseconds (the worker passes
   * `SEGMENT_COMPUTE_TIMEOUT_MS`; the worker's connections have none of their own). Unset: the
   * connection's own (the API's is `API_STATEMENT_TIMEOUT_MS`).
   */
  statementTimeoutMs?: number;
}

async function limitStatements(tx: Tx, opts: ComputeOptions): Promise<void> {
  const ms = opts.statementTimeoutMs;
  if (ms && Number.isSafeInteger(ms) && ms > 0) await tx.execute(sql.raw(`set local statement_timeout = ${ms}`));
}

/**
 * Recomputes a tracked DYNAMIC segment (`POST /segments/:id/compute`, the cron): contacts that
 * match and are not in `segment_members` enter, members that no longer match exit; each change is
 * one row in `segment_members` and one `segment.<slug>.entry|exit` event, written set-based (one
 * statement for both, the condition evaluated once) in a transaction that holds the segment row lock, so
 * repeated or racing computes emit each change exactly once (the second sees the first's rows).
 * The events are inserted with `INSERT … SELECT` (ids: UUIDv7 made in SQL), not through
 * `recordEvent`, because a compute may move millions of contacts; they queue the same
 * `workflows:dispatch` jobs `recordEvent` would.
 * A STATIC or untracked segment only has its count refreshed.
 * @throws AppError 404 (no such segment in the project), 422 (its stored condition no longer compiles,
 *   e.g. it names a deleted segment).
 */
export async function computeSegment(
  deps: Pick<Deps, 'db' | 'clock'>,
  projectId: string,
  segmentId: string,
  opts: ComputeOptions = {},
): Promise<ComputeResult> {
  return deps.db.transaction(async (tx) => {
    await limitStatements(tx, opts);
    const seg = await lockSegment(tx, projectId, segmentId);
    const now = deps.clock.now();
    if (seg.type === 'STATIC' || !seg.track_membership) {
      const memberCount = await countAndStore(tx, deps, seg, now);
      return { entered: 0, exited: 0, memberCount };
    }
    const predicate = await compileStaged(seg.condition, { db: tx, projectId, now, segmentStack: [seg.id] });
    const moved = await tx.execute<{ entered: number; exited: number }>(
      membershipStatement({ projectId, segmentId: seg.id, segmentName: seg.name, predicate, now }),
    );
    const nowIso = now.toISOString();
    const r = await tx.execute<{ n: number }>(sql`
      update segments set member_count = (select count(*) from segment_members where segment_id = ${seg.id}),
        computed_at = ${nowIso}::timestamptz, compute_error = null
      where id = ${seg.id} returning member_count as n`);
    return { entered: moved.rows[0].entered, exited: moved.rows[0].exited, memberCount: r.rows[0].n };
  });
}

async function countAndStore(tx: Tx, deps: Pick<Deps, 'clock'>, seg: LockedSegment, now: Date): Promise<number> {
  const n =
    seg.type === 'STATIC'
      ? (
          await tx.execute<{ n: number }>(
            sql`select count(*)::int as n from segment_members where segment_id = ${seg.id}`,
          )
        ).rows[0].n
      : await countMatching({ db: tx, clock: deps.clock }, seg.project_id, seg.condition, {
          segmentStack: [seg.id],
          now,
        });
  await tx.execute(sql`update segments set member_count = ${n}, computed_at = ${now.toISOString()}::timestamptz, compute_error = null
    where id = ${seg.id}`);
  return n;
}

/**
 * Records why a background compute skipped segment `segmentId` (its stored condition no longer
 * compiles: it names a deleted segment, or its references go past the limits); shown as
 * `computeError` until a compute succeeds.
 */
export async function recordComputeError(deps: Pick<Deps, 'db'>, segmentId: string, reason: string): Promise<void> {
  await deps.db.execute(sql`update segments set compute_error = ${reason.slice(0, 2000)} where id = ${segmentId}`);
}

/**
 * `POST /segments/:id/refresh`: recounts the members and stores `member_count`; no events,
 * no membership writes. STATIC: rows of `segment_members`; DYNAMIC: a live count of its condition.
 * @throws AppError 404, 422 as {@link computeSegment}.
 */
export async function refreshSegmentCount(
  deps: Pick<Deps, 'db' | 'clock'>,
  projectId: string,
  segmentId: string,
  opts: ComputeOptions = {},
): Promise<number> {
  return deps.db.transaction(async (tx) => {
    await limitStatements(tx, opts);
    const seg = await lockSegment(tx, projectId, segmentId);
    return countAndStore(tx, deps, seg, deps.clock.now());
  });
}
