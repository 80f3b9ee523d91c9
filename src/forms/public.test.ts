import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDnsServer, type TestDnsServer } from '../../test/dns-server.js';
import { createProject, type TestProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';

// The public side of hosted forms without double opt-in (issue 35): the hosted page, a plain HTML
// form's post (303 to the redirect, or the page again with what to fix), JSON from another origin
// (CORS), the honeypot, the MX check and the throttles.
const ZONE = {
  'forms.test': { MX: [{ exchange: 'mx.forms.test', priority: 10 }] },
  'nomail.test': { NS: ['ns.nomail.test'] },
};
const UA = 'Mozilla/5.0 (forms test)';

describe('hosted forms: the public side', () => {
  let h: Harness;
  let dns: TestDnsServer;
  beforeAll(async () => {
    dns = await startDnsServer(ZONE);
    h = await createHarness({ env: { DNS_SERVERS: dns.address } });
  });
  afterAll(async () => {
    await h?.close();
    await dns?.close();
  });

  const form = async (p: TestProject, body: Record<string, unknown>) => {
    const res = await h.request('POST', '/forms', { key: p.secretKey, body });
    expect(res.status, res.text).toBe(201);
    return res.body as { id: string; url: string; embedHtml: string };
  };
  const topic = async (p: TestProject, name: string, dflt: 'opt-in' | 'opt-out') => {
    const res = await h.request('POST', '/topics', { key: p.secretKey, body: { name, default: dflt } });
    expect(res.status, res.text).toBe(201);
    return res.body.id as string;
  };
  const post = (formId: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
    h.request('POST', `/f/${formId}`, {
      raw: true,
      body: new URLSearchParams(fields).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': UA, ...headers },
    });
  const contactOf = async (p: TestProject, email: string) =>
    (
      await h.sql<{ id: string; subscribed: boolean; data: Record<string, unknown> }>(
        'select id, subscribed, data from contacts where project_id = $1 and email = $2',
        [p.id, email],
      )
    )[0];
  const counts = async (formId: string) =>
    (await h.sql('select submissions, confirmations from forms where id = $1', [formId]))[0];

  it('serves the hosted form page in the project colours, and a 404 page for an unknown form', async () => {
    const p = await createProject(h, undefined, 'Hosted & Co');
    await h.sql(`update projects set brand_color = '#0a7d32' where id = $1`, [p.id]);
    const f = await form(p, {
      name: 'Join the newsletter',
      fields: [
        { key: 'email', label: 'Your email', type: 'email', required: true },
        { key: 'name', label: 'Name', type: 'text' },
        { key: 'role', label: 'Role', type: 'select', options: ['Dev', 'Ops'] },
        { key: 'terms', label: 'I agree to the terms', type: 'checkbox', required: true },
      ],
      redirectUrl: 'https://example.com/thanks',
    });
    expect(f.url).toBe(`${h.url}/f/${f.id}`);
    const res = await h.request('GET', `/f/${f.id}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    // Posts go to Pigeon, and the redirect after them to the form's site.
    expect(res.headers.get('content-security-policy')).toContain(`form-action 'self' ${h.url} https://example.com`);
    expect(res.text).toContain('Hosted &amp; Co');
    expect(res.text).toContain('<h1>Join the newsletter</h1>');
    expect(res.text).toContain('#0a7d32');
    expect(res.text).toContain(`<form method="post" action="${h.url}/f/${f.id}"`);
    expect(res.text).toContain('<input type="email" id="f-email" name="email" autocomplete="email" required>');
    expect(res.text).toContain('<option value="Ops">Ops</option>');
    expect(res.text).toContain('name="_hp" tabindex="-1"');
    expect(res.text).not.toContain('<script');
    // The embed snippet posts the same fields.
    expect(f.embedHtml).toContain(`<form method="post" action="${h.url}/f/${f.id}" accept-charset="utf-8">`);
    expect(f.embedHtml).toContain('name="terms" value="true" required');
    expect(f.embedHtml).toContain('style="position:absolute;left:-10000px');

    for (const id of ['0190aaaa-0000-7000-8000-00000000beef', 'not-an-id']) {
      const missing = await h.request('GET', `/f/${id}`);
      expect(missing.status).toBe(404);
      expect(missing.text).toContain('Page not found');
      const posted = await post(id, { email: 'a@forms.test' });
      expect(posted.status).toBe(404);
      expect(posted.text).toContain('Page not found');
    }
  });

  it('takes a plain HTML form post: contact subscribed with its data, topics joined, consent with form, IP and UA, then 303', async () => {
    const p = await createProject(h);
    const news = await topic(p, 'News', 'opt-in');
    const digest = await topic(p, 'Digest', 'opt-out');
    const f = await form(p, {
      name: 'Signup',
      topics: [news, 'Digest'],
      fields: [
        { key: 'email', label: 'Email', type: 'email', required: true },
        { key: 'name', label: 'Name', type: 'text', required: true },
        { key: 'plan', label: 'Plan', type: 'select', options: ['free', 'pro'] },
        { key: 'offers', label: 'Send offers', type: 'checkbox' },
      ],
      redirectUrl: 'https://example.com/thanks?from=form',
    });
    const res = await post(f.id, { email: ' Ada@Forms.test ', name: 'Ada', plan: 'pro', extra: 'ignored', _hp: '' });
    expect(res.status, res.text).toBe(303);
    expect(res.headers.get('location')).toBe('https://example.com/thanks?from=form');
    const c = await contactOf(p, 'ada@forms.test');
    expect(c).toMatchObject({ subscribed: true, data: { name: 'Ada', plan: 'pro', offers: false } });
    const topics = await h.request('GET', `/contacts/${c.id}`, { key: p.secretKey });
    expect(topics.body.topics).toEqual([
      { id: digest, name: 'Digest', subscribed: true },
      { id: news, name: 'News', subscribed: true },
    ]);
    // A new contact created subscribed records `subscribed`; joining the opt-in topic records `joined`
    // (the opt-out one held the contact already). Each names the form and the visitor.
    const entries = await h.sql(
      'select action, topic_id, source, form_id, ip, user_agent from consent_events where contact_id = $1 order by id',
      [c.id],
    );
    expect(entries).toEqual([
      { action: 'subscribed', topic_id: null, source: 'form', form_id: f.id, ip: '127.0.0.1', user_agent: UA },
      { action: 'joined', topic_id: news, source: 'form', form_id: f.id, ip: '127.0.0.1', user_agent: UA },
    ]);
    expect(await counts(f.id)).toEqual({ submissions: 1, confirmations: 0 });
    const listed = await h.request('GET', `/forms/${f.id}`, { key: p.secretKey });
    expect(listed.body).toMatchObject({ submissions: 1, confirmations: 0 });
  });

  it('shows the form again with what to fix, and stores nothing, when a submission is refused', async () => {
    const p = await createProject(h);
    const f = await form(p, {
      name: 'Signup',
      fields: [
        { key: 'email', label: 'Email', type: 'email', required: true },
        { key: 'name', label: 'Your name', type: 'text', required: true },
        { key: 'terms', label: 'I agree', type: 'checkbox', required: true },
      ],
      successMessage: 'Welcome aboard!',
    });
    const missing = await post(f.id, { email: 'bob@forms.test', name: '' });
    expect(missing.status).toBe(422);
    expect(missing.headers.get('content-type')).toMatch(/^text\/html/);
    expect(missing.text).toContain('<p class="error" role="alert">Fill in “Your name”. Tick “I agree” to sign up.</p>');
    expect(missing.text).toContain('value="bob@forms.test"');
    const bad = await post(f.id, { email: 'not an address', name: 'Bob', terms: 'on' });
    expect(bad.status).toBe(422);
    expect(bad.text).toContain('“not an address” is not an email address.');
    // A domain that exists but takes no mail, one that does not exist: `/v1/verify`'s rules.
    const noMx = await post(f.id, { email: 'bob@nomail.test', name: 'Bob', terms: 'on' });
    expect(noMx.status).toBe(422);
    expect(noMx.text).toContain('nomail.test does not receive email: check the address.');
    const noDomain = await post(f.id, { email: 'bob@nowhere.test', name: 'Bob', terms: 'on' });
    expect(noDomain.status).toBe(422);
    expect(noDomain.text).toContain('The domain nowhere.test does not exist: check the address.');
    // What the request itself breaks (a value past the schema's length, a body past 16 KiB) is said in
    // general terms, on the same page.
    const long = await post(f.id, { email: 'bob@forms.test', name: 'B'.repeat(6000), terms: 'on' });
    expect(long.status).toBe(422);
    expect(long.text).toContain('check the fields and send it again.');
    const huge = await post(f.id, { email: 'bob@forms.test', name: 'B'.repeat(17 * 1024) });
    expect(huge.status).toBe(413);
    expect(huge.text).toContain('This submission is too large');
    expect(await h.sql('select 1 from contacts where project_id = $1', [p.id])).toEqual([]);
    expect(await counts(f.id)).toEqual({ submissions: 0, confirmations: 0 });

    const ok = await post(f.id, { email: 'bob@forms.test', name: 'Bob', terms: 'on' });
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('<p class="note" role="status">Welcome aboard!</p>');
    expect((await contactOf(p, 'bob@forms.test')).data).toEqual({ name: 'Bob', terms: true });
  });

  it('answers JSON to fetch from any origin (CORS, preflight included), errors in the envelope', async () => {
    const p = await createProject(h);
    const f = await form(p, { name: 'Fetch' });
    const origin = 'https://shop.example';
    const pre = await h.request('OPTIONS', `/f/${f.id}`, {
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('*');
    expect(pre.headers.get('access-control-allow-methods')).toContain('POST');
    expect(pre.headers.get('access-control-allow-headers')).toMatch(/content-type/i);

    const res = await h.request('POST', `/f/${f.id}`, {
      body: { email: 'fetch@forms.test' },
      headers: { origin, 'sec-fetch-site': 'cross-site' },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ success: true, confirmationRequired: false });
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect((await contactOf(p, 'fetch@forms.test')).subscribed).toBe(true);

    const bad = await h.request('POST', `/f/${f.id}`, { body: { email: 'nope' }, headers: { origin } });
    expect(bad.status).toBe(422);
    expect(bad.headers.get('access-control-allow-origin')).toBe('*');
    expect(bad.body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ field: 'email', code: 'invalid_string', message: '“nope” is not an email address.' }],
    });
    // A form post that asks for JSON gets JSON.
    const asked = await post(f.id, { email: 'accept@forms.test' }, { accept: 'application/json' });
    expect(asked.status).toBe(200);
    expect(asked.body).toEqual({ success: true, confirmationRequired: false });
    const unknown = await h.request('POST', '/f/0190aaaa-0000-7000-8000-00000000beef', {
      body: { email: 'x@forms.test' },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('RESOURCE_NOT_FOUND');
  });

  it("keeps the browser's language as data.locale when the form does not ask for it, never replacing one", async () => {
    const p = await createProject(h);
    const plain = await form(p, { name: 'Plain', fields: [{ key: 'email', label: 'Email', type: 'email' }] });
    const fr = { 'accept-language': 'fr-CH, fr;q=0.9, en;q=0.5' };
    expect((await post(plain.id, { email: 'lea.lang@forms.test' }, fr)).status).toBe(200);
    expect((await contactOf(p, 'lea.lang@forms.test')).data).toEqual({ locale: 'fr-CH' });
    // A contact with a language keeps it, whatever the next browser says.
    expect((await post(plain.id, { email: 'lea.lang@forms.test' }, { 'accept-language': 'de' })).status).toBe(200);
    expect((await contactOf(p, 'lea.lang@forms.test')).data).toEqual({ locale: 'fr-CH' });
    // No usable language in the header: nothing set.
    expect((await post(plain.id, { email: 'max.lang@forms.test' }, { 'accept-language': '*' })).status).toBe(200);
    expect((await contactOf(p, 'max.lang@forms.test')).data).toEqual({});

    // A form that asks for the language takes the visitor's answer, and only that.
    const asks = await form(p, {
      name: 'Asks',
      fields: [
        { key: 'email', label: 'Email', type: 'email' },
        { key: 'locale', label: 'Language', type: 'select', options: ['en', 'nl'] },
      ],
    });
    expect((await post(asks.id, { email: 'ruud.lang@forms.test', locale: 'nl' }, fr)).status).toBe(200);
    expect((await contactOf(p, 'ruud.lang@forms.test')).data).toEqual({ locale: 'nl' });
    expect((await post(asks.id, { email: 'ann.lang@forms.test', locale: '' }, fr)).status).toBe(200);
    expect((await contactOf(p, 'ann.lang@forms.test')).data).toEqual({});
  });

  it('answers a filled honeypot like a success and stores nothing', async () => {
    const p = await createProject(h);
    const f = await form(p, { name: 'Bots welcome' });
    const page = await post(f.id, { email: 'bot@forms.test', _hp: 'http://spam.example' });
    expect(page.status).toBe(200);
    expect(page.text).toContain('Thanks for signing up!');
    const json = await h.request('POST', `/f/${f.id}`, { body: { email: 'bot2@forms.test', _hp: 'x' } });
    expect(json.body).toEqual({ success: true, confirmationRequired: false });
    expect(await h.sql('select 1 from contacts where project_id = $1', [p.id])).toEqual([]);
    expect(await counts(f.id)).toEqual({ submissions: 0, confirmations: 0 });
  });
});

describe('hosted forms: throttles', () => {
  let h: Harness;
  let dns: TestDnsServer;
  beforeAll(async () => {
    dns = await startDnsServer(ZONE);
    // Each test client names its own address through the proxy header, as behind a load balancer.
    h = await createHarness({
      env: { DNS_SERVERS: dns.address, FORM_RATE_LIMIT_PER_IP: '3', FORM_RATE_LIMIT_PER_FORM: '5', TRUST_PROXY: '1' },
    });
  });
  afterAll(async () => {
    await h?.close();
    await dns?.close();
  });

  it('throttles a flood per client address and per form: 429, and nothing stored beyond the limits', async () => {
    const p = await createProject(h);
    const res = await h.request('POST', '/forms', { key: p.secretKey, body: { name: 'Flooded' } });
    const id = res.body.id as string;
    const from = (ip: string, n: number, urlencoded = false) =>
      h.request('POST', `/f/${id}`, {
        ...(urlencoded
          ? {
              raw: true,
              body: `email=u${n}%40forms.test`,
              headers: { 'content-type': 'application/x-www-form-urlencoded' },
            }
          : { body: { email: `u${n}@forms.test` } }),
        headers: {
          'x-forwarded-for': ip,
          ...(urlencoded ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        },
      });
    const statuses: number[] = [];
    for (let n = 0; n < 5; n++) statuses.push((await from('203.0.113.7', n)).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    const refused = await from('203.0.113.7', 9);
    expect(refused.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // A person's browser gets a page saying when to try again.
    const page = await from('203.0.113.7', 10, true);
    expect(page.status).toBe(429);
    expect(page.text).toContain('Please try again later');

    // Other addresses go on until the form's own budget (5) is spent.
    expect((await from('198.51.100.1', 20)).status).toBe(200);
    expect((await from('198.51.100.2', 21)).status).toBe(200);
    const formFull = await from('198.51.100.3', 22);
    expect(formFull.status).toBe(429);
    expect(formFull.body.error.message).toMatch(/^Too many submissions of this form/);
    const stored = await h.sql<{ email: string }>('select email from contacts where project_id = $1', [p.id]);
    expect(stored.map((c) => c.email).sort()).toEqual([
      'u0@forms.test',
      'u1@forms.test',
      'u20@forms.test',
      'u21@forms.test',
      'u2@forms.test',
    ]);
  });
});
