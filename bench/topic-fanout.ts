/**
 * Campaign fan-out with and without a topic (issue 35: "within 10 % at 1,000,000 contacts"): the
 * `campaigns:fanout` job's statements (src/campaigns/fanout.ts: INSERT … SELECT of 1,000 recipients with
 * their `emails:send-batch` jobs) over BENCH_CONTACTS subscribed contacts, timed from the first batch to
 * the last, for a MARKETING campaign without a topic, under an opt-out topic that 10 % of the contacts
 * left, and under an opt-in topic that 90 % joined (the two topics hold the same 90 %). Rounds are
 * interleaved (none, opt-out, opt-in, none, …) and the emails and jobs of each run are removed before
 * the next, so every run writes into tables of the same size. Prints the plan of one batch's recipient
 * query under a topic first, to show the `contact_topics` look-up goes through its primary key.
 * Nothing is delivered (no worker runs).
 * Run: npx tsx bench/topic-fanout.ts   (BENCH_CONTACTS, default 200000; the figure in bench/README.md is at 1000000; BENCH_ROUNDS, default 2;
 * DATABASE_URL: a server where the bench may create a database, default 127.0.0.1:5432)
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { recipientFilter } from '../src/campaigns/audience.js';
import { createCampaign, sendCampaign } from '../src/campaigns/campaigns.service.js';
import * as repo from '../src/campaigns/campaigns.repo.js';
import { FANOUT_DONE, runFanout } from '../src/campaigns/fanout.js';
import { benchDatabase, benchDeps, insertBenchProject } from './bench-db.js';
import { insertVerifiedDomain, seedContacts } from './pigeon-process.js';

const N = Number(process.env.BENCH_CONTACTS ?? 200_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);

const bench = await benchDatabase('pigeon_bench_topic_fanout', 5);
const { pool, db } = bench;
try {
  const deps = benchDeps(bench);
  const projectId = await insertBenchProject(pool);
  const domain = 'bench.example.test';
  await insertVerifiedDomain(pool, projectId, domain);
  let t = Date.now();
  await seedContacts(pool, projectId, N);
  const optOut = randomUUID();
  const optIn = randomUUID();
  await pool.query(
    `insert into topics (id, project_id, name, subscription_default) values ($1, $3, 'Digest', 'opt-out'), ($2, $3, 'News', 'opt-in')`,
    [optOut, optIn, projectId],
  );
  // The same 10 % left Digest and did not join News (contact ids are random, so spread over the id order).
  await pool.query(
    `insert into contact_topics (topic_id, contact_id, project_id, subscribed)
     select t.id, c.id, $3, (t.id = $2) from contacts c cross join (values ($1::uuid), ($2::uuid)) t(id)
     where c.project_id = $3 and ((t.id = $1 and c.email ~ '^r[0-9]*0@') or (t.id = $2 and c.email !~ '^r[0-9]*0@'))`,
    [optOut, optIn, projectId],
  );
  await pool.query('vacuum analyze contacts');
  await pool.query('vacuum analyze contact_topics');
  console.log(`${N} contacts and their topic choices inserted in ${Date.now() - t} ms`);

  const variants: Array<[string, string | null]> = [
    ['no topic', null],
    ['opt-out topic (10 % left)', optOut],
    ['opt-in topic (90 % joined)', optIn],
  ];

  // The plan of one fan-out batch's recipient query under the opt-out topic.
  const probe = await createCampaign(deps, projectId, {
    name: 'plan',
    subject: 's',
    body: '<p>b</p>',
    from: `news@${domain}`,
    fromName: null,
    type: 'MARKETING',
    audienceType: 'ALL',
    topicId: optOut,
  });
  const row = (await repo.getCampaign(db, projectId, probe.id))!;
  const where = await recipientFilter(db, row, new Date());
  const plan = await db.execute<{ 'QUERY PLAN': string }>(
    sql`explain (analyze, costs off, timing off) select c.id, c.email from contacts c where ${where} and c.id > '00000000-0000-0000-0000-000000000000'::uuid order by c.id limit 1000`,
  );
  console.log(plan.rows.map((r) => r['QUERY PLAN']).join('\n'));

  const results = new Map<string, number[]>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const [label, topicId] of variants) {
      const c = await createCampaign(deps, projectId, {
        name: `${label} ${round}`,
        subject: 'Hello {{firstName}}',
        body: '<p>Hi {{firstName}}</p>',
        from: `news@${domain}`,
        fromName: null,
        type: 'MARKETING',
        audienceType: 'ALL',
        topicId,
      });
      await sendCampaign(deps, projectId, c.id, null);
      t = performance.now();
      while ((await repo.getCampaign(db, projectId, c.id))!.fanoutCheckpoint !== FANOUT_DONE) {
        await runFanout(deps, c.id);
      }
      const ms = performance.now() - t;
      const n = Number((await pool.query(`select count(*) from emails where campaign_id = $1`, [c.id])).rows[0].count);
      console.log(
        `${label}, round ${round + 1}: ${n} emails in ${Math.round(ms)} ms (${Math.round(n / (ms / 1000))} a second)`,
      );
      results.set(label, [...(results.get(label) ?? []), ms]);
      // Same table sizes for every run.
      await pool.query(`delete from emails where campaign_id = $1`, [c.id]);
      await pool.query(`delete from graphile_worker._private_jobs`);
      await pool.query('vacuum emails');
    }
  }
  const base = Math.min(...results.get('no topic')!);
  for (const [label, runs] of results) {
    const best = Math.min(...runs);
    console.log(
      `${label}: ${runs.map((ms) => Math.round(ms)).join(' / ')} ms; best ${Math.round(best)} ms, ${(best / base).toFixed(2)}× no topic`,
    );
  }
} finally {
  await bench.drop();
}
