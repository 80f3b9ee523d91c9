/**
 * Per-link reports (issue 36: "stats and per-link queries over a 1,000,000-email campaign answer in
 * < 200 ms"): `GET /campaigns/:id/links` and `GET /workflows/:id/steps/:stepId/links` (their SQL,
 * src/analytics/links.repo.ts) over BENCH_EMAILS emails of one campaign that are also one workflow
 * step's, with an `email.sent` event each, an `email.open` for 30 %, and clicks for BENCH_CLICKED of
 * them (1 to 3 of 5 links, a third machine activity), plus as many emails and events of an earlier
 * campaign of the same project (a project's history is what an index on the project alone wades through). Each query runs BENCH_ROUNDS times with the indexes of migration 0028, then
 * without them (the baseline: what the same SQL costs on the schema before it); the plan of the first
 * run of each is printed.
 * Run: npx tsx bench/link-stats.ts   (BENCH_EMAILS, default 200000; the figure in bench/README.md is at
 * 1000000; BENCH_CLICKED, default 0.1; BENCH_ROUNDS, default 5; DATABASE_URL as bench-db.ts says)
 */
import { randomUUID } from 'node:crypto';
import { campaignLinks, stepLinks } from '../src/analytics/links.repo.js';
import { benchDatabase } from './bench-db.js';

const N = Number(process.env.BENCH_EMAILS ?? 200_000);
const CLICKED = Number(process.env.BENCH_CLICKED ?? 0.1);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

const bench = await benchDatabase('pigeon_bench_link_stats', 4);
const { pool, db } = bench;
try {
  const [projectId, campaignId, otherCampaign, workflowId, stepId] = Array.from({ length: 5 }, () => randomUUID());
  await pool.query(
    `insert into projects (id, name, public_key_hash, secret_key_hash, public_key_hint, secret_key_hint) values ($1, 'bench', $2, $3, 'p', 's')`,
    [projectId, randomUUID(), randomUUID()],
  );
  await pool.query(
    `insert into campaigns (id, project_id, name, subject, body, "from", status) values
       ($1, $3, 'bench', 's', 'b', 'a@bench.test', 'SENT'), ($2, $3, 'earlier', 's', 'b', 'a@bench.test', 'SENT')`,
    [campaignId, otherCampaign, projectId],
  );
  await pool.query(`insert into workflows (id, project_id, name) values ($1, $2, 'bench')`, [workflowId, projectId]);
  await pool.query(
    `insert into workflow_steps (id, workflow_id, project_id, type, name) values ($1, $2, $3, 'SEND_EMAIL', 'mail')`,
    [stepId, workflowId, projectId],
  );
  let t = Date.now();
  // The bench campaign's emails (also the step's), and as many of an earlier campaign.
  for (const [project, campaign, step] of [
    [projectId, campaignId, stepId],
    [projectId, otherCampaign, null],
  ]) {
    await pool.query(
      `insert into emails (id, project_id, campaign_id, workflow_step_id, to_email, from_email, subject, body, source_type, status, sent_at, delivered_at, created_at)
       select gen_random_uuid(), $1, $2, $3, 'r' || i || '@rcpt.test', 'a@bench.test', 's', 'b', 'CAMPAIGN', 'DELIVERED',
         now() - interval '1 hour', now() - interval '1 hour', now() - interval '1 hour'
       from generate_series(1, $4::int) i`,
      [project, campaign, step, N],
    );
    const links = `array['https://a.test/1', 'https://a.test/2', 'https://a.test/3', 'https://a.test/4', 'https://a.test/1']`;
    await pool.query(
      `insert into events (id, project_id, name, data, email_id, campaign_id, created_at)
       select gen_random_uuid(), e.project_id, k.name,
         case when k.name = 'email.click'
           then jsonb_build_object('link', (${links})[k.pos + 1], 'position', k.pos, 'machine', k.machine)
             || case when e.workflow_step_id is null then '{}'::jsonb else jsonb_build_object('workflowStepId', e.workflow_step_id) end
           else '{}'::jsonb end,
         e.id, e.campaign_id, now() - interval '30 minutes'
       from (select id, project_id, campaign_id, workflow_step_id, random() as r from emails where campaign_id = $1) e
       cross join lateral (
         select 'email.sent' as name, 0 as pos, false as machine
         union all select 'email.open', 0, false where e.r < 0.3
         union all select 'email.click', (floor(random() * 5))::int, e.r < $2::float8 / 3
           from generate_series(1, 1 + (floor(e.r * 1000)::int % 3)) where e.r < $2::float8) k`,
      [campaign, CLICKED],
    );
  }
  await pool.query('vacuum analyze emails');
  await pool.query('vacuum analyze events');
  const clicks = (await pool.query(`select count(*)::int as n from events where name = 'email.click' and campaign_id = $1`, [campaignId])).rows[0].n;
  console.log(`seeded ${N.toLocaleString()} emails × 2 campaigns, ${clicks.toLocaleString()} clicks in the campaign, in ${((Date.now() - t) / 1000).toFixed(0)} s`);

  const queries: Array<[string, () => Promise<unknown>, string]> = [
    ['campaign links', () => campaignLinks(db, projectId, campaignId), `campaign_id = '${campaignId}'`],
    ['step links', () => stepLinks(db, projectId, stepId), `workflow_step_id = '${stepId}'`],
  ];
  const explain = async (label: string) => {
    // The repo's SQL, as EXPLAIN sees it: capture the statement by running it through a wrapper pool.
    const client = await pool.connect();
    try {
      const q = client.query.bind(client) as (text: string, values?: unknown[]) => Promise<{ rows: Array<Record<string, string>> }>;
      for (const [name, , ] of queries) {
        const [text, values] = captured.get(name)!;
        const plan = await q(`explain (analyze, buffers, costs off) ${text}`, values);
        console.log(`\n-- ${label}: ${name}\n${plan.rows.map((r) => r['QUERY PLAN']).join('\n')}`);
      }
    } finally {
      client.release();
    }
  };
  // Record each query's SQL and parameters once, for EXPLAIN.
  const captured = new Map<string, [string, unknown[]]>();
  const original = pool.query.bind(pool);
  for (const [name, run] of queries) {
    (pool as unknown as { query: unknown }).query = (text: unknown, values?: unknown[]) => {
      const cfg = typeof text === 'string' ? { text, values } : (text as { text: string; values?: unknown[] });
      if (/email\.click/.test(cfg.text)) captured.set(name, [cfg.text, cfg.values ?? values ?? []]);
      return (original as (a: unknown, b?: unknown) => Promise<unknown>)(text, values);
    };
    await run();
    (pool as unknown as { query: unknown }).query = original;
  }

  const time = async (label: string) => {
    await explain(label);
    for (const [name, run] of queries) {
      const ms: number[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        t = performance.now();
        await run();
        ms.push(performance.now() - t);
      }
      ms.sort((a, b) => a - b);
      console.log(`${label}: ${name}: median ${ms[ms.length >> 1].toFixed(1)} ms, best ${ms[0].toFixed(1)}, worst ${ms.at(-1)!.toFixed(1)}`);
    }
  };
  await time('with 0028');
  await pool.query('drop index events_campaign_name_idx');
  await pool.query('drop index events_click_step_idx');
  await time('without 0028 (baseline)');
} finally {
  await bench.drop();
}
