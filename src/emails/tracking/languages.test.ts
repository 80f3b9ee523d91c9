import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../../test/factories.js';
import { createHarness, type Harness } from '../../../test/harness.js';
import { createVerifiedDomain, eventually, type TestDomain } from '../../../test/sending-fixtures.js';
import { startSmtpSink, type SmtpSink } from '../../../test/smtp-sink.js';
import { runFanout } from '../../campaigns/fanout.js';
import { startWorker, type WorkerHandle } from '../../worker/runner.js';
import { contactToken } from '../render/tokens.js';

// Issue 38: the contact's `data.locale` writes the marketing footer and sets `lang`; the hosted pages
// speak the contact's language, else the browser's, else English; a value that is no language is
// kept as data and ignored.
describe('the reader’s language in mail and hosted pages', () => {
  let h: Harness;
  let sink: SmtpSink;
  let worker: WorkerHandle;
  let p: TestProject;
  let d: TestDomain;
  let news: string;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    sink = await startSmtpSink();
    h = await createHarness({ env: { SMTP_URL: sink.url } });
    worker = await startWorker(h.deps, 2);
    p = await createProject(h);
    d = await createVerifiedDomain(h, p.id);
    const t = await h.request('POST', '/topics', {
      key: p.secretKey,
      body: { name: 'Neuigkeiten', default: 'opt-in' },
    });
    expect(t.status, t.text).toBe(201);
    news = t.body.id;
    for (const [email, locale] of [
      ['anna@lang.test', 'de-AT'],
      ['luc@lang.test', undefined],
      ['kai@lang.test', 'Klingon!'],
    ] as const) {
      const res = await h.request('POST', '/contacts', {
        key: p.secretKey,
        body: { email, subscribed: true, topics: { Neuigkeiten: true }, data: locale ? { locale } : {} },
      });
      expect(res.status, res.text).toBe(201);
      ids[email] = res.body.id;
    }
  });
  afterAll(async () => {
    await worker?.stop();
    await h?.close();
    await sink?.close();
  });

  const page = (path: string, headers: Record<string, string> = {}) =>
    h.request('GET', path, { headers: { accept: 'text/html', ...headers } });
  const form = (body: Record<string, string>, headers: Record<string, string> = {}) => ({
    raw: true,
    body: new URLSearchParams(body).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html', ...headers },
  });

  it('sends each contact the footer of their language with lang on <html>', async () => {
    const c = await h.request('POST', '/campaigns', {
      key: p.secretKey,
      body: {
        name: 'Sprachen',
        subject: 'Sprachen',
        body: '<html><body><p>Hallo</p></body></html>',
        from: `news@${d.domain}`,
        type: 'MARKETING',
        topicId: news,
      },
    });
    expect(c.status, c.text).toBe(201);
    expect((await h.request('POST', `/campaigns/${c.body.data.id}/send`, { key: p.secretKey })).status).toBe(200);
    await runFanout(h.deps, c.body.data.id);
    const mails = await eventually(async () => {
      const got = sink.messages.filter((m) => m.parsed.subject === 'Sprachen');
      return got.length === 3 ? got : undefined;
    }, 30_000);
    const to = (email: string) => String(mails.find((m) => m.to.includes(email))!.parsed.html);

    const de = to('anna@lang.test');
    expect(de).toContain('<html lang="de-AT">');
    expect(de).toContain('<div lang="de" ');
    expect(de).toContain('Sie erhalten diese E-Mail, weil Sie Neuigkeiten abonniert haben.');
    expect(de).toContain('>Von Neuigkeiten abmelden</a>');
    expect(de).toContain('>Einstellungen verwalten</a>');

    // No language, or a value that is none: English, and no lang is claimed.
    for (const email of ['luc@lang.test', 'kai@lang.test']) {
      const html = to(email);
      expect(html, email).toContain('<html><body>');
      expect(html, email).toContain('You received this email because you subscribed to Neuigkeiten.');
      expect(html, email).not.toContain(' lang=');
    }
  });

  it('answers the unsubscribe pages and the preference centre in German for the German contact', async () => {
    const whole = contactToken(h.deps.secret, ids['anna@lang.test']);
    // The contact's language wins over the browser's.
    const unsub = await page(`/unsubscribe/${whole}`, { 'accept-language': 'fr' });
    expect(unsub.status).toBe(200);
    expect(unsub.text).toContain('<html lang="de">');
    expect(unsub.text).toContain('<h1>Abmelden</h1>');
    expect(unsub.text).toContain('<strong>anna@lang.test</strong> von den E-Mails von');
    const topicLink = contactToken(h.deps.secret, ids['anna@lang.test'], news);
    expect((await page(`/unsubscribe/${topicLink}`)).text).toContain('<h1>Von Neuigkeiten abmelden</h1>');

    const prefs = await page(`/preferences/${whole}`);
    expect(prefs.text).toContain('<html lang="de">');
    expect(prefs.text).toContain('<h1>Ihre E-Mail-Einstellungen</h1>');
    expect(prefs.text).toContain('<legend>Themen</legend>');
    expect(prefs.text).toContain('<option value="de" lang="de" selected>Deutsch</option>');

    const done = await h.request('POST', `/unsubscribe/${whole}`, form({}));
    expect(done.text).toContain('<h1>Abgemeldet</h1>');
    expect(done.text).toContain('Doch anders entschieden? Einstellungen verwalten');
    const back = await h.request('POST', `/subscribe/${whole}`, form({}));
    expect(back.text).toContain('<h1>Angemeldet</h1>');
  });

  it('answers in French for a contact without a usable language whose browser asks for French', async () => {
    for (const email of ['luc@lang.test', 'kai@lang.test']) {
      const token = contactToken(h.deps.secret, ids[email]);
      const fr = { 'accept-language': 'fr-BE, fr;q=0.9, en;q=0.5' };
      const unsub = await page(`/unsubscribe/${token}`, fr);
      expect(unsub.text, email).toContain('<html lang="fr">');
      expect(unsub.text, email).toContain('<h1>Se désabonner</h1>');
      const prefs = await page(`/preferences/${token}`, fr);
      expect(prefs.text, email).toContain('<h1>Vos préférences d’e-mail</h1>');
      expect(prefs.text, email).toContain('<option value="fr" lang="fr" selected>Français</option>');
      // Without a language from either: English.
      const en = await page(`/preferences/${token}`, { 'accept-language': 'ja' });
      expect(en.text, email).toContain('<html lang="en">');
      expect(en.text, email).toContain('<h1>Your email preferences</h1>');
    }
    // A broken link's page speaks the browser's language too.
    const bad = await page('/preferences/nonsense', { 'accept-language': 'es' });
    expect(bad.status).toBe(404);
    expect(bad.text).toContain('<h1>Este enlace no funciona</h1>');
    // The value that is no language is still the contact's data, as written.
    const [kai] = await h.sql('select data from contacts where id = $1', [ids['kai@lang.test']]);
    expect(kai.data).toEqual({ locale: 'Klingon!' });
  });

  it('saves the language chosen in the preference centre as data.locale and answers in it', async () => {
    const token = contactToken(h.deps.secret, ids['luc@lang.test']);
    const url = `/preferences/${token}`;
    const saved = await h.request('POST', url, form({ action: 'language', locale: 'nl' }, { 'accept-language': 'fr' }));
    expect(saved.status).toBe(200);
    expect(saved.text).toContain('<html lang="nl">');
    expect(saved.text).toContain('Je taal is opgeslagen.');
    expect(saved.text).toContain('<option value="nl" lang="nl" selected>Nederlands</option>');
    const [luc] = await h.sql('select data from contacts where id = $1', [ids['luc@lang.test']]);
    expect(luc.data).toEqual({ locale: 'nl' });

    // Only a language the pages speak; anything else is an error sentence and changes nothing.
    const bad = await h.request('POST', url, form({ action: 'language', locale: 'xx' }));
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Kies een van de talen uit de lijst.');
    expect((await h.sql('select data from contacts where id = $1', [ids['luc@lang.test']]))[0].data).toEqual({
      locale: 'nl',
    });
  });

  it('keeps a /v1/track locale that is no language as data', async () => {
    const res = await h.request('POST', '/v1/track', {
      key: p.publicKey,
      body: { email: 'zed@lang.test', event: 'visited', data: { locale: 'not a language' } },
    });
    expect(res.status, res.text).toBe(200);
    const [zed] = await h.sql("select data from contacts where project_id = $1 and email = 'zed@lang.test'", [p.id]);
    expect(zed.data).toMatchObject({ locale: 'not a language' });
  });
});
