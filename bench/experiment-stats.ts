/**
 * `GET /campaigns/:id/stats` of an A/B/n campaign over BENCH_EMAILS emails (issue 36: "stats … over a
 * 1,000,000-email campaign answer in < 200 ms on the default database"). Builds one campaign as a
 * finished send would leave it: 10 % holdout, two test groups of 10 % each, the winner phase for the
 * rest, a third of the mail opened (a fifth of those by machines), 5 % clicked, and conversion events
 * of the metric for 3 % of the contacts. Times, warm, best and median of BENCH_ROUNDS: counting the
 * figures (campaigns/figures.ts `countFigures`: the counters, then the experiment's variants, holdout
 * and p-values) of the A/B campaign beside the baseline of a plain campaign of the same size (the
 * aggregate Plunk's stats need), and `GET /campaigns/:id/stats` as readers get it, from the snapshot.
 * Run: npx tsx bench/experiment-stats.ts   (BENCH_EMAILS, default 200000; the figure in bench/README.md is
 * at 1000000; BENCH_ROUNDS, default 7; DATABASE_URL: a server where the bench may create a database)
 */
import { randomUUID } from 'node:crypto';
import * as repo from '../src/campaigns/campaigns.repo.js';
import { campaignStats } from '../src/campaigns/campaigns.service.js';
import { countFigures } from '../src/campaigns/figures.js';
import { benchDatabase, benchDeps, insertBenchProject } from './bench-db.js';
import { seedContacts } from './pigeon-process.js';

const N = Number(process.env.BENCH_EMAILS ?? 200_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);

const bench = await benchDatabase('pigeon_bench_experiment_stats', 5);
const { pool, db } = bench;
try {
  const deps = benchDeps(bench);
  const projectId = await insertBenchProject(pool);
  let t = Date.now();
  // One contact more per 9 mailed: the holdout (10 % of the audience) gets no email.
  const contacts = Math.round(N / 0.9);
  await seedContacts(pool, projectId, contacts);
  const ab = randomUUID();
  const plain = randomUUID();
  const started = new Date(Date.now() - 86_400_000).toISOString();
  await pool.query(
    `insert into campaigns (id, project_id, name, subject, body, "from", status, sent_at, variants, experiment,
       experiment_seed, experiment_phase, winner_key, winner_chosen_at, winner_chosen_by)
     values ($1, $3, 'ab', 's', 'b', 'a@b.test', 'SENT', $4, '[{"key":"A"},{"key":"B","subject":"other"}]',
       '{"testPercent":20,"holdoutPercent":10,"metric":"event:signup","waitMinutes":240}', 1, 'winner', 'B', $4, 'auto'),
       ($2, $3, 'plain', 's', 'b', 'a@b.test', 'SENT', $4, null, null, null, null, null, null, null)`,
    [ab, plain, projectId, started],
  );
  // Contacts in a random order: 10 % holdout, then A and B (10 % each), then the rest.
  await pool.query(
    `insert into campaign_groups (campaign_id, contact_id, grp)
     select $1, id, case when rn <= $3 * 0.1 then 'holdout' when rn <= $3 * 0.2 then 'A' else 'B' end
     from (select id, row_number() over (order by md5(id::text)) rn from contacts where project_id = $2) s
     where rn <= $3 * 0.3`,
    [ab, projectId, contacts],
  );
  // The emails of both campaigns, alike but for the experiment's columns.
  for (const [campaign, experiment] of [
    [ab, true],
    [plain, false],
  ] as const) {
    await pool.query(
      `insert into emails (id, project_id, contact_id, to_email, from_email, subject, content_id, type, source_type,
         campaign_id, status, sent_at, delivered_at, opened_at, human_opened_at, clicked_at, human_clicked_at,
         variant, winner_phase, created_at, updated_at)
       select gen_random_uuid(), $2, c.id, c.email, 'a@b.test', 's', $1, 'MARKETING', 'CAMPAIGN', $1,
         case when h % 20 = 0 then 'CLICKED' when h % 3 = 0 then 'OPENED' else 'DELIVERED' end,
         $3::timestamptz, $3::timestamptz,
         case when h % 3 = 0 or h % 20 = 0 then $3::timestamptz end,
         case when (h % 3 = 0 and h % 5 <> 0) or h % 20 = 0 then $3::timestamptz end,
         case when h % 20 = 0 then $3::timestamptz end, case when h % 20 = 0 then $3::timestamptz end,
         case when $4 then coalesce(g.grp, 'B') end, case when $4 and g.grp is null then true end, $3, $3
       from (select c.*, abs(hashtext(c.id::text)) as h from contacts c where c.project_id = $2) c
       left join campaign_groups g on g.campaign_id = ${`'${ab}'`} and g.contact_id = c.id
       where g.grp is distinct from 'holdout'`,
      [campaign, projectId, started, experiment],
    );
  }
  await pool.query(
    `insert into events (id, project_id, contact_id, name, created_at)
     select gen_random_uuid(), $1, id, 'signup', now() from contacts where project_id = $1 and abs(hashtext(email)) % 100 < 3`,
    [projectId],
  );
  await pool.query('vacuum analyze');
  const n = (await pool.query(`select count(*)::int as n from emails where campaign_id = $1`, [ab])).rows[0].n;
  console.log(`${n} emails per campaign (${contacts} contacts) and their events inserted in ${Date.now() - t} ms`);

  await pool.query(`update campaigns set total_recipients = $2 where project_id = $1`, [projectId, n]);
  const time = async (run: () => Promise<unknown>) => {
    const runs: number[] = [];
    await run(); // warm
    for (let i = 0; i < ROUNDS; i++) {
      t = performance.now();
      await run();
      runs.push(performance.now() - t);
    }
    runs.sort((a, b) => a - b);
    return { best: runs[0], median: runs[Math.floor(runs.length / 2)] };
  };
  const row = async (id: string) => (await repo.getCampaignById(db, id))!;
  const abRow = await row(ab);
  const plainRow = await row(plain);
  const out = await countFigures(db, abRow);
  console.log(JSON.stringify({ experiment: out.experiment, variants: out.variants }, null, 1));
  const fmt = (r: { best: number; median: number }) => `best ${r.best.toFixed(0)} ms, median ${r.median.toFixed(0)} ms`;
  const base = await time(() => countFigures(db, plainRow));
  const count = await time(() => countFigures(db, abRow));
  console.log(`counting a plain campaign's figures (baseline, the aggregate Plunk's stats need): ${fmt(base)}`);
  console.log(
    `counting the A/B campaign's figures (the campaigns:figures job): ${fmt(count)} (${(count.median / base.median).toFixed(2)}× baseline)`,
  );
  const served = await time(() => campaignStats(deps, projectId, ab));
  const servedPlain = await time(() => campaignStats(deps, projectId, plain));
  console.log(
    `GET /campaigns/:id/stats of the A/B campaign (snapshot): ${fmt(served)}; of the plain one: ${fmt(servedPlain)}`,
  );
} finally {
  await bench.drop();
}
