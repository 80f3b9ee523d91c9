import { getTableColumns, is, SQL, sql } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import { executePrepared } from '../../db/prepared.js';
import { emails } from '../../db/schema.js';
import { addJobCall, addJobsSelect, jobSpecRow, jobSpecSql } from '../../worker/graphile.js';
import { jobSpec, type JobDefinition } from '../../worker/jobs.js';
import { marketingEligibleSql, MARKETING_SKIPPED } from '../eligibility.js';
import {
  DELIVERY_MAX_ATTEMPTS,
  SEND_BATCH_SIZE,
  sendBatchJob,
  sendEmailJob,
  TRANSACTIONAL_PRIORITY,
} from '../emails.jobs.js';
import type { NewEmailValues } from '../emails.repo.js';
import type { Tx } from '../../db/tx.js';

/**
 * The one way email is queued. Every mail Pigeon sends starts as an `emails` row written by
 * {@link queueEmailsSql}: `/v1/send` (one recipient or up to 1,000), campaign fan-out (1,000 contacts a
 * statement), a workflow's SEND_EMAIL step, and the campaign and template test sends. The statement
 * is `INSERT INTO emails (…) SELECT … [FROM …] RETURNING …`, so one row and a set of rows are the same
 * statement, and the rows' delivery jobs are added in the same transaction as the rows (here, or by
 * the caller with {@link batchJobSpecs}, {@link ratedJobSpecs} or {@link queueEmailDeferred}'s spec):
 * a committed PENDING row always has a job, and a rolled-back one never has.
 *
 * Who may receive marketing mail is decided by eligibility.ts (`marketingEligibleSql`), applied here
 * per row with `marketing`; the sender's domain is checked by the callers before they queue
 * (domains/verified.ts), since a refused sender must refuse the whole request.
 */

const COLUMNS = getTableColumns(emails) as Record<string, PgColumn>;
/** Column keys in table order: the insert's column list follows it, so a caller's text never varies. */
const KEYS = Object.keys(COLUMNS) as Array<keyof NewEmailValues>;

/** What {@link queueEmailsSql} writes. */
export interface QueueEmails {
  /**
   * The row's values: JavaScript values (sent as parameters typed by their column) or SQL
   * expressions, which with `from` may name its columns (e.g. `` sql`b.email` ``). A column left out
   * takes its default (`status` PENDING, `headers` and `variables` `{}`).
   */
  values: NewEmailValues;
  /** A FROM item (joins allowed) giving one row per email to queue; absent, the statement queues one. */
  from?: SQL;
  /**
   * Apply the marketing rule per row at `now`: a row whose contact may not receive marketing mail is
   * written SUPPRESSED with error {@link MARKETING_SKIPPED} and gets no job. `from` must expose the
   * recipient's contacts row as `contact`.
   */
  marketing?: { now: Date; topicId?: string | null };
  /**
   * `campaign`: a (campaign, contact) pair that already has a row inserts nothing (the unique index
   * behind a campaign's exactly-once), so a replayed fan-out batch is harmless.
   */
  onConflict?: 'campaign';
  /**
   * `each`: every PENDING row gets its own `emails:send` job at {@link TRANSACTIONAL_PRIORITY}, added by
   * the RETURNING clause (so the jobs are added wherever the insert runs, also as a data-modifying CTE
   * of a caller's statement). `caller`: the caller adds them in the same transaction, from the
   * returned `id` and `status` (a bulk schedule: {@link batchJobSpecs}, {@link ratedJobSpecs}).
   */
  jobs: 'each' | 'caller';
  /** Columns returned besides `id` and `status` (a campaign's `due_at`, campaigns/delivery.ts). */
  returning?: string[];
}

/**
 * The INSERT of {@link QueueEmails}, returning `id` and `status` of each inserted row (and `job`, the
 * added job's id or null, with `jobs: 'each'`). Usable alone or as a data-modifying CTE. Its text
 * depends only on which columns are set and how (never on the values), so it can run prepared.
 */
