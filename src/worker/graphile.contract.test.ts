import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { backdateLock, deleteJobsOf, JOBS, jobsDueNow, setAttempts } from '../../test/graphile-test.js';
import { createHarness, type Harness } from '../../test/harness.js';

import {
  ADD_JOBS_FUNCTION,
  addJobCall,
  addJobsCall,
  addJobsSelect,
  addJobSql,
  countFailedAttempt,
  deleteJobs,
  forceUnlockWorkers,
  jobSpecRow,
  jobSpecSql,
  jobSpecsOf,
  jobStatsByTask,
  lockWaitingJobs,
  planAddJobsPerCall,
  removeJob,
  removeJobs,
  staleLockOwners,
} from './graphile.js';
import { defineJob } from './jobs.js';

/**
 * What Pigeon relies on in Graphile Worker's schema (worker/graphile.ts for the service,
 * test/graphile-test.ts for the tests), checked against the schema Graphile's migrations install, and
 * each helper run once. After a Graphile upgrade this file fails first and says what moved; fix the
 * helpers (and the expectations here) before anything else.
 */

const TIMESTAMPTZ = 'timestamp with time zone';

/** Columns of Graphile's tables the helpers name, with their types. Private tables: not Graphile's API. */
const TABLES: Record<string, Record<string, string>> = {
  _private_jobs: {
    id: 'bigint',
    job_queue_id: 'integer',
    task_id: 'integer',
    payload: 'json',
    priority: 'smallint',
    run_at: TIMESTAMPTZ,
    attempts: 'smallint',
    max_attempts: 'smallint',
    last_error: 'text',
    created_at: TIMESTAMPTZ,
    key: 'text',
    locked_at: TIMESTAMPTZ,
    locked_by: 'text',
    is_available: 'boolean',
  },
  _private_tasks: { id: 'integer', identifier: 'text' },
  _private_job_queues: { id: 'integer', queue_name: 'text', locked_at: TIMESTAMPTZ, locked_by: 'text' },
};

/** The fields of `job_spec` in order: jobSpecSql builds it with a positional row constructor. */
const JOB_SPEC = [
  ['identifier', 'text'],
  ['payload', 'json'],
  ['queue_name', 'text'],
  ['run_at', TIMESTAMPTZ],
  ['max_attempts', 'smallint'],
  ['job_key', 'text'],
  ['priority', 'smallint'],
  ['flags', 'text[]'],
];

/**
 * Functions by signature, with the argument names Pigeon passes by name, how many trailing arguments
 * must have defaults (addJobSql leaves them out) and the result type (Pigeon reads `.id` of it).
 */
const FUNCTIONS = [
  {
    signature:
      'graphile_worker.add_job(text, json, text, timestamp with time zone, integer, text, integer, text[], text)',
    names: ['identifier', 'payload', 'queue_name', 'run_at', 'max_attempts', 'job_key', 'priority'],
    defaults: 7,
    result: 'graphile_worker._private_jobs',
  },
  { signature: ADD_JOBS_FUNCTION, names: [], defaults: 1, result: 'SETOF graphile_worker._private_jobs' },
  { signature: 'graphile_worker.remove_job(text)', names: [], defaults: 0, result: 'graphile_worker._private_jobs' },
  { signature: 'graphile_worker.force_unlock_workers(text[])', names: [], defaults: 0, result: 'void' },
];

/** Columns of test/graphile-test.ts `JOBS`, which tests select by name. */
const JOBS_COLUMNS = [
  'id',
  'queue_name',
  'task_identifier',
  'payload',
  'priority',
  'run_at',
  'attempts',
  'max_attempts',
  'last_error',
  'created_at',
  'key',
  'locked_at',
  'locked_by',
  'is_available',
  'xmin',
];

