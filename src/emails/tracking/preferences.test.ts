import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../../test/factories.js';
import { createHarness, type Harness } from '../../../test/harness.js';
import { createVerifiedDomain, eventually, rawHeader, type TestDomain } from '../../../test/sending-fixtures.js';
import { startSmtpSink, type SmtpSink } from '../../../test/smtp-sink.js';
import { runFanout } from '../../campaigns/fanout.js';
import { startWorker, type WorkerHandle } from '../../worker/runner.js';
import { contactToken } from '../render/tokens.js';

// Issue 35: the one-click link of a topic mail leaves that topic only; the preference centre changes
// topics, pauses and unsubscribes without JavaScript (plain form posts); a forged token changes nothing.
describe('preference centre and per-topic one-click unsubscribe', () => {
  let h: Harness;
  let sink: SmtpSink;
  let worker: WorkerHandle;

  beforeAll(async () => {
    sink = await startSmtpSink();
    h = await createHarness({ env: { SMTP_URL: sink.url } });
    worker = await startWorker(h.deps, 2);
  });
  afterAll(async () => {
    await worker?.stop();
    await h?.close();
    await sink?.close();
  });

  const topic = async (p: TestProject, name: string, extra: Record<string, unknown> = {}) => {
    const res = await h.request('POST', '/topics', { key: p.secretKey, body: { name, default: 'opt-in', ...extra } });
    expect(res.status, res.text).toBe(201);
    return res.body.id as string;
  };
  const contact = async (p: TestProject, email: string, topics: Record<string, boolean>) => {
    const res = await h.request('POST', '/contacts', { key: p.secretKey, body: { email, subscribed: true, topics } });
    expect(res.status, res.text).toBe(201);
    return res.body.id as string;
  };
  /** Sends a MARKETING campaign to `topicId` and waits until its mails settled; @returns the statuses by address. */
  const sendCampaign = async (p: TestProject, d: TestDomain, topicId: string, subject: string) => {
    const c = await h.request('POST', '/campaigns', {
      key: p.secretKey,
      body: { name: subject, subject, body: '<p>Hello</p>', from: `news@${d.domain}`, type: 'MARKETING', topicId },
    });
    expect(c.status, c.text).toBe(201);
    const id = c.body.data.id as string;
    expect((await h.request('POST', `/campaigns/${id}/send`, { key: p.secretKey })).status).toBe(200);
    await runFanout(h.deps, id);
    return eventually(async () => {
      const rows = await h.sql<{ to_email: string; status: string }>(
        'select to_email, status from emails where campaign_id = $1 order by to_email',
        [id],
      );
      return rows.every((r) => r.status !== 'PENDING' && r.status !== 'SENDING') ? rows : undefined;
    }, 30_000);
  };
  const form = (body: Record<string, string>) => ({
    raw: true,
    body: new URLSearchParams(body).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
  });
  const membership = async (contactId: string) =>
    Object.fromEntries(
      (
        await h.sql<{ name: string; subscribed: boolean }>(
          `select t.name, ct.subscribed from contact_topics ct join topics t on t.id = ct.topic_id where ct.contact_id = $1`,
          [contactId],
        )
      ).map((r) => [r.name, r.subscribed]),
    );
  const consent = (contactId: string) =>
    h.sql<{ action: string; source: string; topic_id: string | null; ip: string | null }>(
      'select action, source, topic_id, ip from consent_events where contact_id = $1 order by id',
      [contactId],
    );

  it('a one-click POST from a topic mail leaves only that topic; the contact still gets the other topic', async () => {
    const p = await createProject(h);
    const d = await createVerifiedDomain(h, p.id);
    const releases = await topic(p, 'Release notes');
    const digest = await topic(p, 'Weekly digest');
    const id = await contact(p, 'reader@one-click.test', { 'Release notes': true, 'Weekly digest': true });

    expect(await sendCampaign(p, d, releases, 'v2 is out')).toEqual([
      { to_email: 'reader@one-click.test', status: 'DELIVERED' },
    ]);
    const mail = sink.messages.find((m) => m.parsed.subject === 'v2 is out')!;
    const header = rawHeader(mail.raw, 'List-Unsubscribe')!;
    const oneClick = /<(https?:\/\/[^>]+)>/.exec(header)![1];
    expect(oneClick).toBe(`${h.url}/unsubscribe/${contactToken(h.deps.secret, id, releases)}`);
    expect(rawHeader(mail.raw, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
    // The footer names the topic and links to the preference centre.
    const html = String(mail.parsed.html);
    expect(html).toContain('You received this email because you subscribed to Release notes.');
    expect(html).toContain('>Unsubscribe from Release notes</a>');
    expect(html).toContain(`${h.url}/preferences/${contactToken(h.deps.secret, id)}`);

    // What a mail provider sends (RFC 8058 §3.2).
    const post = await h.request('POST', oneClick.slice(h.url.length), {
      raw: true,
      body: 'List-Unsubscribe=One-Click',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'MailProvider/1.0' },
    });
    expect(post.status).toBe(200);
    expect(post.text).toContain('<h1>Unsubscribed from Release notes</h1>');
    expect(await membership(id)).toEqual({ 'Release notes': false, 'Weekly digest': true });
    const [c] = await h.sql('select subscribed from contacts where id = $1', [id]);
    expect(c.subscribed).toBe(true);
    const entries = await consent(id);
    expect(entries.at(-1)).toMatchObject({ action: 'left', source: 'one-click', topic_id: releases });
    expect(entries.at(-1)!.ip).toBeTruthy();
    const events = await h.sql(
      `select name, data from events where contact_id = $1 and name like 'topic.%' order by id`,
      [id],
    );
    expect(events.at(-1)).toMatchObject({
      name: 'topic.left',
      data: { topicId: releases, topicName: 'Release notes' },
    });

    // Again: nothing more is recorded.
    const again = await h.request('POST', oneClick.slice(h.url.length), form({ 'List-Unsubscribe': 'One-Click' }));
    expect(again.text).toContain('<h1>You no longer get Release notes</h1>');
    expect((await consent(id)).length).toBe(entries.length);

    expect(await sendCampaign(p, d, digest, 'This week')).toEqual([
      { to_email: 'reader@one-click.test', status: 'DELIVERED' },
    ]);
    expect(await sendCampaign(p, d, releases, 'v2.1 is out')).toEqual([]);
  });

  it('the preference page changes topics, pauses and unsubscribes with plain form posts', async () => {
    const p = await createProject(h);
    const d = await createVerifiedDomain(h, p.id);
    const news = await topic(p, 'News', { description: 'What changed this month' });
    const tips = await topic(p, 'Tips', { default: 'opt-out' });
    await topic(p, 'Internal', { public: false });
    const id = await contact(p, 'prefs@centre.test', { News: true, Internal: true });
    const token = contactToken(h.deps.secret, id);
    const url = `/preferences/${token}`;

    const page = await h.request('GET', url, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.text).not.toContain('<script');
    expect(page.text).toContain(`<h1>Your email preferences</h1>`);
    // Public topics only, with the contact's membership and the description.
    expect(page.text).toContain(`name="topic.${news}" value="on" checked`);
    expect(page.text).toContain(`name="topic.${tips}" value="on" checked`);
    expect(page.text).toContain('What changed this month');
    expect(page.text).not.toContain('Internal');

    // Untick News, keep Tips.
    const saved = await h.request(
      'POST',
      url,
      form({ action: 'save', shown: `${news},${tips}`, [`topic.${tips}`]: 'on' }),
    );
    expect(saved.status).toBe(200);
    expect(saved.text).toContain('Your preferences are saved.');
    expect(saved.text).toContain(`name="topic.${news}" value="on" aria-describedby`);
    expect(await membership(id)).toMatchObject({ News: false, Internal: true });
    expect((await consent(id)).at(-1)).toMatchObject({ action: 'left', source: 'preference-centre', topic_id: news });

    // Pause for a month: no marketing mail meanwhile; the consent log says so.
    const paused = await h.request('POST', url, form({ action: 'snooze', snooze: '1m' }));
    expect(paused.text).toContain('Emails are paused for 1 month.');
    expect(paused.text).toContain('Resume emails now');
    const [{ days }] = await h.sql(
      `select round(extract(epoch from snoozed_until - now()) / 86400) as days from contacts where id = $1`,
      [id],
    );
    expect(Number(days)).toBeGreaterThanOrEqual(28);
    expect(Number(days)).toBeLessThanOrEqual(31);
    expect((await consent(id)).at(-1)).toMatchObject({ action: 'snoozed', source: 'preference-centre' });
    expect(await sendCampaign(p, d, tips, 'Tip of the week')).toEqual([]);
    const resumed = await h.request('POST', url, form({ action: 'resume' }));
    expect(resumed.text).toContain('Emails are no longer paused.');
    expect((await h.sql('select snoozed_until from contacts where id = $1', [id]))[0].snoozed_until).toBeNull();

    // A bad choice is an error sentence and changes nothing.
    const bad = await h.request('POST', url, form({ action: 'snooze', snooze: '10y' }));
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Choose how long to pause emails');
    expect((await h.sql('select snoozed_until from contacts where id = $1', [id]))[0].snoozed_until).toBeNull();

    // Unsubscribe from everything, then tick a topic: that asks for its mail, so the contact is subscribed again.
    const out = await h.request('POST', url, form({ action: 'unsubscribe' }));
    expect(out.text).toContain('You are unsubscribed from everything.');
    expect((await h.sql('select subscribed from contacts where id = $1', [id]))[0].subscribed).toBe(false);
    expect(out.text).toContain('Subscribe to the ticked topics');
    const back = await h.request(
      'POST',
      url,
      form({ action: 'save', shown: `${news},${tips}`, [`topic.${news}`]: 'on' }),
    );
    expect(back.status).toBe(200);
    expect((await h.sql('select subscribed from contacts where id = $1', [id]))[0].subscribed).toBe(true);
    expect(await membership(id)).toMatchObject({ News: true, Tips: false });
    const names = (
      await h.sql(`select name from events where contact_id = $1 and name like 'contact.%' order by id`, [id])
    ).map((r) => r.name);
    expect(names).toContain('contact.unsubscribed');
    expect(names.at(-1)).toBe('contact.subscribed');
  });

  it('leaves a topic the page did not show alone', async () => {
    const p = await createProject(h);
    const shown = await topic(p, 'Shown');
    const id = await contact(p, 'race@centre.test', { Shown: true });
    // Made public after the page was drawn: not in `shown`, so an unticked box cannot be assumed.
    const later = await topic(p, 'Later');
    await h.request('PUT', `/contacts/${id}/topics`, { key: p.secretKey, body: { topics: { Later: true } } });
    const res = await h.request(
      'POST',
      `/preferences/${contactToken(h.deps.secret, id)}`,
      form({ action: 'save', shown, [`topic.${shown}`]: 'on' }),
    );
    expect(res.status).toBe(200);
    expect(await membership(id)).toEqual({ Shown: true, Later: true });
    expect(later).toBeTruthy();
  });

  it('a forged or tampered token is a 404 page and changes nothing', async () => {
    const p = await createProject(h);
    const t = await topic(p, 'T');
    const id = await contact(p, 'forged@centre.test', { T: true });
    const good = contactToken(h.deps.secret, id, t);
    const tampered = good.slice(0, -2) + (good.endsWith('AA') ? 'BB' : 'AA');
    const forged = contactToken('another secret', id);
    for (const token of [tampered, forged, 'not-a-token']) {
      for (const path of [`/unsubscribe/${token}`, `/preferences/${token}`]) {
        const res = await h.request('POST', path, form({ action: 'unsubscribe', 'List-Unsubscribe': 'One-Click' }));
        expect(res.status).toBe(404);
        expect(res.text).toContain('<h1>This link does not work</h1>');
      }
      // A client that does not ask for a page gets the envelope.
      const api = await h.request('POST', `/unsubscribe/${token}`);
      expect(api.status).toBe(404);
      expect(api.body.error.code).toBe('RESOURCE_NOT_FOUND');
    }
    expect((await h.sql('select subscribed from contacts where id = $1', [id]))[0].subscribed).toBe(true);
    expect(await membership(id)).toEqual({ T: true });
  });

  it('bounds the changes one link can make: a pause/resume loop stops at the quota and records no more', async () => {
    const p = await createProject(h);
    const id = await contact(p, 'loop@centre.test', {});
    const url = `/preferences/${contactToken(h.deps.secret, id)}`;
    const statuses: number[] = [];
    for (let i = 0; i < 32; i++)
      statuses.push((await h.request('POST', url, form({ action: i % 2 ? 'resume' : 'snooze', snooze: '2w' }))).status);
    expect(statuses.slice(0, 30).every((s) => s === 200)).toBe(true);
    expect(statuses.slice(30)).toEqual([429, 429]);
    const snoozes = await h.sql(`select 1 from consent_events where contact_id = $1 and action = 'snoozed'`, [id]);
    expect(snoozes.length).toBe(15);
    // Another reader's link is not affected.
    const other = await contact(p, 'other@centre.test', {});
    const ok = await h.request(
      'POST',
      `/preferences/${contactToken(h.deps.secret, other)}`,
      form({ action: 'unsubscribe' }),
    );
    expect(ok.status).toBe(200);
  });

  it('draws the page in the project brand colour, readable whatever the colour', async () => {
    const p = await createProject(h);
    const set = await h.request('PATCH', `/users/@me/projects/${p.id}`, {
      cookie: p.owner.cookie,
      body: { brandColor: '#ffd43b' },
    });
    expect(set.status, set.text).toBe(200);
    expect(set.body.brandColor).toBe('#ffd43b');
    const bad = await h.request('PATCH', `/users/@me/projects/${p.id}`, {
      cookie: p.owner.cookie,
      body: { brandColor: 'yellow' },
    });
    expect(bad.status).toBe(422);
    const id = await contact(p, 'brand@centre.test', {});
    const page = await h.request('GET', `/preferences/${contactToken(h.deps.secret, id)}`);
    // A light colour keeps dark text on its buttons and dark links.
    expect(page.text).toContain('background:#ffd43b;color:#1f2328');
    expect(page.text).toContain('a{color:#1f2328}');
  });
});
