/**
 * Contacts at scale, in one run, on a dedicated database that is dropped at the end:
 * 1. CSV import of 100,000 rows through `POST /contacts/import` and the worker (rows/s), beside bare
 *    SQL inserting the same number of rows with one `INSERT … SELECT generate_series`.
 * 2. `GET /contacts` with 1,000,000 contacts in the project (made with generate_series): first page
 *    (with `total`), a deep cursor page, both sorts, and a search, each beside the same SQL run bare.
 * Run: npx tsx bench/contacts.ts   (DATABASE_URL: a server where the bench may create a database;
 * default postgres://postgres@127.0.0.1:5432/postgres; BENCH_ROUNDS, default 30)
 */
import pino from 'pino';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { cursorAfter } from '../src/contacts/contacts.service.js';
import { outboxTransport } from '../src/emails/delivery/transport.js';
import { systemClock } from '../src/lib/clock.js';
import { startWorker } from '../src/worker/runner.js';
import { createMetrics } from '../src/ops/metrics.js';
import { benchDatabase } from './bench-db.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30);
const IMPORT_ROWS = 100_000;
const BIG = 1_000_000;
const bench = await benchDatabase('pigeon_bench_contacts', 12);
const { pool, db } = bench;
const dataDir = `/tmp/${bench.name}`;