describe('Graphile Worker contract', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(() => h?.close());

  it("has the tables, columns, type and functions Pigeon's SQL names", async () => {
    const columns = await h.sql<{ table_name: string; column_name: string; type: string }>(
      `
      select c.table_name, c.column_name, format_type(a.atttypid, a.atttypmod) as type
      from information_schema.columns c
        join pg_attribute a on a.attrelid = format('%I.%I', c.table_schema, c.table_name)::regclass and a.attname = c.column_name
      where c.table_schema = 'graphile_worker' and c.table_name = any($1)`,
      [Object.keys(TABLES)],
    );
    const found = (table: string) =>
      Object.fromEntries(columns.filter((c) => c.table_name === table).map((c) => [c.column_name, c.type]));
    for (const [table, expected] of Object.entries(TABLES)) {
      const actual = found(table);
      const wrong = Object.entries(expected)
        .filter(([name, type]) => actual[name] !== type)
        .map(
          ([name, type]) =>
            `graphile_worker.${table}.${name}: expected ${type}, found ${actual[name] ?? 'no such column'}`,
        );
      expect(wrong, `graphile_worker.${table}`).toEqual([]);
    }

    const spec = await h.sql<{ name: string; type: string }>(`
      select a.attname as name, format_type(a.atttypid, a.atttypmod) as type from pg_attribute a
      where a.attrelid = (select typrelid from pg_type where oid = to_regtype('graphile_worker.job_spec'))
        and a.attnum > 0 and not a.attisdropped order by a.attnum`);
    expect(
      spec.map((f) => [f.name, f.type]),
      'graphile_worker.job_spec fields, in order',
    ).toEqual(JOB_SPEC);

    for (const f of FUNCTIONS) {
      const [row] = await h.sql<{ names: string[] | null; defaults: number; result: string }>(
        `
        select p.proargnames as names, p.pronargdefaults as defaults, pg_get_function_result(p.oid) as result
        from pg_proc p where p.oid = to_regprocedure($1)`,
        [f.signature],
      );
      expect(row, `function ${f.signature}`).toBeDefined();
      expect((row!.names ?? []).slice(0, f.names.length), `argument names of ${f.signature}`).toEqual(f.names);
      expect(row!.defaults, `arguments with defaults of ${f.signature}`).toBeGreaterThanOrEqual(f.defaults);
      expect(row!.result, `result of ${f.signature}`).toBe(f.result);
    }

    const jobsColumns = await h.deps.pool.query(`select * from ${JOBS} j limit 0`);
    expect(
      jobsColumns.fields.map((f) => f.name),
      'test/graphile-test.ts JOBS',
    ).toEqual(JOBS_COLUMNS);
  });

  const probeJob = defineJob({
    name: 'contract:probe',
    payload: z.object({ n: z.number() }),
    maxAttempts: 4,
    run: async () => undefined,
  });
  const jobsOf = (task: string) =>
    h.sql(
      `select id, queue_name, payload, priority, run_at, attempts, max_attempts, last_error, key, locked_by
    from ${JOBS} j where task_identifier = $1 order by id`,
      [task],
    );

  it('adds jobs with add_job, job_spec rows and add_jobs, and removes them by key', async () => {
    const runAt = new Date(Date.now() + 3600_000);
    const one = await h.deps.db.execute<{ id: string }>(
      sql`select (${addJobSql('contract:add', sql`json_build_object('n', 1)`, {
        queueName: sql`'contract:' || 'q'`,
        runAt,
        maxAttempts: 3,
        jobKey: 'contract-one',
        priority: 2,
      })}).id`,
    );
    expect(one.rows).toHaveLength(1);
    await h.deps.db.execute(sql`select ${addJobSql('contract:add', sql`json_build_object('n', 2)`)}`);
    await h.deps.db.execute(
      sql`select ${addJobCall(probeJob, sql`json_build_object('n', 3)`, { jobKey: 'contract-three' })}`,
    );
    expect(
      (await jobsOf('contract:add')).map(({ id: _, run_at, ...j }) => ({ ...j, later: new Date(run_at) > new Date() })),
    ).toEqual([
      {
        queue_name: 'contract:q',
        payload: { n: 1 },
        priority: 2,
        attempts: 0,
        max_attempts: 3,
        last_error: null,
        key: 'contract-one',
        locked_by: null,
        later: true,
      },
      {
        queue_name: null,
        payload: { n: 2 },
        priority: 0,
        attempts: 0,
        max_attempts: 25,
        last_error: null,
        key: null,
        locked_by: null,
        later: false,
      },
    ]);
    expect((await jobsOf(probeJob.name)).map((j) => [j.payload, j.max_attempts, j.key])).toEqual([
      [{ n: 3 }, 4, 'contract-three'],
    ]);

    const specs = jobSpecsOf([
      jobSpecRow(probeJob, sql`json_build_object('n', 4)`, { priority: 5 }),
      jobSpecSql('contract:spec', sql`json_build_object('n', 5)`, {
        runAt,
        maxAttempts: 2,
        jobKey: sql`'contract-' || 'five'`,
      }),
    ]);
    expect((await h.deps.db.execute(addJobsSelect(specs))).rows).toHaveLength(2);
    expect((await h.deps.db.execute(addJobsSelect(sql`select spec from (${specs}) s where false`))).rows).toEqual([]);
    const [spec] = await jobsOf('contract:spec');
    expect(spec).toMatchObject({ payload: { n: 5 }, max_attempts: 2, key: 'contract-five', priority: 0 });
    expect(new Date(spec.run_at).getTime()).toBe(runAt.getTime());
    expect((await jobsOf(probeJob.name)).map((j) => [j.payload, j.priority])).toEqual([
      [{ n: 3 }, 0],
      [{ n: 4 }, 5],
    ]);
    const called = await h.deps.db.execute<{ n: number }>(
      sql`select count(*)::int as n from ${addJobsCall(
        jobSpecsOf([
          jobSpecSql('contract:call', sql`'{}'::json`),
          jobSpecSql('contract:call', sql`'{}'::json`, { queueName: null }),
        ]),
      )}`,
    );
    expect(called.rows[0].n).toBe(2);
    expect(await jobsOf('contract:call')).toHaveLength(2);

    await removeJob(h.deps.db, 'contract-one');
    await removeJobs(h.deps.db, ['contract-three', 'contract-five', 'contract-none']);
    expect(await h.sql(`select key from ${JOBS} j where key like 'contract-%'`)).toEqual([]);
  });

  it('sets per-call planning on add_jobs', async () => {
    const config = async () =>
      (await h.sql(`select proconfig from pg_proc where oid = $1::regprocedure`, [ADD_JOBS_FUNCTION]))[0].proconfig;
    await h.sql(`alter function ${ADD_JOBS_FUNCTION} reset all`);
    await planAddJobsPerCall(h.deps.pool);
    expect(await config()).toEqual(['plan_cache_mode=force_custom_plan']);
  });

  it("finds and unlocks a dead worker's stale locks", async () => {
    await h.deps.db.execute(sql`select ${addJobSql('contract:lock', sql`'{}'::json`, { jobKey: 'contract-stale' })}`);
    await h.deps.db.execute(sql`select ${addJobSql('contract:lock', sql`'{}'::json`, { jobKey: 'contract-fresh' })}`);
    await backdateLock(h, 'contract-stale', '1 minute', 'contract-dead');
    await backdateLock(h, 'contract-fresh', '1 second', 'contract-new');
    const owners = await staleLockOwners(h.deps.pool, 10);
    expect(owners).toContain('contract-dead');
    expect(owners).not.toContain('contract-new');
    await forceUnlockWorkers(h.deps.pool, ['contract-dead']);
    expect((await jobsOf('contract:lock')).map((j) => [j.key, j.locked_by])).toEqual([
      ['contract-stale', null],
      ['contract-fresh', 'contract-new'],
    ]);
  });

  it('counts jobs by task and state', async () => {
    await h.deps.db.execute(sql`select ${addJobSql('contract:stats', sql`'{}'::json`)}`);
    await h.deps.db.execute(
      sql`select ${addJobSql('contract:stats', sql`'{}'::json`, { runAt: new Date(Date.now() + 3600_000), jobKey: 'contract-later' })}`,
    );
    const stats = (await jobStatsByTask(h.deps.pool)).find((s) => s.task === 'contract:stats');
    expect(stats).toMatchObject({ task: 'contract:stats', ready: 1, scheduled: 1, running: 0, failed: 0 });
    expect(stats!.oldest).toBeGreaterThanOrEqual(0);
    expect(await jobsDueNow(h, 'contract-later')).toBe(1);
    expect((await jobStatsByTask(h.deps.pool)).find((s) => s.task === 'contract:stats')).toMatchObject({
      ready: 2,
      scheduled: 0,
    });
    await deleteJobsOf(h, 'contract:stats');
    expect(await jobsOf('contract:stats')).toEqual([]);
  });

  it('takes queued jobs over in a transaction: locked, counted as failed, deleted', async () => {
    for (let n = 0; n < 3; n++)
      await h.deps.db.execute(sql`select ${addJobSql('contract:take', sql`json_build_object('n', ${n}::int)`)}`);
    await h.deps.db.execute(
      sql`select ${addJobSql('contract:take', sql`'{}'::json`, { queueName: 'contract:named' })}`,
    );
    const [own, ...others] = (await jobsOf('contract:take')).map((j) => String(j.id));
    const client = await h.deps.pool.connect();
    try {
      await client.query('begin');
      const taken = await lockWaitingJobs(client, 'contract:take', own, 5);
      // Not its own job, nor the one in a named queue.
      expect(taken.map((j) => [String(j.id), j.payload])).toEqual([
        [others[0], { n: 1 }],
        [others[1], { n: 2 }],
      ]);
      // Another transaction skips them while they are held.
      const other = await h.deps.pool.connect();
      try {
        await other.query('begin');
        expect(await lockWaitingJobs(other, 'contract:take', own, 5)).toEqual([]);
        await other.query('rollback');
      } finally {
        other.release();
      }
      await client.query('rollback');
      await countFailedAttempt(client, [others[0]], 'contract failure');
      expect((await jobsOf('contract:take')).map((j) => [j.attempts, j.last_error])).toEqual([
        [0, null],
        [1, 'contract failure'],
        [0, null],
        [0, null],
      ]);
      await setAttempts(h, [others[0]], 0);
      await client.query('begin');
      expect(await lockWaitingJobs(client, 'contract:take', own, 1)).toHaveLength(1);
      await deleteJobs(client, [others[0], others[1]]);
      await client.query('commit');
    } finally {
      client.release();
    }
    expect((await jobsOf('contract:take')).map((j) => String(j.id))).toEqual([own, others[2]]);
  });
});

