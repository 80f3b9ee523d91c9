/**
 * Segment reference budget (bench/README.md lists its figures): what a condition at the budget
 * of inlined filters (MAX_EXPANDED_FILTERS) costs to compile, how large its SQL is, how many bind
 * parameters it takes (PostgreSQL allows 65,535 per statement), and its planning and execution time
 * for one count over BENCH_CONTACTS contacts (default 2,000), with the costliest filters.
 *
 *   npx tsx bench/segment-references.ts
 */
import { PgDialect } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { newId } from '../src/lib/ids.js';
import { compileCondition } from '../src/segments/compile.js';
import { MAX_EXPANDED_FILTERS } from '../src/segments/reference-limits.js';
import { benchDatabase } from './bench-db.js';

const N = Number(process.env.BENCH_CONTACTS ?? 2_000);
const dialect = new PgDialect();
const log = (...a: unknown[]) => console.log(...a);

// The costliest filters to compile and to bind: date and number reads of `data` and an EXISTS window.
const COSTLY = [
  { field: 'data.signup', operator: 'equals', value: '2024-05-01' },
  { field: 'data.signup', operator: 'greaterThan', value: '2024-05-01T10:00:00Z' },
  { field: 'data.age', operator: 'equals', value: '42' },
  { field: 'data.a.b.c', operator: 'notEquals', value: 'true' },
  { field: 'event.purchase', operator: 'triggeredOlderThan', value: 3, unit: 'days' },
];

/** `n` filters naming segment `id`, 100 to a group. */
const refs = (id: string, n: number, logic: 'AND' | 'OR') => ({
  logic,
  groups: Array.from({ length: Math.ceil(n / 100) }, (_, g) => ({
    filters: Array.from({ length: Math.min(100, n - g * 100) }, () => ({
      field: `segment.${id}`,
      operator: 'memberOfSegment',
    })),
  })),
});

async function main(): Promise<void> {
  const b = await benchDatabase('pigeon_bench_segrefs', 4);
  try {
    const projectId = newId();
    await b.pool.query(
      `insert into projects (id, name, public_key_hash, secret_key_hash, public_key_hint, secret_key_hint)
      values ($1, 'bench', $2, $3, 'x', 'x')`,
      [projectId, `pk${projectId}`, `sk${projectId}`],
    );
    await b.pool.query(
      `insert into contacts (id, project_id, email, data)
      select gen_random_uuid(), $1, 'u' || g || '@bench.test',
        jsonb_build_object('signup', (date '2024-01-01' + (g % 365))::text, 'age', g % 80)
      from generate_series(1, $2::int) g`,
      [projectId, N],
    );
    await b.pool.query('vacuum analyze contacts');
    const now = new Date();

    for (const f of COSTLY) {
      const q = dialect.sqlToQuery(
        await compileCondition({ logic: 'AND', groups: [{ filters: [f] }] }, { db: b.db, projectId, now }),
      );
      log(`one filter ${f.field} ${f.operator}: ${q.params.length} bind parameters, ${q.sql.length} characters of SQL`);
    }

    // S0: the 5 costly filters ORed; S1 names it 166 times: 166 + 166 × 5 = 996 filters.
    const s0 = newId();
    await b.pool.query(
      `insert into segments (id, project_id, name, type, condition) values ($1, $2, 'S0', 'DYNAMIC', $3)`,
      [s0, projectId, JSON.stringify({ logic: 'OR', groups: COSTLY.map((f) => ({ filters: [f] })) })],
    );
    const refCount = Math.floor(MAX_EXPANDED_FILTERS / (COSTLY.length + 1));
    const tree = refs(s0, refCount, 'OR');
    let q = dialect.sqlToQuery(sql`select 1`);
    for (let round = 1; round <= 3; round++) {
      const t0 = performance.now();
      const predicate = await compileCondition(tree, { db: b.db, projectId, now });
      const t1 = performance.now();
      q = dialect.sqlToQuery(
        sql`select count(*)::int as n from contacts c where c.project_id = ${projectId} and ${predicate}`,
      );
      const t2 = performance.now();
      log(
        `round ${round}: ${refCount + refCount * COSTLY.length} filters (${refCount} references × ${COSTLY.length}): compile ${(t1 - t0).toFixed(1)} ms, ` +
          `to SQL ${(t2 - t1).toFixed(1)} ms, ${q.params.length} bind parameters, ${Math.round(q.sql.length / 1024)} KiB of SQL`,
      );
    }
    const plan = await b.pool.query(`explain (analyze, format json) ${q.sql}`, q.params);
    const p = plan.rows[0]['QUERY PLAN'][0];
    log(
      `count over ${N} contacts: planning ${p['Planning Time'].toFixed(1)} ms, execution ${p['Execution Time'].toFixed(1)} ms ` +
        `(${(p['Execution Time'] / N).toFixed(2)} ms per contact)`,
    );
  } finally {
    await b.drop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
