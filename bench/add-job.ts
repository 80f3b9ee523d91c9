/**
 * What one `graphile_worker.add_job` call costs on a pooled connection as the jobs table grows, with
 * PostgreSQL's cached generic plan for Graphile's `add_jobs` (its default) and with a plan per call
 * (`plan_cache_mode = force_custom_plan` on the function, what src/db/migrate.ts sets). Each mode runs
 * on one connection that first adds a few jobs while the table is empty (as a worker's connections
 * do at start), then is timed after 5,000 and 20,000 more jobs are queued for later (run_at + 1 day,
 * like a workflow's delays). Asynchronous commit, so the figures are the statement, not the disk.
 * Run: npx tsx bench/add-job.ts   (DATABASE_URL: the server, default postgres://postgres@127.0.0.1:5432/postgres)
 */
import { benchDatabase } from './bench-db.js';

const CALLS = 300;
const b = await benchDatabase('pigeon_bench_addjob');
const fn = 'graphile_worker.add_jobs(graphile_worker.job_spec[], boolean)';
const keyed = (i: number) => `select graphile_worker.add_job('later', json_build_object('i', ${i}),
  job_key => 'k${i}-' || random()::text, run_at => now() + interval '1 day')`;
for (const mode of ['cached generic plan (default)', 'plan per call (force_custom_plan)']) {
  await b.pool.query('delete from graphile_worker._private_jobs');
  await b.pool.query(
    mode.startsWith('plan per call')
      ? `alter function ${fn} set plan_cache_mode = force_custom_plan`
      : `alter function ${fn} reset plan_cache_mode`,
  );
  const c = await b.pool.connect();
  await c.query('set synchronous_commit = off');
  const time = async () => {
    const t = performance.now();
    for (let i = 0; i < CALLS; i++) await c.query(keyed(i));
    return (((performance.now() - t) / CALLS) * 1000).toFixed(0);
  };
  const out = [`empty table ${await time()} µs`];
  for (const n of [5_000, 20_000]) {
    await b.pool
      .query(`select graphile_worker.add_jobs(array(select json_populate_record(null::graphile_worker.job_spec,
      json_build_object('identifier', 'filler', 'payload', json_build_object('i', i), 'run_at', now() + interval '1 day')) from generate_series(1, ${n}) i))`);
    out.push(`+${n.toLocaleString('en')} queued ${await time()} µs`);
  }
  c.release();
  console.log(`add_job with a key, one round trip each (${mode}): ${out.join(', ')}`);
}
const c = await b.pool.connect();
const t = performance.now();
for (let i = 0; i < CALLS; i++) await c.query('select 1');
console.log(`a bare round trip (select 1): ${(((performance.now() - t) / CALLS) * 1000).toFixed(0)} µs`);
c.release();
await b.drop();