const SRC = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
/** The modules of src/ allowed to name Graphile's schema in code. */
const ALLOWED = new Set(['worker/graphile.ts']);

/**
 * Lines of `source` whose code (comments excluded, strings and templates included) names a
 * `graphile_worker.` object, 1-based. Reads the file's tokens with TypeScript's own scanner, so a
 * comment inside a template literal's text counts as text and `//` in a string is no comment.
 */
function graphileLines(fileName: string, source: string): number[] {
  const sf = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const lines = new Set<number>();
  const visit = (node: ts.Node) => {
    if (node.kind >= ts.SyntaxKind.FirstJSDocNode && node.kind <= ts.SyntaxKind.LastJSDocNode) return;
    const children = node.getChildren(sf);
    if (children.length) return children.forEach(visit);
    const text = node.getText(sf);
    for (let i = text.indexOf('graphile_worker.'); i >= 0; i = text.indexOf('graphile_worker.', i + 1)) {
      lines.add(sf.getLineAndCharacterOfPosition(node.getStart(sf) + i).line + 1);
    }
  };
  visit(sf);
  return [...lines].sort((a, b) => a - b);
}

describe('Graphile Worker SQL stays in worker/graphile.ts', () => {
  it('finds names in code and ignores them in comments', () => {
    const source = [
      '// graphile_worker.add_job in a comment',
      '/** graphile_worker._private_jobs in a doc comment */',
      'const a = `select graphile_worker._private_jobs // not a comment',
      '  ${b} from graphile_worker.jobs`;',
      "const c = 'graphile_worker.add_job'; /* graphile_worker.x */",
    ].join('\n');
    expect(graphileLines('probe.ts', source)).toEqual([3, 4, 5]);
  });

  it('no other module of src/ names a graphile_worker object in code', () => {
    // What the production build compiles (tsconfig.build.json excludes tests and test helpers).
    const files = (readdirSync(SRC, { recursive: true }) as string[])
      .map((f) => f.split(path.sep).join('/'))
      .filter(
        (f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.endsWith('/test-helpers.ts') && !f.endsWith('.d.ts'),
      );
    expect(files.length).toBeGreaterThan(50);
    const offending = files
      .filter((f) => !ALLOWED.has(f))
      .flatMap((f) => graphileLines(f, readFileSync(path.join(SRC, f), 'utf8')).map((line) => `src/${f}:${line}`));
    expect(offending, 'use (or add) a helper of src/worker/graphile.ts instead').toEqual([]);
  });
});
