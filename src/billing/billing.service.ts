import { eq, sql } from 'drizzle-orm';
import type { Db } from '../db/pool.js';
import { projects, type BillingLimits } from '../db/schema.js';
import { AppError, notFound } from '../http/errors.js';

/** A billed source of mail, each with its own monthly limit. */
export type BillingSource = keyof BillingLimits;

const SOURCE_TYPES: Record<BillingSource, string> = {
  transactional: 'TRANSACTIONAL',
  campaigns: 'CAMPAIGN',
  workflows: 'WORKFLOW',
};

/** First instant of the UTC calendar month of `now`: the billing period start. */
export const periodStart = (now: Date): Date => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));

type Reader = Pick<Db, 'select' | 'execute'>;

export async function getLimits(db: Reader, projectId: string): Promise<BillingLimits> {
  const [p] = await db.select({ limits: projects.billingLimits }).from(projects).where(eq(projects.id, projectId));
  if (!p) throw notFound('Project');
  return p.limits;
}

export async function setLimits(db: Db, projectId: string, limits: BillingLimits, now: Date): Promise<BillingLimits> {
  const [p] = await db
    .update(projects)
    .set({ billingLimits: limits, updatedAt: now })
    .where(eq(projects.id, projectId))
    .returning({ limits: projects.billingLimits });
  if (!p) throw notFound('Project');
  return p.limits;
}

/**
 * Emails of this billing period per source, in one query over `emails` (test sends are not billed).
 * @returns `{periodStart, transactional, campaigns, workflows}`.
 */
export async function consumption(db: Reader, projectId: string, now: Date) {
  const start = periodStart(now);
  const r = await db.execute<{ transactional: number; campaigns: number; workflows: number }>(sql`select
      count(*) filter (where source_type = 'TRANSACTIONAL') as transactional,
      count(*) filter (where source_type = 'CAMPAIGN') as campaigns,
      count(*) filter (where source_type = 'WORKFLOW') as workflows
    from emails where project_id = ${projectId} and created_at >= ${start.toISOString()}::timestamptz
      and status <> 'SUPPRESSED'`);
  const row = r.rows[0];
  return {
    periodStart: start.toISOString(),
    transactional: row.transactional,
    campaigns: row.campaigns,
    workflows: row.workflows,
  };
}

/**
 * Refuses work that would take `source` past its monthly cap (calendar month, UTC); a null cap means
 * no cap. Call it in the transaction that then creates the `adding` emails: with a cap, it takes a
 * transaction lock per project and source first, so concurrent requests count one after the other and
 * cannot pass the cap together by a few.
 * `limits`, when the caller already read the project's caps in an earlier statement (`/v1/send` reads
 * them with its sender check), saves the read; the count and its lock still run here.
 * @throws AppError 429 BILLING_LIMIT_EXCEEDED with `details: {source, limit, used, requested, periodStart}`.
 */
export async function assertWithinLimit(
  db: Reader,
  projectId: string,
  source: BillingSource,
  adding: number,
  now: Date,
  limits?: BillingLimits,
): Promise<void> {
  limits ??= await getLimits(db, projectId);
  const limit = limits[source];
  if (limit === null || limit === undefined) return;
  await db.execute(sql`select pg_advisory_xact_lock(hashtext(${`pigeon:billing:${projectId}:${source}`}))`);
  const start = periodStart(now);
  const r = await db.execute<{ used: number }>(sql`select count(*) as used from emails
    where project_id = ${projectId} and source_type = ${SOURCE_TYPES[source]} and status <> 'SUPPRESSED'
      and created_at >= ${start.toISOString()}::timestamptz`);
  const used = r.rows[0].used;
  if (used + adding > limit) {
    throw new AppError('BILLING_LIMIT_EXCEEDED', `Monthly ${source} limit of ${limit} emails reached (${used} used)`, {
      details: { source, limit, used, requested: adding, periodStart: start.toISOString() },
      suggestion: 'Raise the limit with PUT /users/@me/projects/:id/billing-limits, or wait for the next month.',
    });
  }
}
