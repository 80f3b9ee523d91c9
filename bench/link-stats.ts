/**
 * Per-link reports (issue 36: "stats and per-link queries over a 1,000,000-email campaign answer in
 * < 200 ms"): `GET /campaigns/:id/links` and `GET /workflows/:id/steps/:stepId/links` (their SQL,
 * src/analytics/links.repo.ts, over the `email_link_clicks` summary of migration 0030) for BENCH_EMAILS
 * emails of one campaign that are also one workflow step's, with an `email.sent` event each, an
 * `email.open` for 30 %, and clicks for BENCH_CLICKED of them (1 to 3 of 5 links, a third machine
 * activity), plus as many emails and events of an earlier campaign of the same project (a project's
 * history is what an index on the project alone wades through). The summary is filled from the events
 * with migration 0030's own backfill statement. Baseline: the same figures read from the click events
 * (the best plan found without the summary: two-level aggregation, the project's click index), as
 * reports read them before 0030. Each query runs BENCH_ROUNDS times; the plan of the first run is printed.
 * Run: npx tsx bench/link-stats.ts   (BENCH_EMAILS, default 200000; the figure in bench/README.md is at
 * 1000000; BENCH_CLICKED, default 0.1; BENCH_ROUNDS, default 5; DATABASE_URL as bench-db.ts says)
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { campaignLinks, stepLinks } from '../src/analytics/links.repo.js';
import { benchDatabase, insertBenchProject } from './bench-db.js';

const N = Number(process.env.BENCH_EMAILS ?? 200_000);
const CLICKED = Number(process.env.BENCH_CLICKED ?? 0.1);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

const bench = await benchDatabase('pigeon_bench_link_stats', 4);
const { pool, db } = bench;
try {
  const [projectId, campaignId, otherCampaign, workflowId, stepId] = Array.from({ length: 5 }, () => randomUUID());
  await insertBenchProject(pool, projectId);
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
           else '{}'::jsonb end,
         e.id, e.campaign_id, now() - interval '30 minutes'
       from (select id, project_id, campaign_id, random() as r from emails where campaign_id = $1) e
       cross join lateral (
         select 'email.sent' as name, 0 as pos, false as machine
         union all select 'email.open', 0, false where e.r < 0.3
         union all select 'email.click', (floor(random() * 5))::int, e.r < $2::float8 / 3
           from generate_series(1, 1 + (floor(e.r * 1000)::int % 3)) where e.r < $2::float8) k`,
      [campaign, CLICKED],
    );
  }
  // The summary as recordClick keeps it: migration 0030's backfill over these events.
  const migration = readFileSync(new URL('../src/db/migrations/0030_link_reports.sql', import.meta.url), 'utf8');
  await pool.query('truncate email_link_clicks');
  await pool.query(migration.slice(migration.indexOf('INSERT INTO "email_link_clicks"')));
  for (const table of ['emails', 'events', 'email_link_clicks']) await pool.query(`vacuum analyze ${table}`);
  const clicks = (
    await pool.query(`select count(*)::int as n from events where name = 'email.click' and campaign_id = $1`, [
      campaignId,
    ])
  ).rows[0].n;
  console.log(
    `seeded ${N.toLocaleString()} emails × 2 campaigns, ${clicks.toLocaleString()} clicks in the campaign, in ${((Date.now() - t) / 1000).toFixed(0)} s`,
  );

  // Baseline: the per-link figures from the click events themselves.
  const fromEvents = (where: string) => `
    select url, position, sum(n) as clicks, count(*) as "uniqueClicks", count(*) filter (where human) as "humanClicks"
    from (select ev.data->>'link' as url, (ev.data->>'position')::int as position, count(*) as n,
            bool_or((ev.data->>'machine') is distinct from 'true') as human
          from events ev ${where} group by 1, 2, ev.email_id) per_email
    group by 1, 2 order by 2 nulls last, 1`;
  const campaignEvents = fromEvents(`where ev.name = 'email.click' and ev.project_id = $1 and ev.campaign_id = $2`);
  const stepEvents = fromEvents(
    `join emails e on e.id = ev.email_id where ev.name = 'email.click' and ev.project_id = $1 and e.workflow_step_id = $2`,
  );
  const summary = (where: string) => `
    select url, position, sum(clicks) as clicks, count(*) as "uniqueClicks", count(*) filter (where human_clicks > 0) as "humanClicks"
    from email_link_clicks where ${where} group by url, position order by position nulls last, url`;
  const runs: Array<[string, () => Promise<unknown>, string, unknown[]]> = [
    [
      'campaign links',
      () => campaignLinks(db, projectId, campaignId),
      summary('campaign_id = $2 and project_id = $1'),
      [projectId, campaignId],
    ],
    [
      'step links',
      () => stepLinks(db, projectId, stepId),
      summary('workflow_step_id = $2 and project_id = $1'),
      [projectId, stepId],
    ],
    [
      'campaign links from events (baseline)',
      () => pool.query(campaignEvents, [projectId, campaignId]),
      campaignEvents,
      [projectId, campaignId],
    ],
    [
      'step links from events (baseline)',
      () => pool.query(stepEvents, [projectId, stepId]),
      stepEvents,
      [projectId, stepId],
    ],
  ];
  for (const [label, run, text, values] of runs) {
    const plan = await pool.query(`explain (analyze, costs off) ${text}`, values);
    console.log(`\n-- ${label}\n${plan.rows.map((r) => r['QUERY PLAN']).join('\n')}`);
    const ms: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      t = performance.now();
      await run();
      ms.push(performance.now() - t);
    }
    ms.sort((a, b) => a - b);
    console.log(
      `${label}: median ${ms[ms.length >> 1].toFixed(1)} ms, best ${ms[0].toFixed(1)}, worst ${ms.at(-1)!.toFixed(1)}`,
    );
  }
} finally {
  await bench.drop();
}
