import { sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { createVerifiedDomain, eventually, type TestDomain } from '../../test/sending-fixtures.js';
import { startSmtpSink, type SmtpSink } from '../../test/smtp-sink.js';
import { workflowApi } from '../../test/workflows-helpers.js';
import { pickLocale } from './locale.js';
import { pickLocaleSql } from './translations.js';

// Issue 38's per-language variants: each contact gets the translation of their data.locale.
let h: Harness;
let sink: SmtpSink;
let p: TestProject;
let d: TestDomain;

beforeAll(async () => {
  sink = await startSmtpSink();
  h = await createHarness({ env: { SMTP_URL: sink.url }, worker: true });
  p = await createProject(h);
  d = await createVerifiedDomain(h, p.id);
  await h.sql(`update projects set tracking = 'DISABLED' where id = $1`, [p.id]);
});
afterAll(async () => {
  await h.close();
  await sink.close();
});

const mailTo = (to: string) => eventually(async () => sink.to(to)[0], 30_000, `mail to ${to}`);
const contact = (email: string, data: Record<string, unknown>) =>
  h.sql(`insert into contacts (id, project_id, email, subscribed, data) values (gen_random_uuid(), $1, $2, true, $3)`, [
    p.id,
    email,
    JSON.stringify(data),
  ]);

describe('a campaign with translations', () => {
  it('gives each contact their language (by tag, then family), the default to others, and splits the report', async () => {
    await contact('tr-de@rcpt.test', { locale: 'de-AT', name: 'Jonas' });
    await contact('tr-fr@rcpt.test', { locale: 'fr' });
    await contact('tr-es@rcpt.test', { locale: 'es' });
    await contact('tr-none@rcpt.test', {});
    const c = await h.request('POST', '/campaigns', {
      key: p.secretKey,
      body: {
        name: 'Launch',
        subject: 'We launched',
        from: `news@${d.domain}`,
        fromName: 'Acme',
        body: '<html><body><p>Hello {{ name ?? "there" }}, we launched.</p></body></html>',
        translations: {
          de: {
            subject: 'Wir sind gestartet',
            body: '<html><body><p>Hallo {{ name ?? "du" }}, wir sind gestartet.</p></body></html>',
            fromName: 'Acme DE',
          },
          FR: { subject: 'Nous sommes lancés', body: '<html><body><p>Bonjour, nous sommes lancés.</p></body></html>' },
        },
      },
    });
    expect(c.status).toBe(201);
    // Tags are stored canonical.
    expect(Object.keys(c.body.data.translations).sort()).toEqual(['de', 'fr']);
    const id = c.body.data.id;
    expect((await h.request('POST', `/campaigns/${id}/send`, { key: p.secretKey })).status).toBe(200);

    const de = await mailTo('tr-de@rcpt.test');
    expect(de.parsed.subject).toBe('Wir sind gestartet');
    expect(de.parsed.from?.value[0].name).toBe('Acme DE');
    expect(de.parsed.html).toContain('Hallo Jonas, wir sind gestartet.');
    expect(de.parsed.html).toContain('<html lang="de">');
    // The automatic footer speaks German, and links to the German pages.
    expect(de.parsed.html).toContain('Abmelden');
    const fr = await mailTo('tr-fr@rcpt.test');
    expect(fr.parsed.subject).toBe('Nous sommes lancés');
    expect(fr.parsed.from?.value[0].name).toBe('Acme');
    expect(fr.parsed.html).toContain('<html lang="fr">');
    expect(fr.parsed.html).toContain('Se désabonner');
    for (const to of ['tr-es@rcpt.test', 'tr-none@rcpt.test']) {
      const m = await mailTo(to);
      expect(m.parsed.subject).toBe('We launched');
      expect(m.parsed.html).toContain('Hello there, we launched.');
    }
    const test = await h.request('POST', `/campaigns/${id}/test`, {
      key: p.secretKey,
      body: { email: 'tr-test@rcpt.test', locale: 'fr' },
    });
    expect(test.status).toBe(200);
    expect((await mailTo('tr-test@rcpt.test')).parsed.subject).toBe('[TEST] Nous sommes lancés');
    const unsubscribe = /href="([^"]+\/unsubscribe\/[^"]+)"/.exec(String(de.parsed.html))![1];
    const page = await h.request('GET', new URL(unsubscribe).pathname);
    expect(page.status).toBe(200);
    expect(page.text).toContain('lang="de"');

    const rows = await h.sql<{ to_email: string; locale: string | null }>(
      `select to_email, locale from emails where campaign_id = $1 order by to_email`,
      [id],
    );
    expect(Object.fromEntries(rows.map((r) => [r.to_email, r.locale]))).toEqual({
      'tr-de@rcpt.test': 'de',
      'tr-es@rcpt.test': null,
      'tr-fr@rcpt.test': 'fr',
      'tr-none@rcpt.test': null,
    });
    const [deRow] = await h.sql<{ id: string }>(`select id from emails where campaign_id = $1 and locale = 'de'`, [id]);
    expect((await h.request('GET', `/emails/${deRow.id}`, { key: p.secretKey })).body.locale).toBe('de');
    const stats = await eventually(
      async () => {
        const s = await h.request('GET', `/campaigns/${id}/stats`, { key: p.secretKey });
        return s.body.sentCount === 4 ? s.body : undefined;
      },
      30_000,
      'four sent',
    );
    expect(stats.languages).toEqual([
      expect.objectContaining({ locale: 'de', sent: 1 }),
      expect.objectContaining({ locale: 'fr', sent: 1 }),
      expect.objectContaining({ locale: null, sent: 2 }),
    ]);
  });

  it('refuses a key that is not a language tag, and translations beside A/B variants', async () => {
    const base = { name: 'x', subject: 's', from: `news@${d.domain}`, body: '<p>x</p>' };
    const bad = await h.request('POST', '/campaigns', {
      key: p.secretKey,
      body: { ...base, translations: { 'not a tag!': { subject: 's', body: '<p>y</p>' } } },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error.errors[0]).toMatchObject({ field: 'translations.not a tag!', code: 'invalid_locale' });
    const liquid = await h.request('POST', '/campaigns', {
      key: p.secretKey,
      body: { ...base, translations: { de: { subject: 's', body: '<p>{{ x</p>' } } },
    });
    expect(liquid.status).toBe(422);
    expect(liquid.body.error.errors[0]).toMatchObject({ field: 'translations.de.body', code: 'invalid_template' });
    const both = await h.request('POST', '/campaigns', {
      key: p.secretKey,
      body: {
        ...base,
        translations: { de: { subject: 's', body: '<p>y</p>' } },
        variants: [{ key: 'A' }, { key: 'B', subject: 'b' }],
        experiment: { testPercent: 20, metric: 'open' },
      },
    });
    expect(both.status).toBe(422);
    expect(both.body.error.errors[0].field).toBe('translations');
  });
});

describe('a template with translations', () => {
  it('/v1/send gives each recipient their language; a request with its own body keeps it', async () => {
    const t = await h.request('POST', '/templates', {
      key: p.secretKey,
      body: {
        name: 'Reset',
        subject: 'Reset your password',
        from: `hi@${d.domain}`,
        type: 'TRANSACTIONAL',
        body: '<p>Click to reset.</p>',
        translations: { pt: { subject: 'Redefina a sua senha', body: '<p>Clique para redefinir.</p>' } },
      },
    });
    expect(t.status).toBe(201);
    expect(t.body.translations.pt).toMatchObject({
      subject: 'Redefina a sua senha',
      html: '<p>Clique para redefinir.</p>',
    });
    const send = (to: string, data: Record<string, unknown>) =>
      h.request('POST', '/v1/send', { key: p.secretKey, body: { to, template: t.body.id, data } });
    expect((await send('pt-br@rcpt.test', { locale: 'pt-BR' })).status).toBe(200);
    expect((await send('en@rcpt.test', {})).status).toBe(200);
    const pt = await mailTo('pt-br@rcpt.test');
    expect(pt.parsed.subject).toBe('Redefina a sua senha');
    expect(pt.parsed.html).toContain('Clique para redefinir.');
    const en = await mailTo('en@rcpt.test');
    expect(en.parsed.subject).toBe('Reset your password');
    const own = await h.request('POST', '/v1/send', {
      key: p.secretKey,
      body: { to: 'own@rcpt.test', template: t.body.id, subject: 'Own words', data: { locale: 'pt' } },
    });
    expect(own.status).toBe(200);
    expect((await mailTo('own@rcpt.test')).parsed.subject).toBe('Own words');
    // A test of the Portuguese version, to any address.
    const test = await h.request('POST', `/templates/${t.body.id}/test`, {
      key: p.secretKey,
      body: { email: 'test-pt@rcpt.test', locale: 'pt-BR' },
    });
    expect(test.status).toBe(200);
    expect((await mailTo('test-pt@rcpt.test')).parsed.subject).toBe('[TEST] Redefina a sua senha');
  });

  it("renders a blocks translation's footer in its language", async () => {
    const doc = (text: string) => ({
      version: 1,
      blocks: [
        { id: 't', type: 'text', html: `<p>${text}</p>` },
        { id: 'f', type: 'footer', html: '' },
      ],
    });
    const t = await h.request('POST', '/templates', {
      key: p.secretKey,
      body: {
        name: 'News',
        subject: 'News',
        from: `hi@${d.domain}`,
        format: 'blocks',
        blocks: doc('Hello'),
        translations: { de: { subject: 'Neuigkeiten', blocks: doc('Hallo') } },
      },
    });
    expect(t.status).toBe(201);
    expect(t.body.html).toContain('Manage preferences');
    expect(t.body.translations.de.html).toContain('Einstellungen verwalten');
    expect(t.body.translations.de.html).toContain('lang="de"');
    expect(t.body.translations.de.body).toMatch(/^<mjml lang="de">/);
    // Switching format converts the translations as it converts the body.
    const html = await h.request('PATCH', `/templates/${t.body.id}`, { key: p.secretKey, body: { format: 'html' } });
    expect(html.status).toBe(200);
    expect(html.body.translations.de).toMatchObject({ blocks: null, body: t.body.translations.de.html });
  });

  it("a workflow's SEND_EMAIL step sends the contact's translation", async () => {
    const t = await h.request('POST', '/templates', {
      key: p.secretKey,
      body: {
        name: 'Welcome flow',
        subject: 'Welcome',
        from: `hi@${d.domain}`,
        type: 'TRANSACTIONAL',
        body: '<p>Welcome aboard.</p>',
        translations: { nl: { subject: 'Welkom', body: '<p>Welkom aan boord.</p>', fromName: 'Acme NL' } },
      },
    });
    expect(t.status).toBe(201);
    const wf = workflowApi(h, p);
    await wf.build('tr-signup', { mail: ['SEND_EMAIL', { templateId: t.body.id }] }, [['trigger', 'mail']]);
    await wf.track('wf-nl@rcpt.test', 'tr-signup', { locale: 'nl-BE' });
    await wf.track('wf-en@rcpt.test', 'tr-signup');
    const nl = await mailTo('wf-nl@rcpt.test');
    expect(nl.parsed.subject).toBe('Welkom');
    expect(nl.parsed.from?.value[0].name).toBe('Acme NL');
    expect(nl.parsed.html).toContain('Welkom aan boord.');
    expect((await mailTo('wf-en@rcpt.test')).parsed.subject).toBe('Welcome');
    const [row] = await h.sql(`select locale from emails where to_email = 'wf-nl@rcpt.test'`);
    expect(row.locale).toBe('nl');
  });
});

describe('pickLocaleSql', () => {
  it("picks as pickLocale does, for the fan-out's many contacts at once", async () => {
    const tags = ['de', 'pt-BR', 'zh-Hant', 'zh', 'fr-CA'];
    const wanted = ['de', 'DE-at', 'pt', 'pt_br', 'pt-PT', 'zh-Hant-TW', 'zh-CN', 'fr', 'fr-FR', 'en', '', 'x!', null];
    for (const w of wanted) {
      const q = new PgDialect().sqlToQuery(sql`select ${pickLocaleSql(sql`${w}::text`, tags)} as tag`);
      const [row] = await h.sql<{ tag: string | null }>(q.sql, q.params as unknown[]);
      expect(row.tag, `for ${w}`).toBe(pickLocale(tags, w));
    }
  });
});
