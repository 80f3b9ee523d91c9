import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../../test/factories.js';
import { createHarness, type Harness } from '../../../test/harness.js';
import { createVerifiedDomain, eventually, type TestDomain } from '../../../test/sending-fixtures.js';
import { startSmtpSink, type SmtpSink } from '../../../test/smtp-sink.js';
import { CLICK_DEDUPE_SECONDS } from '../delivery/outcomes.js';
import { SWEEP_SECONDS } from './machine.js';

const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const BING_PREVIEW = 'Mozilla/5.0 (Windows NT 10.0; WOW64) AppleWebKit/537.36 (KHTML, like Gecko) BingPreview/1.0b';

// Tracking hits that must not count, or not as a person's: repeats within a minute, machine activity
// (emails/tracking/machine.ts), and links of emails that are gone.
describe('tracking: duplicates, machines and deleted emails', () => {
  let h: Harness;
  let sink: SmtpSink;
  let p: TestProject;
  let d: TestDomain;

  beforeAll(async () => {
    sink = await startSmtpSink();
    h = await createHarness({ env: { SMTP_URL: sink.url }, worker: true });
    p = await createProject(h);
    d = await createVerifiedDomain(h, p.id);
  });
  afterAll(async () => {
    await h?.close();
    await sink?.close();
  });

  /**
   * Sends one tracked mail with two links and returns its id, contact, click paths and pixel path.
   * Unless `atDelivery`, the clock then moves past the sweep window, so that clicking both links is
   * not a scanner's sweep.
   */
  async function sendTracked(to: string, project = p, domain = d, atDelivery = false) {
    const res = await h.request('POST', '/v1/send', {
      key: project.secretKey,
      body: {
        to,
        from: `hi@${domain.domain}`,
        subject: 'Links',
        body: '<p><a href="https://example.com/a">a</a> <a href="https://example.com/b">b</a></p>',
      },
    });
    expect(res.status).toBe(200);
    const id = res.body.data.emails[0].email as string;
    const mail = await eventually(async () => sink.to(to)[0], 15_000, `mail to ${to}`);
    await eventually(
      async () => (await h.sql('select status from emails where id = $1', [id]))[0].status === 'DELIVERED',
      5000,
      'DELIVERED',
    );
    if (!atDelivery) h.clock.advance((SWEEP_SECONDS + 1) * 1000);
    const html = String(mail.parsed.html);
    const [a, b] = [...html.matchAll(/href="[^"]*(\/t\/c\/[^"]+)"/g)].map((m) => m[1]);
    const pixel = /src="[^"]*(\/t\/o\/[^"]+)"/.exec(html)![1];
    return { id, contactId: res.body.data.emails[0].contact.id as string, a, b, pixel };
  }
  const events = async (id: string, name: string) =>
    (
      await h.sql(
        `select data->>'link' as link from events where email_id = $1 and name = $2 order by created_at, id`,
        [id, name],
      )
    ).map((r) => r.link);

  it('records one click per link within a minute, still redirecting every time, and again after it', async () => {
    const m = await sendTracked('double@example.test');
    for (let i = 0; i < 3; i++) {
      const res = await h.request('GET', m.a);
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe('https://example.com/a');
    }
    expect((await h.request('GET', m.b)).status).toBe(302);
    expect(await events(m.id, 'email.click')).toEqual(['https://example.com/a', 'https://example.com/b']);
    expect(await events(m.id, 'email.open')).toHaveLength(1);

    h.clock.advance((CLICK_DEDUPE_SECONDS - 1) * 1000);
    expect((await h.request('GET', m.a)).status).toBe(302);
    expect(await events(m.id, 'email.click')).toHaveLength(2);
    h.clock.advance(2000);
    expect((await h.request('GET', m.a)).status).toBe(302);
    expect(await events(m.id, 'email.click')).toEqual([
      'https://example.com/a',
      'https://example.com/b',
      'https://example.com/a',
    ]);
  });

  it('records one click and one open when the same link and pixel are hit concurrently', async () => {
    const m = await sendTracked('burst@example.test');
    const hits = await Promise.all([
      ...Array.from({ length: 12 }, () => h.request('GET', m.a)),
      ...Array.from({ length: 12 }, () => h.request('GET', m.pixel)),
    ]);
    expect(hits.map((r) => r.status)).toEqual([...Array(12).fill(302), ...Array(12).fill(200)]);
    expect(await events(m.id, 'email.click')).toEqual(['https://example.com/a']);
    expect(await events(m.id, 'email.open')).toHaveLength(1);
    expect((await h.sql('select status from emails where id = $1', [m.id]))[0].status).toBe('CLICKED');
  });

  const humanTimes = async (id: string) =>
    (
      await h.sql(
        `select opened_at is not null as opened, clicked_at is not null as clicked,
           human_opened_at is not null as "humanOpened", human_clicked_at is not null as "humanClicked"
         from emails where id = $1`,
        [id],
      )
    )[0];
  const flags = async (id: string, name: string) =>
    (
      await h.sql(
        `select data->>'link' as link, (data->>'machine')::boolean as machine, data->>'machineReason' as reason
         from events where email_id = $1 and name = $2 order by created_at, id`,
        [id, name],
      )
    ).map((r) => [r.link, r.machine, r.reason]);

  const linkClicks = (id: string) =>
    h.sql(
      `select position, url, clicks, human_clicks from email_link_clicks where email_id = $1 order by position, url`,
      [id],
    );

  it("keeps an MPP prefetch as a machine open, and the reader's later open as the human one", async () => {
    const m = await sendTracked('mpp@example.test');
    const mpp = await h.request('GET', m.pixel, { headers: { 'user-agent': 'Mozilla/5.0' } });
    expect(mpp.status).toBe(200);
    expect(await flags(m.id, 'email.open')).toEqual([[null, true, 'apple-mpp']]);
    expect(await humanTimes(m.id)).toEqual({ opened: true, clicked: false, humanOpened: false, humanClicked: false });
    expect((await h.request('GET', m.pixel, { headers: { 'user-agent': CHROME } })).status).toBe(200);
    // The human open sets its time, and writes no second email.open.
    expect(await humanTimes(m.id)).toMatchObject({ humanOpened: true });
    expect(await flags(m.id, 'email.open')).toHaveLength(1);
  });

  it("keeps a scanner's click and a HEAD as machine clicks, and still counts the person's click after them", async () => {
    const m = await sendTracked('scanned@example.test');
    expect((await h.request('GET', m.a, { headers: { 'user-agent': BING_PREVIEW } })).status).toBe(302);
    const head = await h.request('HEAD', m.b, { headers: { 'user-agent': CHROME } });
    expect(head.status).toBe(302);
    expect(head.headers.get('location')).toBe('https://example.com/b');
    expect(await humanTimes(m.id)).toEqual({ opened: true, clicked: true, humanOpened: false, humanClicked: false });
    expect(await flags(m.id, 'email.open')).toEqual([[null, true, 'scanner']]);
    expect((await h.request('GET', m.a, { headers: { 'user-agent': CHROME } })).status).toBe(302);
    expect(await flags(m.id, 'email.click')).toEqual([
      ['https://example.com/a', true, 'scanner'],
      ['https://example.com/b', true, 'head'],
      ['https://example.com/a', false, null],
    ]);
    expect(await humanTimes(m.id)).toEqual({ opened: true, clicked: true, humanOpened: true, humanClicked: true });
    // Each click names its link's position in the mail.
    const positions = await h.sql(
      `select data->'position' as position from events where email_id = $1 and name = 'email.click' order by created_at, id`,
      [m.id],
    );
    expect(positions.map((r) => r.position)).toEqual([0, 1, 0]);
    // The per-link reports' summary counts them per link: both clicks of a, the person's one of b.
    expect(await linkClicks(m.id)).toEqual([
      { position: 0, url: 'https://example.com/a', clicks: 2, human_clicks: 1 },
      { position: 1, url: 'https://example.com/b', clicks: 1, human_clicks: 0 },
    ]);
  });

  it('turns every link clicked at delivery into machine activity, the earlier clicks included', async () => {
    const m = await sendTracked('swept@example.test', p, d, true);
    await h.request('GET', m.pixel, { headers: { 'user-agent': CHROME } });
    await h.request('GET', m.a, { headers: { 'user-agent': CHROME } });
    expect(await humanTimes(m.id)).toMatchObject({ humanOpened: true, humanClicked: true });
    await h.request('GET', m.b, { headers: { 'user-agent': CHROME } });
    expect(await flags(m.id, 'email.click')).toEqual([
      ['https://example.com/a', true, 'link-sweep'],
      ['https://example.com/b', true, 'link-sweep'],
    ]);
    expect(await flags(m.id, 'email.open')).toEqual([[null, true, 'link-sweep']]);
    expect(await humanTimes(m.id)).toEqual({ opened: true, clicked: true, humanOpened: false, humanClicked: false });
    expect((await linkClicks(m.id)).map((l) => [l.clicks, l.human_clicks])).toEqual([
      [1, 0],
      [1, 0],
    ]);
    // After the window, the reader's click is theirs.
    h.clock.advance((SWEEP_SECONDS + 1) * 1000);
    await h.request('GET', m.a, { headers: { 'user-agent': CHROME } });
    expect(await humanTimes(m.id)).toMatchObject({ humanOpened: true, humanClicked: true });
  });

  it('answers 404 without redirecting or recording for an email whose contact was deleted', async () => {
    const m = await sendTracked('forget-me@example.test');
    expect((await h.request('DELETE', `/contacts/${m.contactId}`, { key: p.secretKey })).status).toBeLessThan(300);
    expect((await h.sql('select contact_id from emails where id = $1', [m.id]))[0].contact_id).toBeNull();
    for (const path of [m.a, m.pixel]) {
      const res = await h.request('GET', path);
      expect(res.status, path).toBe(404);
      expect(res.headers.get('location')).toBeNull();
      expect(res.body.error.code).toBe('RESOURCE_NOT_FOUND');
    }
    expect(await h.sql(`select name from events where email_id = $1`, [m.id])).toEqual([]);
    expect((await h.sql('select status from emails where id = $1', [m.id]))[0].status).toBe('DELIVERED');
  });

  it('answers 404 for the links of an email deleted by a project reset', async () => {
    const q = await createProject(h);
    const qd = await createVerifiedDomain(h, q.id);
    const m = await sendTracked('reset@example.test', q, qd);
    expect((await h.request('POST', `/users/@me/projects/${q.id}/reset`, { cookie: q.owner.cookie })).status).toBe(200);
    for (const path of [m.a, m.b, m.pixel]) expect((await h.request('GET', path)).status, path).toBe(404);
    expect(await h.sql(`select 1 from events where email_id = $1`, [m.id])).toEqual([]);
  });
});