try {
  const config = loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: dataDir, PORT: '0', RATE_LIMIT_PER_MINUTE: '0' });
  const deps = {
    config,
    db,
    pool,
    clock: systemClock,
    log: pino({ level: 'silent' }),
    transport: outboxTransport(`${dataDir}/outbox`),
    secret: 'x'.repeat(40),
    metrics: createMetrics(),
  };
  const app = await buildApp(deps);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  const worker = await startWorker(deps, 2);

  const signup = await fetch(`${base}/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'bench@example.test', password: 'correct horse battery' }),
  });
  const cookie = /session=[^;]+/.exec(signup.headers.get('set-cookie') ?? '')![0];
  const newProject = async (name: string) =>
    (await (
      await fetch(`${base}/users/@me/projects`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie },
        body: JSON.stringify({ name }),
      })
    ).json()) as { id: string; secret: string };
  const get = async (key: string, path: string) => {
    const t0 = performance.now();
    const res = await fetch(base + path, { headers: { authorization: `Bearer ${key}` } });
    const body = await res.json();
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
    return { ms: performance.now() - t0, body };
  };
  // A statement gets the parameters up to the highest $n it uses.
  const argsOf = (q: string, params: unknown[]) =>
    params.slice(0, Math.max(0, ...(q.match(/\$\d/g) ?? []).map((m) => Number(m.slice(1)))));
  const stats = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return `median ${s[Math.floor(s.length / 2)].toFixed(1)} ms, p95 ${s[Math.floor(s.length * 0.95)].toFixed(1)} ms`;
  };

  // 1. Import.
  const imp = await newProject('import');
  const lines = ['email,first_name,age,vip,city'];
  for (let i = 0; i < IMPORT_ROWS; i++)
    lines.push(`user${i}@example.test,Name${i},${20 + (i % 60)},${i % 2 === 0},C${i % 100}`);
  const csv = lines.join('\n') + '\n';
  const form = new FormData();
  form.append('file', new Blob([csv], { type: 'text/csv' }), 'bench.csv');
  const t0 = performance.now();
  const up = await fetch(`${base}/contacts/import`, {
    method: 'POST',
    headers: { authorization: `Bearer ${imp.secret}` },
    body: form,
  });
  const { jobId } = (await up.json()) as { jobId: string };
  let job: { state: string; result: { created: number } };
  for (;;) {
    job = (await get(imp.secret, `/contacts/import/${jobId}`)).body;
    if (job.state === 'completed' || job.state === 'failed') break;
    await new Promise((r) => setTimeout(r, 25));
  }
  const importMs = performance.now() - t0;
  if (job.state !== 'completed' || job.result.created !== IMPORT_ROWS)
    throw new Error(`import: ${JSON.stringify(job)}`);
  const bare = await newProject('bare');
  const b0 = performance.now();
  await pool.query(
    `insert into contacts (id, project_id, email, subscribed, data, created_at, updated_at)
    select gen_random_uuid(), $1, 'user' || i || '@example.test', true,
      jsonb_build_object('first_name', 'Name' || i, 'age', 20 + i % 60, 'vip', i % 2 = 0, 'city', 'C' || i % 100), now(), now()
    from generate_series(0, $2 - 1) i`,
    [bare.id, IMPORT_ROWS],
  );
  const bareMs = performance.now() - b0;
  console.log(`CSV import, ${IMPORT_ROWS} rows (${(csv.length / 1e6).toFixed(1)} MB), upload to completed:`);
  console.log(`  pigeon:    ${(importMs / 1000).toFixed(2)} s, ${Math.round(IMPORT_ROWS / (importMs / 1000))} rows/s`);
  console.log(
    `  bare SQL:  ${(bareMs / 1000).toFixed(2)} s, ${Math.round(IMPORT_ROWS / (bareMs / 1000))} rows/s (one INSERT … generate_series, no parsing)`,
  );
  await worker.stop();

  // 2. 1,000,000 contacts.
  const big = await newProject('big');
  const g0 = performance.now();
  await pool.query(
    `insert into contacts (id, project_id, email, subscribed, data, created_at, updated_at)
    select gen_random_uuid(), $1, 'c' || i || '@example.test', i % 7 <> 0, jsonb_build_object('n', i),
      timestamptz '2025-01-01' + i * interval '1 second', now()
    from generate_series(1, $2) i`,
    [big.id, BIG],
  );
  // Steady state: autovacuum would have set the visibility map by now (index-only counts).
  await pool.query('vacuum analyze contacts');
  console.log(`\n${BIG} contacts generated in ${((performance.now() - g0) / 1000).toFixed(1)} s`);

  const COLS = `id, email, subscribed, snoozed_until, data, created_at, updated_at`;
  const deep = (
    await pool.query(
      `select created_at::text as k, id from contacts where project_id = $1 order by created_at desc, id desc offset 900000 limit 1`,
      [big.id],
    )
  ).rows[0];
  const deepEmail = (
    await pool.query(`select email as k, id from contacts where project_id = $1 order by email offset 900000 limit 1`, [
      big.id,
    ])
  ).rows[0];
  const cases: Array<{ name: string; path: string; sql: string; params: unknown[] }> = [
    {
      name: 'first page (total)',
      path: '/contacts',
      params: [big.id],
      sql: `select ${COLS} from contacts where project_id = $1 order by created_at desc, id desc limit 21; select count(*) from contacts where project_id = $1`,
    },
    {
      name: 'deep page (900,000th)',
      path: `/contacts?cursor=${cursorAfter('createdAt', 'desc', deep.k, deep.id)}`,
      params: [big.id, deep.k, deep.id],
      sql: `select ${COLS} from contacts where project_id = $1 and (created_at, id) < ($2::timestamptz, $3::uuid) order by created_at desc, id desc limit 21`,
    },
    {
      name: 'sort=email deep page',
      path: `/contacts?sort=email&dir=asc&cursor=${cursorAfter('email', 'asc', deepEmail.k, deepEmail.id)}`,
      params: [big.id, deepEmail.k],
      sql: `select ${COLS} from contacts where project_id = $1 and email > $2 order by email asc limit 21`,
    },
    {
      name: 'subscribed=false first page (total)',
      path: '/contacts?subscribed=false',
      params: [big.id],
      sql: `select ${COLS} from contacts where project_id = $1 and not subscribed order by created_at desc, id desc limit 21; select count(*) from contacts where project_id = $1 and not subscribed`,
    },
    {
      name: 'search=c99999 first page (total)',
      path: '/contacts?search=c99999',
      params: [big.id, '%c99999%'],
      sql: `select ${COLS} from contacts where project_id = $1 and email like $2 order by created_at desc, id desc limit 21; select count(*) from contacts where project_id = $1 and email like $2`,
    },
  ];
  console.log(`GET /contacts with ${BIG} contacts, ${ROUNDS} sequential rounds each:`);
  for (const c of cases) {
    const api: number[] = [];
    const raw: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      api.push((await get(big.secret, c.path)).ms);
      const s0 = performance.now();
      for (const q of c.sql.split(';')) await pool.query(q, argsOf(q, c.params));
      raw.push(performance.now() - s0);
    }
    const first = c.sql.split(';')[0];
    const plan = (await pool.query(`explain ${first}`, argsOf(first, c.params))).rows
      .map((r) => r['QUERY PLAN'] as string)
      .find((l) => /Index|Seq Scan/.test(l))
      ?.trim();
    console.log(`  ${c.name.padEnd(36)} pigeon ${stats(api)} | bare SQL ${stats(raw)} | plan: ${plan}`);
  }
  // The inventory reads every contact's data (jsonb_each): a full scan, measured for the record.
  for (const path of ['/contacts/fields', '/contacts/fields/n/values']) {
    const api: number[] = [];
    for (let i = 0; i < 3; i++) api.push((await get(big.secret, path)).ms);
    console.log(`  GET ${path.padEnd(32)} pigeon ${stats(api)} (3 rounds)`);
  }
  await app.close();
} finally {
  await bench.drop();
}