export function queueEmailsSql(q: QueueEmails): SQL {
  const values: Record<string, unknown> = { ...q.values };
  let from = q.from;
  if (q.marketing) {
    if (!from) throw new Error('queueEmailsSql: the marketing rule needs a FROM item exposing `contact`');
    // One evaluation of the rule per row (a lateral column), read by both status and error.
    const topic = q.marketing.topicId ? sql`${q.marketing.topicId}::uuid` : undefined;
    from = sql`${q.from} cross join lateral (select ${marketingEligibleSql('contact', q.marketing.now, undefined, topic)} as eligible) m`;
    values.status = sql`case when m.eligible then 'PENDING' else 'SUPPRESSED' end`;
    values.error = sql`case when m.eligible then null else ${MARKETING_SKIPPED}::text end`;
  }
  const names: Array<SQL | ReturnType<typeof sql.identifier>> = [];
  const exprs: SQL[] = [];
  for (const key of KEYS) {
    const v = values[key];
    if (v === undefined) continue;
    const col = COLUMNS[key];
    names.push(sql.identifier(col.name));
    exprs.push(is(v, SQL) ? v : sql`${sql.param(v, col)}::${sql.raw(col.getSQLType())}`);
  }
  const conflict =
    q.onConflict === 'campaign'
      ? sql` on conflict (campaign_id, contact_id) where campaign_id is not null do nothing`
      : sql``;
  const job =
    q.jobs === 'each'
      ? sql`, case when status = 'PENDING' then (${addJobCall(sendEmailJob, sql`json_build_object('emailId', id)`, { priority: TRANSACTIONAL_PRIORITY })}).id end as job`
      : sql``;
  return sql`insert into emails (${sql.join(names, sql`, `)}) select ${sql.join(exprs, sql`, `)}${from ? sql` from ${from}` : sql``}${conflict}
    returning id, status${job}${sql.raw((q.returning ?? []).map((c) => `, ${c}`).join(''))}`;
}

/**
 * Queues the emails `q` describes in `tx`, in one prepared statement. With `jobs: 'each'` the jobs of
 * the PENDING rows are added by one Graphile `add_jobs` call ({@link queueEmailsCtes}) rather than an
 * `add_job` per row: about 0.3 ms of server time saved per recipient of a send to many.
 * @returns the rows inserted.
 */
export async function queueEmails(tx: Tx, q: QueueEmails): Promise<Array<{ id: string; status: string }>> {
  const { ctes, jobs } =
    q.jobs === 'each' ? queueEmailsCtes('e', q) : { ctes: sql`e as (${queueEmailsSql(q)})`, jobs: sql`0` };
  const r = await executePrepared<{ id: string; status: string }>(
    tx,
    sql`with ${ctes} select id, status, ${jobs} as jobs from e`,
  );
  return r.rows.map(({ id, status }) => ({ id, status }));
}

/**
 * The emails `q` describes with their `emails:send` jobs, as two WITH items of a caller's statement:
 * `name` (the insert, returning `id` and `status` of each row) and `name_jobs` (the jobs of its
 * PENDING rows at {@link TRANSACTIONAL_PRIORITY}, added by ONE Graphile `add_jobs` call,
 * worker/graphile.ts `addJobsSelect`). `jobs` counts the jobs added: the statement must read it,
 * since PostgreSQL skips a SELECT CTE that nothing reads (the insert, data-modifying, always runs).
 * `/v1/send` uses it for a request's recipients and for a group-committed batch of one-recipient sends.
 */
export function queueEmailsCtes(name: string, q: Omit<QueueEmails, 'jobs'>): { ctes: SQL; jobs: SQL } {
  const rows = sql.identifier(name);
  const jobs = sql.identifier(`${name}_jobs`);
  const specs = sql`select ${transactionalJob(sql`e.id`)} from ${rows} e where e.status = 'PENDING'`;
  return {
    ctes: sql`${rows} as (${queueEmailsSql({ ...q, jobs: 'caller' })}), ${jobs} as (${addJobsSelect(specs)})`,
    jobs: sql`(select count(*)::int from ${jobs})`,
  };
}

