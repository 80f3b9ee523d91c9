import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDnsServer, type TestDnsServer } from '../../test/dns-server.js';
import { createProject, type TestProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { createVerifiedDomain, eventually } from '../../test/sending-fixtures.js';
import { startSmtpSink, type SinkMessage, type SmtpSink } from '../../test/smtp-sink.js';
import { confirmToken } from './confirm-token.js';
import { crontabLines } from '../worker/tasks.js';
import { purgeSignupsJob } from './forms.jobs.js';
import { purgeExpiredSignups } from './signup.js';

// Double opt-in (issue 35): a submission mails a signed link and changes no subscription; until the
// link is opened the contact gets no marketing mail; opening it subscribes, joins the topics and
// records consent naming the form and the visitor's address, once. Forged and expired links change
// nothing; a second submission within 10 minutes sends no second mail.
const UA = 'Mozilla/5.0 (double opt-in test)';
const ZONE = { 'doi.test': { MX: [{ exchange: 'mx.doi.test', priority: 10 }] } };

describe('hosted forms: double opt-in', () => {
  let h: Harness;
  let sink: SmtpSink;
  let dns: TestDnsServer;
  beforeAll(async () => {
    sink = await startSmtpSink();
    dns = await startDnsServer(ZONE);
    h = await createHarness({ env: { SMTP_URL: sink.url, DNS_SERVERS: dns.address }, worker: true });
  });
  afterAll(async () => {
    await h?.close();
    await sink?.close();
    await dns?.close();
  });

  const setup = async (extra: Record<string, unknown> = {}) => {
    const p = await createProject(h, undefined, 'Birdseed Weekly');
    const d = await createVerifiedDomain(h, p.id);
    const topic = await h.request('POST', '/topics', { key: p.secretKey, body: { name: 'Digest', default: 'opt-in' } });
    const form = await h.request('POST', '/forms', {
      key: p.secretKey,
      body: {
        name: 'Weekly digest',
        topics: [topic.body.id],
        doubleOptIn: true,
        from: `hello@${d.domain}`,
        fromName: 'Birdseed',
        fields: [
          { key: 'email', label: 'Email', type: 'email', required: true },
          { key: 'firstName', label: 'First name', type: 'text' },
        ],
        successMessage: 'You are in!',
        ...extra,
      },
    });
    expect(form.status, form.text).toBe(201);
    return { p, domain: d.domain, topicId: topic.body.id as string, formId: form.body.id as string };
  };
  const submit = (formId: string, email: string, more: Record<string, string> = {}) =>
    h.request('POST', `/f/${formId}`, {
      raw: true,
      body: new URLSearchParams({ email, ...more }).toString(),
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'user-agent': UA,
      },
    });
  const contact = async (p: TestProject, email: string) =>
    (
      await h.sql<{ id: string; subscribed: boolean; data: Record<string, unknown> }>(
        'select id, subscribed, data from contacts where project_id = $1 and email = $2',
        [p.id, email],
      )
    )[0];
  const topicsOf = async (p: TestProject, id: string) =>
    (await h.request('GET', `/contacts/${id}`, { key: p.secretKey })).body.topics;
  /** The mails to `address`, once there is one. */
  const mailsTo = (address: string) =>
    eventually(async () => (sink.to(address).length ? sink.to(address) : undefined), 15_000, `mail to ${address}`);
  /** The confirmation link of a mail, through the click redirect when the project tracks links. */
  const linkOf = async (m: SinkMessage) => {
    const href = /href="([^"]+)"[^>]*>(?:Confirm my subscription|Mein Abonnement bestätigen)/.exec(
      String(m.parsed.html),
    )?.[1];
    expect(href, String(m.parsed.html)).toBeDefined();
    const url = href!.replace(/&amp;/g, '&');
    if (!url.startsWith(`${h.url}/t/c/`)) return url;
    const hop = await h.request('GET', url.slice(h.url.length));
    expect(hop.status).toBe(302);
    return hop.headers.get('location')!;
  };
  /** Opens a confirmation link as a person does: the page (which only asks), then its button. */
  const open = async (url: string, ua = UA) => {
    expect(url.startsWith(`${h.url}/confirm/`)).toBe(true);
    const path = url.slice(h.url.length);
    const asked = await h.request('GET', path, { headers: { 'user-agent': ua } });
    if (asked.status !== 200 || !asked.text.includes('Confirm your sign-up')) return asked;
    const action = /<form method="post" action="([^"]+)"/.exec(asked.text)![1].replace(/&amp;/g, '&');
    expect(action).toBe(path);
    return h.request('POST', action, {
      raw: true,
      body: '',
      headers: { 'user-agent': ua, 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
    });
  };
  const consentOf = (contactId: string) =>
    h.sql(
      'select action, topic_id, source, form_id, ip, user_agent from consent_events where contact_id = $1 order by id',
      [contactId],
    );

  it('mails a confirmation; no marketing mail reaches the contact until the link is opened; then subscribed, joined, consent naming form and IP, once', async () => {
    const { p, domain, topicId, formId } = await setup();
    const reader = await h.request('POST', '/contacts', {
      key: p.secretKey,
      body: { email: 'reader@doi.test', topics: { Digest: true } },
    });
    expect(reader.status).toBe(201);

    const res = await submit(formId, 'Wren@doi.test', { firstName: 'Wren' });
    expect(res.status, res.text).toBe(200);
    expect(res.text).toContain('Check your inbox');
    expect(res.text).toContain('You are in!');
    const [mail] = await mailsTo('wren@doi.test');
    expect(mail.parsed.subject).toBe('Confirm your subscription to Birdseed Weekly');
    expect(mail.parsed.from?.value[0]).toMatchObject({ address: `hello@${domain}`, name: 'Birdseed' });
    const link = await linkOf(mail);

    // Created with the form's data, but not subscribed and in no topic, and nothing in the consent log.
    const c = await contact(p, 'wren@doi.test');
    expect(c).toMatchObject({ subscribed: false, data: { firstName: 'Wren' } });
    expect(await topicsOf(p, c.id)).toEqual([{ id: topicId, name: 'Digest', subscribed: false }]);
    expect(await consentOf(c.id)).toEqual([]);
    const [signup] = await h.sql('select confirmed_at, contact_id from form_signups where form_id = $1', [formId]);
    expect(signup).toEqual({ confirmed_at: null, contact_id: c.id });

    // A campaign to the topic before the link is opened reaches the reader only.
    const campaign = async (name: string) => {
      const created = await h.request('POST', '/campaigns', {
        key: p.secretKey,
        body: { name, subject: name, body: '<p>News</p>', from: `news@${domain}`, topicId, type: 'MARKETING' },
      });
      expect(created.status, created.text).toBe(201);
      const id = created.body.data.id as string;
      expect((await h.request('POST', `/campaigns/${id}/send`, { key: p.secretKey })).status).toBe(200);
      return eventually(async () => {
        const rows = await h.sql<{ to_email: string; status: string }>(
          'select to_email, status from emails where campaign_id = $1 order by to_email',
          [id],
        );
        return rows.length && rows.every((r) => r.status === 'DELIVERED') && rows.map((r) => r.to_email);
      }, 30_000);
    };
    expect(await campaign('Before')).toEqual(['reader@doi.test']);
    expect(sink.to('wren@doi.test').map((m) => m.parsed.subject)).toEqual([mail.parsed.subject]);

    // A security scanner follows the link first: it gets the page that asks, and nothing changes.
    const scanned = await h.request('GET', link.slice(h.url.length), {
      headers: { 'user-agent': 'Mozilla/5.0 (compatible; Microsoft Defender for Office 365 link scanner)' },
    });
    expect(scanned.status).toBe(200);
    expect(scanned.text).toContain('Confirm your sign-up');
    expect(scanned.text).toContain('Confirm my subscription</button>');
    expect((await contact(p, 'wren@doi.test')).subscribed).toBe(false);
    expect(
      (await h.sql('select confirmed_at from form_signups where form_id = $1', [formId]))[0].confirmed_at,
    ).toBeNull();

    const confirmed = await open(link);
    expect(confirmed.status).toBe(200);
    expect(confirmed.text).toContain('Sign-up confirmed');
    expect(confirmed.text).toContain('You are in!');
    const after = await contact(p, 'wren@doi.test');
    expect(after.subscribed).toBe(true);
    expect(await topicsOf(p, c.id)).toEqual([{ id: topicId, name: 'Digest', subscribed: true }]);
    const origin = { source: 'form', form_id: formId, ip: '127.0.0.1', user_agent: UA };
    expect(await consentOf(c.id)).toEqual([
      { action: 'confirmed', topic_id: null, ...origin },
      { action: 'subscribed', topic_id: null, ...origin },
      { action: 'joined', topic_id: topicId, ...origin },
    ]);
    const events = await h.sql(
      `select name, data from events where contact_id = $1 and name in ('contact.confirmed', 'contact.subscribed', 'topic.joined') order by id`,
      [c.id],
    );
    expect(events).toEqual([
      { name: 'contact.subscribed', data: {} },
      { name: 'topic.joined', data: { topicId, topicName: 'Digest' } },
      { name: 'contact.confirmed', data: { formId } },
    ]);
    expect(await campaign('After')).toEqual(['reader@doi.test', 'wren@doi.test']);
    // The service's own event cannot be forged through /v1/track.
    const forged = await h.request('POST', '/v1/track', {
      key: p.publicKey,
      body: { email: 'wren@doi.test', event: 'contact.confirmed', data: { formId } },
    });
    expect(forged.status).toBe(422);
    expect(forged.body.error.errors[0].code).toBe('reserved_event');

    // Opened again (a second click, a mail scanner): the same page, nothing recorded twice.
    const again = await open(link, 'another agent');
    expect(again.status).toBe(200);
    expect(again.text).toContain('Sign-up confirmed');
    expect(await consentOf(c.id)).toHaveLength(3);
    expect(
      (await h.sql(`select 1 from events where name = 'contact.confirmed' and contact_id = $1`, [c.id])).length,
    ).toBe(1);
    const counted = await h.request('GET', `/forms/${formId}`, { key: p.secretKey });
    expect(counted.body).toMatchObject({ submissions: 1, confirmations: 1 });
  }, 90_000);

  it('changes nothing for a forged or foreign link', async () => {
    const { p, formId } = await setup();
    expect((await submit(formId, 'finch@doi.test')).status).toBe(200);
    const [mail] = await mailsTo('finch@doi.test');
    const link = await linkOf(mail);
    const token = link.slice(link.lastIndexOf('/') + 1);
    const [signup] = await h.sql<{ id: string }>('select id from form_signups where form_id = $1', [formId]);
    const later = new Date(Date.now() + 30 * 24 * 3600_000);
    for (const forged of [
      // The signature of another payload, a longer expiry signed with another secret, a bare id.
      `${token.slice(0, token.indexOf('.'))}.${'A'.repeat(22)}`,
      confirmToken('another-secret-another-secret-another-secret', signup.id, later),
      signup.id,
      'x',
    ]) {
      for (const method of ['GET', 'POST']) {
        const res = await h.request(method, `/confirm/${encodeURIComponent(forged)}`, {
          raw: true,
          body: method === 'POST' ? '' : undefined,
          headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
        });
        expect(res.status, `${method} ${forged}`).toBe(404);
        expect(res.text).toContain('Page not found');
      }
    }
    const c = await contact(p, 'finch@doi.test');
    expect(c.subscribed).toBe(false);
    expect(await consentOf(c.id)).toEqual([]);
    expect(
      (await h.sql('select confirmed_at from form_signups where id = $1', [signup.id]))[0].confirmed_at,
    ).toBeNull();
  }, 60_000);

  it('sends at most one confirmation per 10 minutes; an existing subscribed contact stays subscribed', async () => {
    const { p, formId } = await setup();
    const existing = await h.request('POST', '/contacts', { key: p.secretKey, body: { email: 'robin@doi.test' } });
    expect(existing.body.subscribed).toBe(true);
    expect((await submit(formId, 'robin@doi.test')).status).toBe(200);
    expect((await submit(formId, 'robin@doi.test', { firstName: 'Rob' })).status).toBe(200);
    await eventually(async () => sink.to('robin@doi.test').length);
    const queued = () =>
      h.sql(
        `select 1 from emails where project_id = $1 and to_email = 'robin@doi.test' and source_type = 'TRANSACTIONAL'`,
        [p.id],
      );
    expect(await queued()).toHaveLength(1);
    const c = await contact(p, 'robin@doi.test');
    expect(c).toMatchObject({ subscribed: true, data: { firstName: 'Rob' } });
    expect(await h.sql('select 1 from form_signups where form_id = $1', [formId])).toHaveLength(1);

    // Eleven minutes on, the next submission mails a new link.
    h.clock.advance(11 * 60_000);
    expect((await submit(formId, 'robin@doi.test')).status).toBe(200);
    expect(await queued()).toHaveLength(2);
    const counted = await h.request('GET', `/forms/${formId}`, { key: p.secretKey });
    expect(counted.body).toMatchObject({ submissions: 3, confirmations: 0 });
  }, 60_000);

  it('shows an expired link as expired after 7 days and changes nothing; the cron forgets the sign-up', async () => {
    const { p, formId } = await setup();
    expect((await submit(formId, 'lark@doi.test')).status).toBe(200);
    const [mail] = await mailsTo('lark@doi.test');
    const link = await linkOf(mail);
    h.clock.advance(7 * 24 * 3600_000 + 60_000);
    const res = await open(link);
    expect(res.status).toBe(410);
    expect(res.text).toContain('This link has expired');
    expect(res.text).toContain(`href="${h.url}/f/${formId}"`);
    const c = await contact(p, 'lark@doi.test');
    expect(c.subscribed).toBe(false);
    expect(await consentOf(c.id)).toEqual([]);
    expect(crontabLines.some((l) => l.endsWith(`${purgeSignupsJob.name} ?max=3`))).toBe(true);
    expect(await purgeExpiredSignups(h.deps.db, h.clock.now())).toBeGreaterThanOrEqual(1);
    expect(await h.sql('select 1 from form_signups where form_id = $1', [formId])).toEqual([]);
    expect((await open(link)).status).toBe(410);
  }, 60_000);

  it("uses the form's template with {{confirmUrl}}, and answers JSON with confirmationRequired", async () => {
    const { p, domain } = await setup();
    const t = await h.request('POST', '/templates', {
      key: p.secretKey,
      body: {
        name: 'Confirm',
        subject: 'One click left, {{firstName}}',
        body: '<p>Hi {{firstName}}, <a href="{{confirmUrl}}">Confirm my subscription</a> to {{formName}}</p>',
        from: `hello@${domain}`,
        type: 'TRANSACTIONAL',
      },
    });
    expect(t.status, t.text).toBe(201);
    const form = await h.request('POST', '/forms', {
      key: p.secretKey,
      body: {
        name: 'Templated',
        doubleOptIn: true,
        from: `hello@${domain}`,
        confirmationTemplateId: t.body.id,
        fields: [
          { key: 'email', label: 'Email', type: 'email', required: true },
          { key: 'firstName', label: 'First name', type: 'text' },
        ],
      },
    });
    expect(form.status, form.text).toBe(201);
    const res = await h.request('POST', `/f/${form.body.id}`, {
      body: { email: 'jay@doi.test', firstName: 'Jay' },
      headers: { origin: 'https://elsewhere.example' },
    });
    expect(res.body).toEqual({ success: true, confirmationRequired: true });
    const [mail] = await mailsTo('jay@doi.test');
    expect(mail.parsed.subject).toBe('One click left, Jay');
    expect(String(mail.parsed.html)).toContain('to Templated');
    const confirmed = await open(await linkOf(mail));
    expect(confirmed.status).toBe(200);
    expect((await contact(p, 'jay@doi.test')).subscribed).toBe(true);
  }, 60_000);

  it('shows the confirmation pages in the language the browser gave at sign-up (issue 38)', async () => {
    const { formId } = await setup();
    const res = await h.request('POST', `/f/${formId}`, {
      raw: true,
      body: new URLSearchParams({ email: 'greta@doi.test' }).toString(),
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'user-agent': UA,
        'accept-language': 'de-DE,de;q=0.9',
      },
    });
    expect(res.status, res.text).toBe(200);
    const [mail] = await mailsTo('greta@doi.test');
    // A form without a template sends its default confirmation in the signer's language.
    expect(mail.parsed.subject).toMatch(/^Bestätigen Sie Ihr Abonnement von /);
    expect(mail.parsed.html).toContain('>Mein Abonnement bestätigen</a>');
    expect(mail.parsed.html).toContain('<div lang="de"');
    const url = await linkOf(mail);
    const path = url.slice(h.url.length);
    // The contact's language (kept from the sign-up's browser) wins over this browser's.
    const asked = await h.request('GET', path, { headers: { 'user-agent': UA, 'accept-language': 'fr' } });
    expect(asked.status).toBe(200);
    expect(asked.text).toContain('<html lang="de">');
    expect(asked.text).toContain('<h1>Anmeldung bestätigen</h1>');
    expect(asked.text).toContain('>Mein Abonnement bestätigen</button>');
    const done = await h.request('POST', path, {
      raw: true,
      body: '',
      headers: { 'user-agent': UA, 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
    });
    expect(done.text).toContain('<h1>Anmeldung bestätigt</h1>');
    expect(done.text).toContain('Ihr Abonnement ist bestätigt.');
    // A forged link knows no contact: the browser's language.
    const forged = await h.request('GET', '/confirm/forged', { headers: { 'accept-language': 'it' } });
    expect(forged.status).toBe(404);
    expect(forged.text).toContain('<h1>Pagina non trovata</h1>');
  });
});
