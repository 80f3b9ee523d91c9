/**
 * A contacts export of BENCH_CONTACTS (default 1,000,000) contacts, CSV then JSON Lines: rows/s and the
 * peak RSS of the process that runs it (test/export-child.ts, `npm start`'s node flags, VmHWM reset once
 * the modules are loaded), beside the floor: the same rows through one bare `COPY … TO STDOUT` read by
 * psql into /dev/null (no paging, no progress, no file). The file goes to a scratch DATA_DIR.
 *   npx tsx bench/export.ts               (BENCH_CONTACTS=1000000, BENCH_FORMATS=csv,jsonl)
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { benchDatabase, insertBenchProject } from './bench-db.js';
import { root, startNodeFlags } from './pigeon-process.js';

const N = Number(process.env.BENCH_CONTACTS ?? 1_000_000);
const formats = (process.env.BENCH_FORMATS ?? 'csv,jsonl').split(',');
const MB = 1024 * 1024;

const bench = await benchDatabase('pigeon_bench_export', 4);
const dataDir = `/tmp/${bench.name}-data`;
try {
  const projectId = await insertBenchProject(bench.pool);
  console.log(`inserting ${N.toLocaleString('en')} contacts…`);
  await bench.pool.query(
    `insert into contacts (id, project_id, email, subscribed, data, created_at, updated_at)
     select gen_random_uuid(), $1, 'c' || i || '@example.test', i % 7 <> 0,
       jsonb_build_object('firstName', 'Name ' || i, 'plan', 'pro', 'seats', i % 50), now() - make_interval(secs => i), now()
     from generate_series(1, $2) i`,
    [projectId, N],
  );
  await bench.pool.query('analyze contacts');

  const t0 = performance.now();
  const copy = spawnSync(
    'psql',
    [
      bench.url,
      '-c',
      `copy (select id, email, subscribed, created_at, updated_at, data from contacts where project_id = '${projectId}' order by created_at, id) to stdout with csv header`,
      '-o',
      '/dev/null',
    ],
    { stdio: 'inherit' },
  );
  const copyMs = performance.now() - t0;
  if (copy.status !== 0) throw new Error('psql COPY failed');
  console.log(`baseline COPY to /dev/null: ${Math.round(N / (copyMs / 1000)).toLocaleString('en')} rows/s`);

  for (const format of formats) {
    const id = randomUUID();
    await bench.pool.query(`insert into exports (id, project_id, kind, format) values ($1, $2, 'contacts', $3)`, [
      id,
      projectId,
      format,
    ]);
    const child = spawn(
      path.join(root, 'node_modules/.bin/node'),
      [...startNodeFlags(), '--import', 'tsx', 'test/export-child.ts'],
      {
        cwd: root,
        env: { ...process.env, EXPORT_DATABASE_URL: bench.url, EXPORT_DATA_DIR: dataDir, EXPORT_ID: id },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    if (code !== 0) throw new Error(`export child exited with ${code}`);
    const { peakRss, ms } = JSON.parse(out) as { peakRss: number; ms: number };
    const [row] = (await bench.pool.query(`select rows_done, bytes, state from exports where id = $1`, [id])).rows;
    console.log(
      `${format}: ${row.state}, ${Number(row.rows_done).toLocaleString('en')} rows, ${(Number(row.bytes) / MB).toFixed(0)} MB in ${(ms / 1000).toFixed(1)} s: ` +
        `${Math.round(N / (ms / 1000)).toLocaleString('en')} rows/s (${(N / (ms / 1000) / (N / (copyMs / 1000))).toFixed(2)} of COPY), peak RSS ${(peakRss / MB).toFixed(0)} MB`,
    );
  }
} finally {
  await rm(dataDir, { recursive: true, force: true });
  await bench.drop();
}