/** The `emails:send` job of the email `emailId` (SQL), at {@link TRANSACTIONAL_PRIORITY}, as a job_spec row. */
const transactionalJob = (emailId: SQL) =>
  jobSpecRow(sendEmailJob as JobDefinition<unknown>, sql`json_build_object('emailId', ${emailId})`, {
    priority: TRANSACTIONAL_PRIORITY,
  });

/**
 * Queues ONE email with its `emails:send` job at {@link TRANSACTIONAL_PRIORITY} in `tx`: a mail someone
 * waits for (a test send), so it goes ahead of bulk batches. A SUPPRESSED row gets no job.
 */
export async function queueEmail(tx: Tx, row: NewEmailValues): Promise<void> {
  await queueEmails(tx, { values: row, jobs: 'each' });
}

/**
 * {@link queueEmail} as SQL, for a caller's statement to run as a data-modifying CTE (`/v1/send`'s
 * one-statement path puts it inside the contact upsert). `row` values may be SQL expressions, such as
 * the id of a contact another CTE of the statement upserts.
 */
export function queueEmailSql(row: NewEmailValues): SQL {
  return queueEmailsSql({ values: row, jobs: 'each' });
}

/**
 * One email's insert, for a caller that adds the jobs of its statement together (one Graphile call,
 * worker/graphile.ts `addJobsSelect`; a workflow step): the insert, and the `emails:send` job spec of a
 * PENDING row (null for a SUPPRESSED one), which the caller must add in the same transaction.
 */
export function queueEmailDeferred(row: NewEmailValues & { id: string }): { insert: SQL; job: SQL | null } {
  return {
    insert: queueEmailsSql({ values: row, jobs: 'caller' }),
    job:
      (row.status ?? 'PENDING') === 'PENDING'
        ? jobSpec(sendEmailJob, { emailId: row.id }, { priority: TRANSACTIONAL_PRIORITY })
        : null,
  };
}

/**
 * The bulk schedule of a campaign's emails (a SELECT of Graphile `job_spec` rows over the
 * inserted rows `inserted`, a CTE of {@link queueEmailsSql}): one `emails:send-batch` job per
 * {@link SEND_BATCH_SIZE} rows in id order, the k-th batch of the statement at priority
 * `priorityBase + k` (capped at `maxPriority`), so the campaign that has sent fewer batches goes first.
 */
export function batchJobSpecs(inserted: string, priorityBase: SQL, maxPriority: number): SQL {
  const ins = sql.raw(inserted);
  const spec = jobSpecSql(sendBatchJob.name, sql`json_build_object('emailIds', array_agg(g.id order by g.id))`, {
    maxAttempts: DELIVERY_MAX_ATTEMPTS,
    priority: sql`least(${maxPriority}, ${priorityBase} + g.grp)`,
  });
  return sql`select ${spec}
    from (select i.id, (row_number() over (order by i.id) - 1) / ${SEND_BATCH_SIZE} as grp from ${ins} i where i.status = 'PENDING') g
    group by g.grp`;
}

/**
 * A throttled schedule (`EMAIL_RATE_LIMIT_PER_SECOND`): one `emails:send` job per inserted PENDING
 * row of `inserted`, their `run_at` spread at `perSecond` behind `queuedAhead` mails already waiting,
 * so the queue drains at that rate whatever the number of workers.
 */
export function ratedJobSpecs(inserted: string, queuedAhead: number, perSecond: number): SQL {
  const ins = sql.raw(inserted);
  const runAt = sql`now() + ((${queuedAhead}::bigint + row_number() over () - 1) / ${perSecond}::float8) * interval '1 second'`;
  const spec = jobSpecSql(sendEmailJob.name, sql`json_build_object('emailId', i.id)`, {
    runAt,
    maxAttempts: DELIVERY_MAX_ATTEMPTS,
  });
  return sql`select ${spec}
    from ${ins} i where i.status = 'PENDING'`;
}
