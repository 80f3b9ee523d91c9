import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../test/factories.js';
import { jobsDueNow } from '../../test/graphile-test.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { createVerifiedDomain, eventually, type TestDomain } from '../../test/sending-fixtures.js';
import { startSmtpSink, type SmtpSink } from '../../test/smtp-sink.js';
import { startWorker, type WorkerHandle } from '../worker/runner.js';
import { twoProportionPValue } from './experiment.stats.js';
import { LIVE_MAX_RECIPIENTS } from './figures.js';

const BROWSER =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36';

// A/B/n campaigns with a holdout, end to end over a real SMTP server (campaigns/experiment.ts).
describe('A/B/n campaigns', () => {
  let h: Harness;
  let sink: SmtpSink;
  let worker2: WorkerHandle | undefined;

  beforeAll(async () => {
    sink = await startSmtpSink();
    h = await createHarness({ env: { SMTP_URL: sink.url + '?pool=4' }, worker: true });
  });
  afterAll(async () => {
    await worker2?.stop();
    await h?.close();
    await sink?.close();
  });

  async function setup(n: number, tag: string): Promise<{ p: TestProject; d: TestDomain }> {
    const p = await createProject(h);
    const d = await createVerifiedDomain(h, p.id);
    await h.sql(
      `insert into contacts (id, project_id, email, subscribed)
       select gen_random_uuid(), $1, $2 || '-' || i || '@rcpt.test', true from generate_series(1, $3::int) i`,
      [p.id, tag, n],
    );
    return { p, d };
  }
  const create = (p: TestProject, d: TestDomain, extra: Record<string, unknown>) =>
    h.request('POST', '/campaigns', {
      key: p.secretKey,
      body: {
        name: 'Launch',
        subject: 'Plain subject',
        from: `news@${d.domain}`,
        body: '<p>Campaign body</p>',
        ...extra,
      },
    });
  const stats = async (p: TestProject, id: string) =>
    (await h.request('GET', `/campaigns/${id}/stats`, { key: p.secretKey })).body;
  const waitPhase = (p: TestProject, id: string, phase: string) =>
    eventually(
      async () => ((await stats(p, id)).experiment?.phase === phase ? true : undefined),
      60_000,
      `phase ${phase}`,
    );
  const waitSent = (p: TestProject, id: string) =>
    eventually(async () => ((await stats(p, id)).status === 'SENT' ? true : undefined), 60_000, 'campaign SENT');
  const received = (tag: string) => sink.messages.filter((m) => m.to.some((t) => t.startsWith(tag + '-')));
  const groups = async (id: string) =>
    Object.fromEntries(
      (
        await h.sql(`select grp, count(*)::int as n from campaign_groups where campaign_id = $1 group by grp`, [id])
      ).map((r) => [r.grp, r.n]),
    );

  it('tests 2 variants on 20 % with a 10 % holdout, then sends the winner on opens to exactly the rest, once each, across a worker restart', async () => {
    const { p, d } = await setup(200, 'ab');
    const c = await create(p, d, {
      variants: [
        { key: 'A', subject: 'Subject A' },
        { key: 'B', subject: 'Subject B', body: '<p>Body of B</p>' },
      ],
      experiment: { testPercent: 20, holdoutPercent: 10, metric: 'open', waitMinutes: 15 },
    });
    expect(c.status).toBe(201);
    expect(c.body.data).toMatchObject({
      variants: [
        { key: 'A', subject: 'Subject A' },
        { key: 'B', subject: 'Subject B', body: '<p>Body of B</p>' },
      ],
      experiment: { testPercent: 20, holdoutPercent: 10, metric: 'open', waitMinutes: 15 },
      winner: null,
    });
    const id = c.body.data.id;
    const send = await h.request('POST', `/campaigns/${id}/send`, { key: p.secretKey, body: {} });
    expect(send.status).toBe(200);
    // The holdout is part of the audience but gets no mail.
    expect(send.body.message).toBe('Campaign is being sent to 180 recipients');

    await waitPhase(p, id, 'waiting');
    expect((await stats(p, id)).totalRecipients).toBe(180);
    await eventually(async () => (received('ab').length === 40 ? true : undefined), 30_000, '40 test mails');
    const test = received('ab');
    expect(test.filter((m) => m.parsed.subject === 'Subject A')).toHaveLength(20);
    const b = test.filter((m) => m.parsed.subject === 'Subject B');
    expect(b).toHaveLength(20);
    expect(b[0].parsed.html).toContain('Body of B');
    expect(test.find((m) => m.parsed.subject === 'Subject A')!.parsed.html).toContain('Campaign body');
    expect(await groups(id)).toEqual({ holdout: 20, A: 20, B: 20 });
    const holdout = await h.sql(
      `select ct.email from campaign_groups g join contacts ct on ct.id = g.contact_id where g.campaign_id = $1 and g.grp = 'holdout'`,
      [id],
    );
    // The seed is recorded and each email names its variant.
    const s1 = await stats(p, id);
    expect(s1.experiment).toMatchObject({ phase: 'waiting', winner: null, seed: expect.any(Number), leader: 'A' });
    expect(s1.experiment.winnerDueAt).toEqual(expect.any(String));
    expect(
      await h.sql(`select variant, count(*)::int as n from emails where campaign_id = $1 group by 1 order by 1`, [id]),
    ).toEqual([
      { variant: 'A', n: 20 },
      { variant: 'B', n: 20 },
    ]);

    // Three people open B (a real browser's request through the tracking pixel).
    for (const m of b.slice(0, 3)) {
      const pixel = /src="([^"]+\/t\/o\/[^"]+)"/.exec(m.parsed.html as string)![1];
      const r = await fetch(pixel.replace(/^https?:\/\/[^/]+/, h.url), { headers: { 'user-agent': BROWSER } });
      expect(r.status).toBe(200);
    }
    // Apple Mail Privacy Protection fetches the pixel of one of A's mails: an open, not a person's.
    const a0 = test.find((m) => m.parsed.subject === 'Subject A')!;
    const mpp = /src="([^"]+\/t\/o\/[^"]+)"/.exec(a0.parsed.html as string)![1];
    expect(
      (await fetch(mpp.replace(/^https?:\/\/[^/]+/, h.url), { headers: { 'user-agent': 'Mozilla/5.0' } })).status,
    ).toBe(200);
    const s2 = await stats(p, id);
    expect(s2).toMatchObject({ openedCount: 4, humanOpenedCount: 3, humanOpenRate: 7.5 });
    expect(s2.experiment.leader).toBe('B');
    expect(s2.variants).toEqual([
      expect.objectContaining({
        key: 'A',
        contacts: 20,
        sent: 20,
        opens: 1,
        humanOpens: 0,
        rate: 0,
        pValue: expect.any(Number),
      }),
      expect.objectContaining({ key: 'B', contacts: 20, sent: 20, humanOpens: 3, opens: 3, rate: 15, pValue: null }),
    ]);

    // The worker goes away between the phases; the wait ends while a new one runs.
    await h.worker!.stop();
    worker2 = await startWorker(h.workerDeps!, 5);
    expect(await jobsDueNow(h, `campaign-winner:${id}`)).toBe(1);
    await waitSent(p, id);
    await eventually(async () => (received('ab').length === 180 ? true : undefined), 30_000, '180 mails in all');

    const all = received('ab');
    const rcpts = all.map((m) => m.to[0]);
    expect(new Set(rcpts).size).toBe(180);
    for (const r of holdout) expect(rcpts).not.toContain(r.email);
    const rest = all.filter((m) => !test.includes(m));
    expect(rest).toHaveLength(140);
    expect(rest.every((m) => m.parsed.subject === 'Subject B' && (m.parsed.html as string).includes('Body of B'))).toBe(
      true,
    );
    const s3 = await stats(p, id);
    expect(s3).toMatchObject({ status: 'SENT', sentCount: 180 });
    expect(s3.experiment).toMatchObject({ phase: 'done', winner: 'B', winnerChosenBy: 'auto', winnerDueAt: null });
    // The variants' figures stay those of their test groups.
    expect(s3.variants.map((v: { sent: number }) => v.sent)).toEqual([20, 20]);
    expect(
      await h.sql(`select count(*)::int as n from emails where campaign_id = $1 and variant = 'B' and winner_phase`, [
        id,
      ]),
    ).toEqual([{ n: 140 }]);
  });

  it('takes a winner by hand while waiting and reads the lift of a conversion event against the holdout', async () => {
    const { p, d } = await setup(100, 'hand');
    const c = await create(p, d, {
      variants: [{ key: 'A' }, { key: 'B', subject: 'Other subject' }],
      experiment: { testPercent: 40, holdoutPercent: 20, metric: 'event:signup', waitMinutes: 60 },
    });
    const id = c.body.data.id;
    const winner = (key: string) => h.request('POST', `/campaigns/${id}/winner`, { key: p.secretKey, body: { key } });
    // A test of variant B carries its subject; an unknown variant is refused.
    const test = await h.request('POST', `/campaigns/${id}/test`, {
      key: p.secretKey,
      body: { email: 'tester@hand.test', variant: 'B' },
    });
    expect(test.status).toBe(200);
    const [tested] = await eventually(
      async () => (sink.to('tester@hand.test').length ? sink.to('tester@hand.test') : undefined),
      15_000,
      'test mail',
    );
    expect(tested.parsed.subject).toBe('[TEST] Other subject');
    const unknown = await h.request('POST', `/campaigns/${id}/test`, {
      key: p.secretKey,
      body: { email: 'tester@hand.test', variant: 'Q' },
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.errors[0]).toMatchObject({ field: 'variant' });

    const early = await winner('A');
    expect(early.status).toBe(409);
    expect(early.body.error.message).toMatch(/has not started/);

    await h.request('POST', `/campaigns/${id}/send`, { key: p.secretKey, body: {} });
    await waitPhase(p, id, 'waiting');
    expect(await groups(id)).toEqual({ holdout: 20, A: 20, B: 20 });
    // Two of the holdout and five of A's group sign up after the start.
    const signUp = (grp: string, n: number) =>
      h.sql(
        `insert into events (id, project_id, contact_id, name, created_at)
         select gen_random_uuid(), $1, contact_id, 'signup', now() from campaign_groups where campaign_id = $2 and grp = $3 limit $4`,
        [p.id, id, grp, n],
      );
    await signUp('holdout', 2);
    await signUp('A', 5);

    const bad = await winner('Z');
    expect(bad.status).toBe(422);
    expect(bad.body.error.errors[0]).toMatchObject({ field: 'key' });
    const chosen = await winner('A');
    expect(chosen.status).toBe(200);
    expect(chosen.body).toMatchObject({ id, winner: 'A' });
    expect((await winner('B')).status).toBe(409);

    await waitSent(p, id);
    const s = await stats(p, id);
    expect(s.sentCount).toBe(80);
    expect(s.experiment).toMatchObject({ winner: 'A', winnerChosenBy: 'manual', leader: 'A' });
    expect(s.variants[0]).toMatchObject({ key: 'A', conversions: 5, rate: 25 });
    expect(s.variants[1]).toMatchObject({ key: 'B', conversions: 0, rate: 0 });
    // Holdout 2 of 20 (10 %), mailed 5 of 80 (6.25 %).
    expect(s.experiment.holdout).toMatchObject({
      contacts: 20,
      conversions: 2,
      conversionRate: 10,
      mailedConversionRate: 6.25,
      liftPoints: -3.75,
    });
    expect(s.experiment.holdout.pValue).toBeCloseTo(twoProportionPValue(5, 80, 2, 20)!, 6);
    const rest = await h.sql(
      `select count(*)::int as n from emails where campaign_id = $1 and winner_phase and variant = 'A' and subject = 'Plain subject'`,
      [id],
    );
    expect(rest).toEqual([{ n: 40 }]);
  });

  it('a pure split (testPercent 100) mails every variant to its third and has no winner', async () => {
    const { p, d } = await setup(30, 'split');
    const c = await create(p, d, {
      variants: [
        { key: 'A', subject: 'One' },
        { key: 'B', subject: 'Two' },
        { key: 'C', subject: 'Three' },
      ],
      experiment: { testPercent: 100, metric: 'click' },
    });
    const id = c.body.data.id;
    await h.request('POST', `/campaigns/${id}/send`, { key: p.secretKey, body: {} });
    await waitSent(p, id);
    expect(await groups(id)).toEqual({ A: 10, B: 10, C: 10 });
    await eventually(async () => (received('split').length === 30 ? true : undefined), 30_000, '30 mails');
    const subjects = received('split').map((m) => m.parsed.subject);
    for (const s of ['One', 'Two', 'Three']) expect(subjects.filter((x) => x === s)).toHaveLength(10);
    const s = await stats(p, id);
    expect(s.experiment).toMatchObject({ phase: 'done', winner: null, holdout: null, waitMinutes: 240 });
    const w = await h.request('POST', `/campaigns/${id}/winner`, { key: p.secretKey, body: { key: 'A' } });
    expect(w.status).toBe(409);
    expect(w.body.error.message).toMatch(/pure split/);
  });

  it('refuses experiments that cannot run, and changes nothing', async () => {
    const { p, d } = await setup(0, 'bad');
    const bad = async (extra: Record<string, unknown>, field: RegExp) => {
      const r = await create(p, d, extra);
      expect(r.status).toBe(422);
      expect(JSON.stringify(r.body.error.errors)).toMatch(field);
    };
    const experiment = { testPercent: 20, metric: 'open' };
    await bad({ variants: [{ key: 'A' }, { key: 'B' }] }, /experiment/);
    await bad({ experiment }, /variants/);
    await bad({ variants: [{ key: 'A' }], experiment }, /variants/);
    await bad({ variants: [{ key: 'A' }, { key: 'A' }], experiment }, /used twice/);
    await bad({ variants: [{ key: 'a' }, { key: 'B' }], experiment }, /key/);
    await bad(
      { variants: [{ key: 'A' }, { key: 'B' }], experiment: { testPercent: 60, holdoutPercent: 50, metric: 'open' } },
      /testPercent/,
    );
    await bad({ variants: [{ key: 'A' }, { key: 'B' }], experiment: { testPercent: 20, metric: 'views' } }, /metric/);
    await bad({ variants: [{ key: 'A' }, { key: 'B' }], experiment: { ...experiment, waitMinutes: 5 } }, /waitMinutes/);
    await bad({ variants: [{ key: 'A', body: '{% if x %}' }, { key: 'B' }], experiment }, /variants\.A\.body/);
    const other = await h.request('POST', '/campaigns', {
      key: p.secretKey,
      body: {
        name: 'x',
        subject: 's',
        body: 'b',
        from: `news@${d.domain}`,
        variants: [{ key: 'A', from: 'news@not-verified.test' }, { key: 'B' }],
        experiment,
      },
    });
    expect(other.status).toBe(403);
    expect(await h.sql(`select count(*)::int as n from campaigns where project_id = $1`, [p.id])).toEqual([{ n: 0 }]);
    const plain = await create(p, d, {});
    expect(
      (await h.request('POST', `/campaigns/${plain.body.data.id}/winner`, { key: p.secretKey, body: { key: 'A' } }))
        .status,
    ).toBe(409);
  });

  it('a campaign past 50,000 recipients answers from a snapshot of its figures, counted again in the background once 30 s old', async () => {
    const { p, d } = await setup(3, 'big');
    const id = (await create(p, d, {})).body.data.id;
    await h.request('POST', `/campaigns/${id}/send`, { key: p.secretKey, body: {} });
    await waitSent(p, id);
    await eventually(async () => (received('big').length === 3 ? true : undefined), 30_000, '3 mails');
    // As if the audience had been large: the figures now come from campaign_figures.
    await h.sql(`update campaigns set total_recipients = ${LIVE_MAX_RECIPIENTS + 1} where id = $1`, [id]);
    const first = await stats(p, id);
    expect(first).toMatchObject({ sentCount: 3, openedCount: 0 });
    expect(Date.now() - Date.parse(first.asOf)).toBeLessThan(10_000);
    expect(await h.sql(`select count(*)::int as n from campaign_figures where campaign_id = $1`, [id])).toEqual([
      { n: 1 },
    ]);

    const pixel = /src="([^"]+\/t\/o\/[^"]+)"/.exec(received('big')[0].parsed.html as string)![1];
    expect((await fetch(pixel.replace(/^https?:\/\/[^/]+/, h.url))).status).toBe(200);
    // A fresh snapshot is served as it is, by the stats, the campaign and the list alike.
    expect(await stats(p, id)).toMatchObject({ openedCount: 0, asOf: first.asOf });
    expect((await h.request('GET', `/campaigns/${id}`, { key: p.secretKey })).body.openedCount).toBe(0);
    const list = await h.request('GET', '/campaigns', { key: p.secretKey });
    expect(list.body.data.find((x: { id: string }) => x.id === id).openedCount).toBe(0);
    // Once older than 30 s it is still served at once, and counted again by a job.
    await h.sql(`update campaign_figures set counted_at = now() - interval '1 minute' where campaign_id = $1`, [id]);
    expect((await stats(p, id)).openedCount).toBe(0);
    await eventually(
      async () => ((await stats(p, id)).openedCount === 1 ? true : undefined),
      30_000,
      'snapshot counted again',
    );
    expect((await h.request('GET', `/campaigns/${id}`, { key: p.secretKey })).body.openedCount).toBe(1);
  });

  it('two-proportion z-test p-values', () => {
    // 30/100 against 20/100: pooled 0.25, z = 1.633, two-sided p = 0.1025.
    expect(twoProportionPValue(30, 100, 20, 100)).toBeCloseTo(0.1025, 3);
    expect(twoProportionPValue(300, 1000, 200, 1000)).toBeLessThan(0.0001);
    expect(twoProportionPValue(10, 100, 10, 100)).toBeCloseTo(1, 6);
    expect(twoProportionPValue(0, 100, 0, 100)).toBeNull();
    expect(twoProportionPValue(1, 0, 1, 10)).toBeNull();
  });
});
