/**
 * Segment benchmark (bench/README.md "Segments"): member count of a 3-filter tree and a full compute of
 * a tracked segment over a large project, with EXPLAIN ANALYZE plans.
 *
 *   npx tsx bench/segments.ts
 *
 * Env: BENCH_PG_URL (default postgres://postgres@127.0.0.1:5432/postgres), BENCH_CONTACTS (1000000),
 * BENCH_EVENTS (10000000), BENCH_KEEP=1 keeps the database. It creates its own database and drops it.
 * BENCH_EMBEDDED=1 runs on Pigeon's default database instead: the embedded PostgreSQL started as
 * `npm start` starts it without DATABASE_URL (src/db/embedded.ts, same settings), in a scratch DATA_DIR
 * that is removed at the end.
 */
import { sql, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { rm } from 'node:fs/promises';
import pg from 'pg';
import pino from 'pino';
import { embeddedSharedBuffersMb, startEmbedded } from '../src/db/embedded.js';
import { createDb } from '../src/db/pool.js';
import { migrateDatabase } from '../src/db/migrate.js';
import { newId } from '../src/lib/ids.js';
import { compileStaged } from '../src/segments/compile.js';
import { countMatching, matchingContacts } from '../src/segments/match.js';
import { computeSegment, membershipStatement } from '../src/segments/segments.compute.js';

const EMBEDDED_DIR = `/tmp/pigeon-bench-embedded-${process.pid}`;
const embedded =
  process.env.BENCH_EMBEDDED === '1' ? await startEmbedded(EMBEDDED_DIR, pino({ level: 'warn' })) : undefined;
const SERVER = embedded?.url ?? process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
if (embedded) console.log(`embedded PostgreSQL, shared_buffers ${embeddedSharedBuffersMb()} MB`);
const N = Number(process.env.BENCH_CONTACTS ?? 1_000_000);
const E = Number(process.env.BENCH_EVENTS ?? 10_000_000);
const DB = `pigeon_bench_segments_${process.pid}`;
const NOW = new Date();
const clock = { now: () => NOW };
const dialect = new PgDialect();

const tree = {
  logic: 'AND' as const,
  groups: [
    {
      filters: [
        { field: 'data.plan', operator: 'equals', value: 'pro' },
        { field: 'data.age', operator: 'greaterThan', value: 30 },
        { field: 'event.purchase', operator: 'triggeredWithin', value: 30, unit: 'days' },
      ],
    },
  ],
};

const log = (...a: unknown[]) => console.log(...a);
async function timed<T>(label: string, f: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t = performance.now();
  const value = await f();
  const ms = Math.round(performance.now() - t);
  log(`${label}: ${ms} ms`);
  return { ms, value };
}

// Contact n's id: a fixed, valid uuid, so events can point at contacts without a join.
const contactIdSql = (n: string) => `('00000000-0000-7000-8000-' || lpad(to_hex(${n}), 12, '0'))::uuid`;

async function withoutIndexes(pool: pg.Pool, tables: string[], load: () => Promise<void>): Promise<void> {
  const idx = (
    await pool.query(
      `select tablename, indexname, indexdef from pg_indexes where schemaname = 'public' and tablename = any($1)
    and indexname not in (select conname from pg_constraint)`,
      [tables],
    )
  ).rows;
  for (const i of idx) await pool.query(`drop index ${i.indexname}`);
  // contacts keeps its primary key (foreign keys hang on it; its ids arrive in order anyway).
  const pks = tables.filter((t) => t === 'events');
  for (const t of pks) await pool.query(`alter table ${t} drop constraint ${t}_pkey`);
  await load();
  for (const t of pks)
    await timed(`  primary key ${t}`, () => pool.query(`alter table ${t} add constraint ${t}_pkey primary key (id)`));
  for (const i of idx) await timed(`  index ${i.indexname}`, () => pool.query(i.indexdef));
}

async function explain(pool: pg.Pool, title: string, q: SQL): Promise<void> {
  const { sql: text, params } = dialect.sqlToQuery(q);
  const r = await pool.query(`explain (analyze, buffers, costs off) ${text}`, params);
  log(`\n--- EXPLAIN ANALYZE: ${title}\n${r.rows.map((x) => x['QUERY PLAN']).join('\n')}`);
}

async function main(): Promise<void> {
  const admin = new pg.Client({ connectionString: SERVER });
  await admin.connect();
  await admin.query(`create database ${DB}`);
  const u = new URL(SERVER);
  u.pathname = `/${DB}`;
  const { pool, db } = createDb(u.toString(), 4);
  try {
    log(`database ${DB}; ${N} contacts, ${E} events; now = ${NOW.toISOString()}`);
    await migrateDatabase(pool);
    const projectId = newId();
    await pool.query(
      `insert into projects (id, name, public_key_hash, secret_key_hash, public_key_hint, secret_key_hint)
      values ($1, 'bench', $2, $3, 'x', 'x')`,
      [projectId, `pk${projectId}`, `sk${projectId}`],
    );
    // A second, small project, so that every query has to filter on project_id.
    const other = newId();
    await pool.query(
      `insert into projects (id, name, public_key_hash, secret_key_hash, public_key_hint, secret_key_hint)
      values ($1, 'other', $2, $3, 'x', 'x')`,
      [other, `pk${other}`, `sk${other}`],
    );

    const gen = await timed('generate contacts and events (indexes built after the load)', () =>
      withoutIndexes(pool, ['contacts', 'events'], async () => {
        const c = await pool.connect();
        try {
          await c.query(`set session_replication_role = replica`); // no FK triggers during the bulk load
          await c.query(`select setseed(0.42)`);
          await timed(`  ${N} contacts`, () =>
            c.query(
              `
          insert into contacts (id, project_id, email, subscribed, data, created_at, updated_at)
          select ${contactIdSql('g')}, $1, 'user' || g || '@bench.test', random() > 0.1,
            jsonb_build_object(
              'plan', case when r < 0.2 then 'pro' when r < 0.3 then 'team' else 'free' end,
              -- one age in ten is stored as a string that looks like a number
              'age', case when random() < 0.1 then to_jsonb((18 + floor(random() * 62))::int::text) else to_jsonb((18 + floor(random() * 62))::int) end,
              'country', (array['NL','DE','FR','US','GB'])[1 + floor(random() * 5)::int]),
            ts, ts
          from (select g, random() as r, $2::timestamptz - random() * interval '730 days' as ts from generate_series(1, $3::int) g) s`,
              [projectId, NOW.toISOString(), N],
            ),
          );
          const chunk = 2_000_000;
          for (let from = 1; from <= E; from += chunk) {
            const to = Math.min(E, from + chunk - 1);
            await timed(`  events ${from}..${to}`, () =>
              c.query(
                `
            insert into events (id, project_id, contact_id, name, data, created_at)
            select gen_random_uuid(), $1, ${contactIdSql(`(1 + floor(random() * $3::int))::int`)},
              (array['page_view','page_view','page_view','click','click','login','login','signup','purchase','refund'])[1 + floor(random() * 10)::int],
              '{}'::jsonb, $2::timestamptz - random() * interval '365 days'
            from generate_series($4::int, $5::int)`,
                [projectId, NOW.toISOString(), N, from, to],
              ),
            );
          }
          await c.query(
            `insert into contacts (id, project_id, email, data) select gen_random_uuid(), $1, 'o' || g || '@x.test', '{"plan":"pro","age":40}' from generate_series(1, 1000) g`,
            [other],
          );
        } finally {
          c.release();
        }
      }),
    );
    await timed('vacuum analyze', () => pool.query('vacuum analyze contacts, events'));

    const deps = { db, clock };
    const counts: number[] = [];
    let members = 0;
    for (let i = 0; i < 3; i++) {
      const r = await timed(`member count of the 3-filter tree, run ${i + 1}`, () =>
        countMatching(deps, projectId, tree),
      );
      counts.push(r.ms);
      members = r.value;
    }
    log(`members: ${members}`);
    const predicate = await compileStaged(tree, { db, projectId, now: NOW });
    await explain(pool, 'member count', matchingContacts(projectId, predicate, sql`count(*)`));

    const segmentId = newId();
    await pool.query(
      `insert into segments (id, project_id, name, type, condition, track_membership) values ($1, $2, 'Bench Pro Buyers', 'DYNAMIC', $3, true)`,
      [segmentId, projectId, JSON.stringify(tree)],
    );
    const full = await timed('compute, first run (every member enters)', () =>
      computeSegment(deps, projectId, segmentId),
    );
    log(`  ${JSON.stringify(full.value)}`);
    // Some leave (plan changes), some join (a fresh purchase).
    await pool.query(
      `update contacts set data = data || '{"plan":"free"}' where id in (select contact_id from segment_members where segment_id = $1 limit 1000)`,
      [segmentId],
    );
    await pool.query(
      `insert into events (id, project_id, contact_id, name, created_at)
      select gen_random_uuid(), $1, c.id, 'purchase', $2 from contacts c
      where c.project_id = $1 and c.data @> '{"plan":"pro"}' and (c.data->>'age')::int > 30
        and not exists (select 1 from segment_members sm where sm.segment_id = $3 and sm.contact_id = c.id) limit 1000`,
      [projectId, NOW.toISOString(), segmentId],
    );
    const incr = await timed('compute, second run (1000 exits, up to 1000 entries)', () =>
      computeSegment(deps, projectId, segmentId),
    );
    log(`  ${JSON.stringify(incr.value)}`);
    const idle = await timed('compute, third run (no change)', () => computeSegment(deps, projectId, segmentId));
    log(`  ${JSON.stringify(idle.value)}`);
    // The compute's one statement, on a state with 500 exits and 500 entries pending, rolled back.
    await pool.query(
      `update contacts set data = data || '{"plan":"free"}' where id in (select contact_id from segment_members where segment_id = $1 limit 500)`,
      [segmentId],
    );
    await pool.query(
      `insert into events (id, project_id, contact_id, name, created_at)
      select gen_random_uuid(), $1, c.id, 'purchase', $2 from contacts c
      where c.project_id = $1 and c.data @> '{"plan":"pro"}' and (c.data->>'age')::int > 30
        and not exists (select 1 from segment_members sm where sm.segment_id = $3 and sm.contact_id = c.id) limit 500`,
      [projectId, NOW.toISOString(), segmentId],
    );
    const client = await pool.connect();
    try {
      await client.query('begin');
      const { sql: text, params } = dialect.sqlToQuery(
        membershipStatement({ projectId, segmentId, segmentName: 'Bench Pro Buyers', predicate, now: NOW }),
      );
      const r = await client.query(`explain (analyze, buffers, costs off) ${text}`, params);
      log(
        `\n--- EXPLAIN ANALYZE: the compute statement (500 exits, 500 entries; rolled back)\n${r.rows.map((x) => x['QUERY PLAN']).join('\n')}`,
      );
    } finally {
      await client.query('rollback');
      client.release();
    }

    log('\nSUMMARY');
    log(`contacts ${N}, events ${E}, data generation ${gen.ms} ms`);
    log(`member count (3 filters): ${counts.join(' / ')} ms, ${members} members`);
    log(
      `tracked compute: first ${full.ms} ms (${full.value.entered} entries), second ${incr.ms} ms (${incr.value.entered} in, ${incr.value.exited} out), unchanged ${idle.ms} ms`,
    );
  } finally {
    await pool.end();
    if (process.env.BENCH_KEEP !== '1') await admin.query(`drop database ${DB} with (force)`);
    await admin.end();
  }
}

main().then(stopEmbedded, async (err) => {
  console.error(err);
  await stopEmbedded();
  process.exit(1);
});

async function stopEmbedded(): Promise<void> {
  if (!embedded) return;
  await embedded.stop();
  await rm(EMBEDDED_DIR, { recursive: true, force: true });
}
