import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../test/factories.js';
import { JOBS, jobsDueNow } from '../../test/graphile-test.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { createVerifiedDomain, eventually, type TestDomain } from '../../test/sending-fixtures.js';
import { startSmtpSink, type SmtpSink } from '../../test/smtp-sink.js';
import { isoDays, nextLocalTime, nextOpening, type Weekday } from './delivery-window.js';

// Send windows and local time (issue 37): due moments per mail, jobs at those moments, mail when due.
describe('campaign delivery: spread, local time, windows', () => {
  let h: Harness;
  let sink: SmtpSink;

  beforeAll(async () => {
    sink = await startSmtpSink();
    h = await createHarness({ env: { SMTP_URL: sink.url + '?pool=4' }, worker: true });
  });
  afterAll(async () => {
    await h?.close();
    await sink?.close();
  });

  async function setup(timeZone = 'UTC'): Promise<{ p: TestProject; d: TestDomain }> {
    const p = await createProject(h);
    const d = await createVerifiedDomain(h, p.id);
    await h.sql(`update projects set time_zone = $2 where id = $1`, [p.id, timeZone]);
    return { p, d };
  }

  /** Contacts `<tag>-<i>@rcpt.test` for i in 1..n, with `timezone` from `zone(i)` (undefined: none). */
  async function contacts(
    p: TestProject,
    tag: string,
    n: number,
    zone: (i: number) => string | undefined = () => undefined,
  ) {
    const zones = Array.from({ length: n }, (_, i) => zone(i + 1) ?? null);
    await h.sql(
      `insert into contacts (id, project_id, email, subscribed, data)
       select gen_random_uuid(), $1, $2 || '-' || i || '@rcpt.test', true,
              case when z is null then '{}'::jsonb else jsonb_build_object('timezone', z) end
       from unnest($3::text[]) with ordinality as t(z, i)`,
      [p.id, tag, zones],
    );
  }

  const create = (p: TestProject, d: TestDomain, extra: Record<string, unknown> = {}) =>
    h.request('POST', '/campaigns', {
      key: p.secretKey,
      body: { name: 'Morning news', subject: 'Hello', from: `news@${d.domain}`, body: '<p>Hi</p>', ...extra },
    });
  const send = (p: TestProject, id: string) => h.request('POST', `/campaigns/${id}/send`, { key: p.secretKey });
  const received = (tag: string) => sink.messages.filter((m) => m.to.some((t) => t.startsWith(tag + '-')));

  /** Waits for the fan-out to finish, then the campaign's emails with their due moment and job run_at. */
  async function fannedOut(p: TestProject, id: string, n: number) {
    await eventually(
      async () => {
        const r = await h.sql(`select count(*)::int as n from emails where campaign_id = $1`, [id]);
        return r[0].n === n ? true : undefined;
      },
      30_000,
      'fan-out',
    );
    return h.sql(
      `select e.to_email, e.status, e.due_at, j.run_at, extract(epoch from j.run_at - now()) as run_in
       from emails e left join ${JOBS} j on (j.payload::jsonb)->'emailIds' ? e.id::text
       where e.campaign_id = $1 order by e.to_email`,
      [id],
    );
  }

  it('sends a local-time campaign at 09:00 in each contact’s own zone, the project’s zone when unknown', async () => {
    const { p, d } = await setup('Europe/London');
    const zones = ['America/New_York', 'Europe/Berlin', 'Asia/Tokyo', 'Mars/Olympus_Mons', undefined];
    await contacts(p, 'lt', 5, (i) => zones[i - 1]);
    // Wednesday 2027-07-14, 06:59:56 UTC: 08:59:56 in Berlin (CEST), 15:59 in Tokyo, 02:59 in New York.
    h.clock.set(new Date('2027-07-14T06:59:56Z'));
    const c = await create(p, d, { delivery: { mode: 'local-time', localTime: '09:00' } });
    expect(c.status).toBe(201);
    expect(c.body.data.delivery).toEqual({ mode: 'local-time', localTime: '09:00', endsAt: null });
    expect((await send(p, c.body.data.id)).status).toBe(200);
    const rows = await fannedOut(p, c.body.data.id, 5);
    const due = Object.fromEntries(rows.map((r) => [r.to_email.split('@')[0], new Date(r.due_at).toISOString()]));
    expect(due).toEqual({
      'lt-1': '2027-07-14T13:00:00.000Z', // 09:00 EDT
      'lt-2': '2027-07-14T07:00:00.000Z', // 09:00 CEST, in 4 s
      'lt-3': '2027-07-15T00:00:00.000Z', // Tokyo's 09:00 today has passed: tomorrow's
      'lt-4': '2027-07-14T08:00:00.000Z', // invalid zone: the project's (London, BST)
      'lt-5': '2027-07-14T08:00:00.000Z', // no zone: the project's
    });
    // Each job runs after the same delay as its mail is due in business time.
    for (const r of rows) {
      if (r.status !== 'PENDING') continue;
      const wait = (new Date(r.due_at).getTime() - h.clock.now().getTime()) / 1000;
      expect(Number(r.run_in)).toBeGreaterThan(wait - 10);
      expect(Number(r.run_in)).toBeLessThan(wait + 1);
    }
    expect(Number(rows.find((r) => r.to_email.startsWith('lt-3@'))!.run_in)).toBeGreaterThan(16 * 3600);
    // Berlin's mail arrives when due; the others wait.
    await eventually(async () => (received('lt').length === 1 ? true : undefined), 20_000, "Berlin's mail");
    expect(received('lt')[0].to).toEqual(['lt-2@rcpt.test']);
    const pending = await h.sql(`select count(*)::int as n from emails where campaign_id = $1 and status = 'PENDING'`, [
      c.body.data.id,
    ]);
    expect(pending[0].n).toBe(4);
    // The finalize check does not poll every second while the rest waits: it looks again when the
    // next mail is due (the project zone's, London 09:00 BST, in about an hour).
    await eventually(
      async () => {
        const [j] = await h.sql(`select extract(epoch from run_at - now()) as s from ${JOBS} j where key = $1`, [
          `campaign-finalize:${c.body.data.id}`,
        ]);
        return j && Number(j.s) > 50 * 60 ? true : undefined;
      },
      20_000,
      'finalize check at the next due mail',
    );
    // The campaign says when its last mail is due.
    const got = await h.request('GET', `/campaigns/${c.body.data.id}`, { key: p.secretKey });
    expect(got.body.delivery.endsAt).toBe('2027-07-15T00:00:00.000Z');
    // The rest goes out when due (brought forward here), each once.
    await jobsDueNow(h);
    await eventually(async () => (received('lt').length === 5 ? true : undefined), 20_000, 'all mail');
    expect(new Set(received('lt').flatMap((m) => m.to)).size).toBe(5);
  });

  it('spreads a campaign over 2 hours along the even curve', async () => {
    const { p, d } = await setup();
    const n = 300;
    await contacts(p, 'sp', n);
    h.clock.set(new Date('2027-07-14T10:00:00Z'));
    const c = await create(p, d, { delivery: { mode: 'spread', spreadHours: 2 } });
    expect(c.body.data.delivery).toMatchObject({ mode: 'spread', spreadHours: 2 });
    await send(p, c.body.data.id);
    const rows = await fannedOut(p, c.body.data.id, n);
    const got = await h.request('GET', `/campaigns/${c.body.data.id}`, { key: p.secretKey });
    const start = new Date(got.body.sentAt).getTime();
    const span = 2 * 3600_000;
    // Hand-off moments (job run_at, as offsets from the start) in order: the k-th within 10 % of k/n.
    const offsets = rows.map((r) => new Date(r.due_at).getTime() - start).sort((a, b) => a - b);
    offsets.forEach((o, k) => expect(Math.abs(o - (k / n) * span)).toBeLessThanOrEqual(0.1 * span));
    // Each 12-minute slice holds a tenth of the mail (30 ± 3).
    for (let s = 0; s < 10; s++) {
      const inSlice = offsets.filter((o) => o >= (s * span) / 10 && o < ((s + 1) * span) / 10).length;
      expect(Math.abs(inSlice - n / 10)).toBeLessThanOrEqual(n / 100);
    }
    // The jobs follow the same curve: the last one runs about 2 hours from now, none before the start.
    const runIn = rows.map((r) => Number(r.run_in)).sort((a, b) => a - b);
    expect(runIn[0]).toBeLessThan(5);
    expect(runIn[n - 1]).toBeGreaterThan(7200 * ((n - 1) / n) - 60);
    expect(runIn[n - 1]).toBeLessThan(7200);
    expect(new Date(got.body.delivery.endsAt).getTime() - start).toBe(Math.round(((n - 1) / n) * span));
    // Mail due now goes now; every mail arrives once when its job runs.
    await eventually(async () => (received('sp').length >= 1 ? true : undefined), 20_000, 'first spread mail');
    expect(received('sp').length).toBeLessThan(10);
    await jobsDueNow(h);
    await eventually(async () => (received('sp').length === n ? true : undefined), 60_000, 'all spread mail');
  });

  it('holds mail started outside the window until the window opens (project zone)', async () => {
    const { p, d } = await setup('Europe/Berlin');
    await contacts(p, 'win', 3);
    // Wednesday 22:00 in Berlin.
    h.clock.set(new Date('2027-07-14T20:00:00Z'));
    const window = { from: '09:00', to: '17:00', days: ['mon', 'tue', 'wed', 'thu', 'fri'] };
    const c = await create(p, d, { delivery: { mode: 'now', window } });
    expect(c.body.data.delivery).toEqual({ mode: 'now', window, endsAt: null });
    await send(p, c.body.data.id);
    const rows = await fannedOut(p, c.body.data.id, 3);
    for (const r of rows) {
      expect(new Date(r.due_at).toISOString()).toBe('2027-07-15T07:00:00.000Z'); // Thursday 09:00
      expect(Number(r.run_in)).toBeGreaterThan(11 * 3600 - 60);
    }
    // The preview shows the same: all three in Thursday's 09:00 hour.
    const prev = await h.request('GET', `/campaigns/${c.body.data.id}/delivery-preview`, { key: p.secretKey });
    expect(prev.status).toBe(200);
    expect(prev.body.buckets).toEqual([{ at: '2027-07-15T07:00:00.000Z', count: 3 }]);
    expect(received('win')).toHaveLength(0);
    await jobsDueNow(h);
    await eventually(async () => (received('win').length === 3 ? true : undefined), 20_000, 'window mail');
  });

  it('sends at once inside the window, and plain campaigns keep today’s behaviour', async () => {
    const { p, d } = await setup('Europe/Berlin');
    await contacts(p, 'open', 2);
    h.clock.set(new Date('2027-07-14T10:00:00Z')); // Wednesday 12:00 in Berlin
    const c = await create(p, d, { delivery: { mode: 'now', window: { from: '09:00', to: '17:00', days: ['wed'] } } });
    await send(p, c.body.data.id);
    await eventually(async () => (received('open').length === 2 ? true : undefined), 20_000, 'mail inside the window');
    const plain = await create(p, d);
    expect(plain.body.data.delivery).toEqual({ mode: 'now', endsAt: null });
    const rows = await h.sql(`select delivery from campaigns where id = $1`, [plain.body.data.id]);
    expect(rows[0].delivery).toBeNull();
  });

  it('previews a local-time send per hour from the audience’s zones', async () => {
    const { p, d } = await setup('UTC');
    await contacts(p, 'pv', 6, (i) => (i <= 3 ? 'Asia/Tokyo' : i <= 5 ? 'America/New_York' : undefined));
    h.clock.set(new Date('2027-07-14T06:00:00Z'));
    const c = await create(p, d, { delivery: { mode: 'local-time', localTime: '09:30' } });
    const prev = await h.request('GET', `/campaigns/${c.body.data.id}/delivery-preview`, { key: p.secretKey });
    expect(prev.body).toEqual({
      start: expect.stringMatching(/^2027-07-14T06:00:00/),
      total: 6,
      buckets: [
        { at: '2027-07-14T09:00:00.000Z', count: 1 }, // UTC 09:30
        { at: '2027-07-14T13:00:00.000Z', count: 2 }, // New York 09:30 EDT
        { at: '2027-07-15T00:00:00.000Z', count: 3 }, // Tokyo 09:30 tomorrow
      ],
    });
    // The composer's unsaved choice, given in the query, is drawn instead of the stored one.
    const url = `/campaigns/${c.body.data.id}/delivery-preview`;
    const spread = await h.request('GET', `${url}?mode=spread&spreadHours=2`, { key: p.secretKey });
    expect(spread.body.buckets.map((b: { count: number }) => b.count)).toEqual([3, 3]);
    const bad = await h.request('GET', `${url}?mode=local-time&localTime=25:00`, { key: p.secretKey });
    expect(bad.status).toBe(422);
    expect(bad.body.error.errors[0].field).toBe('delivery.localTime');
  });

  it('computes the same moments in SQL (migration 0033) as delivery-window.ts, across DST changes', async () => {
    const cases: Array<[string, string, string, Weekday[] | null]> = [
      ['2027-03-13T15:00:00Z', 'America/New_York', '09:00', null], // Saturday → Sunday after spring forward
      ['2027-03-14T06:00:00Z', 'America/New_York', '02:30', null], // a time the change skips
      ['2027-11-07T04:00:00Z', 'America/New_York', '01:30', null], // a time the change repeats
      ['2027-03-28T00:30:00Z', 'Europe/Berlin', '02:30', null],
      ['2027-10-30T08:00:00Z', 'Europe/Berlin', '09:00', ['sun', 'mon']],
      ['2027-07-14T23:30:00Z', 'Asia/Tokyo', '09:00', ['fri']],
      ['2027-07-14T07:00:00Z', 'Europe/Berlin', '09:00', null], // exactly now
    ];
    for (const [t, zone, at, days] of cases) {
      const [r] = await h.sql(`select pigeon_next_local($1::timestamptz, $2, $3::time, $4::int[]) as v`, [
        t,
        zone,
        at,
        days ? isoDays(days) : null,
      ]);
      expect(new Date(r.v).toISOString(), `${t} ${zone} ${at}`).toBe(
        nextLocalTime(new Date(t), zone, at, days ?? undefined).toISOString(),
      );
    }
    const w = { from: '09:00', to: '17:00', days: ['mon', 'tue', 'wed', 'thu', 'fri'] as Weekday[] };
    for (const t of ['2027-07-14T10:00:00Z', '2027-07-14T20:00:00Z', '2027-07-17T10:00:00Z', '2027-03-26T16:30:00Z']) {
      const [r] = await h.sql(
        `select pigeon_window_at($1::timestamptz, 'Europe/Berlin', '09:00'::time, '17:00'::time, $2::int[]) as v`,
        [t, isoDays(w.days)],
      );
      expect(new Date(r.v).toISOString(), t).toBe(nextOpening(new Date(t), 'Europe/Berlin', w).toISOString());
    }
  });

  it('refuses invalid delivery settings with 422 naming the field, writing nothing', async () => {
    const { p, d } = await setup();
    const cases: Array<[unknown, string]> = [
      [{ mode: 'spread' }, 'delivery.spreadHours'],
      [{ mode: 'spread', spreadHours: 0 }, 'delivery.spreadHours'],
      [{ mode: 'spread', spreadHours: 73 }, 'delivery.spreadHours'],
      [{ mode: 'local-time' }, 'delivery.localTime'],
      [{ mode: 'local-time', localTime: '25:00' }, 'delivery.localTime'],
      [{ mode: 'local-time', localTime: '9am' }, 'delivery.localTime'],
      [{ mode: 'later' }, 'delivery.mode'],
      [{ mode: 'now', window: { from: '09:00', to: '17:00', days: [] } }, 'delivery.window.days'],
      [{ mode: 'now', window: { from: '09:00', to: '17:00', days: ['mon', 'mon'] } }, 'delivery.window.days'],
      [{ mode: 'now', window: { from: '09:00', to: '17:00', days: ['monday'] } }, 'delivery.window.days.0'],
      [{ mode: 'now', window: { from: '17:00', to: '09:00', days: ['mon'] } }, 'delivery.window.to'],
      [
        { mode: 'local-time', localTime: '08:00', window: { from: '09:00', to: '17:00', days: ['mon'] } },
        'delivery.localTime',
      ],
    ];
    for (const [delivery, field] of cases) {
      const r = await create(p, d, { delivery });
      expect(r.status, JSON.stringify(delivery)).toBe(422);
      expect(
        r.body.error.errors.map((e: { field: string }) => e.field),
        JSON.stringify(delivery),
      ).toContain(field);
      expect(r.body.error.message).not.toMatch(/^\d{3}/);
    }
    // An A/B test needs its test mail at once.
    const ab = await create(p, d, {
      variants: [
        { key: 'A', subject: 'A' },
        { key: 'B', subject: 'B' },
      ],
      experiment: { testPercent: 20, metric: 'open' },
      delivery: { mode: 'spread', spreadHours: 3 },
    });
    expect(ab.status).toBe(422);
    expect(ab.body.error.errors[0].field).toBe('delivery.mode');
    expect(ab.body.error.message).toMatch(/test mail at once/);
    // An update is checked the same way and leaves the campaign as it was.
    const ok = await create(p, d, { delivery: { mode: 'spread', spreadHours: 4 } });
    const put = await h.request('PUT', `/campaigns/${ok.body.data.id}`, {
      key: p.secretKey,
      body: { name: 'x', subject: 'Hello', from: `news@${d.domain}`, body: '<p>Hi</p>', delivery: { mode: 'spread' } },
    });
    expect(put.status).toBe(422);
    const rows = await h.sql(`select name, delivery from campaigns where project_id = $1`, [p.id]);
    expect(rows).toEqual([{ name: 'Morning news', delivery: { mode: 'spread', spreadHours: 4 } }]);
  });

  it('takes a contact’s time zone from /v1/track data and refuses a name that is no IANA zone', async () => {
    const { p } = await setup();
    const bad = await h.request('POST', '/v1/track', {
      key: p.publicKey,
      body: { email: 'tz@rcpt.test', event: 'visited', data: { timezone: 'Mars/Olympus_Mons' } },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error.errors[0].field).toBe('data.timezone');
    expect(await h.sql(`select 1 from contacts where project_id = $1`, [p.id])).toHaveLength(0);
    const good = await h.request('POST', '/v1/track', {
      key: p.publicKey,
      body: { email: 'tz@rcpt.test', event: 'visited', data: { timezone: 'europe/berlin' } },
    });
    expect(good.status).toBeLessThan(300);
    const rows = await h.sql(`select data->>'timezone' as tz from contacts where project_id = $1`, [p.id]);
    expect(rows).toEqual([{ tz: 'Europe/Berlin' }]);
  });
});
