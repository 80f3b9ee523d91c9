import { describe, expect, it } from 'vitest';
import { renderMessage, type RenderInput } from './render.js';

// Issue 38: the reader's language writes the automatic footer and sets `lang` on the mail.
describe('render in the reader’s language', () => {
  const base: RenderInput = {
    emailId: '0190aaaa-0000-7000-8000-000000000001',
    subject: 's',
    body: '<html><head></head><body><p>Hallo</p><a href="https://x.test">x</a></body></html>',
    type: 'MARKETING',
    tracking: 'ENABLED',
    contactData: {},
    variables: {},
    contact: { id: '0190aaaa-0000-7000-8000-000000000002', email: 'c@example.test' },
    publicUrl: 'https://p.test',
    secret: 's'.repeat(40),
  };

  it('writes the footer in German with lang="de" on the footer and on <html>', () => {
    const out = renderMessage({ ...base, locale: 'de' });
    expect(out.html.startsWith('<html lang="de"><head>')).toBe(true);
    expect(out.html).toContain('<div lang="de" style=');
    expect(out.html).toContain('Sie erhalten diese E-Mail, weil Sie sich für unsere Liste angemeldet haben.');
    expect(out.html).toContain('>Abmelden</a>');
    expect(out.html).toContain('>Einstellungen verwalten</a>');
    // Tracking still applies to the body's links, never to the footer's own.
    expect(out.html).toContain('https://p.test/t/c/');
    expect(out.html).toContain(`href="${out.urls.unsubscribeUrl}"`);
    expect(out.text).toContain('Abmelden');
  });

  it('names the topic in the language, escaped', () => {
    const out = renderMessage({ ...base, locale: 'fr-CA', topic: { id: 'x', name: 'Nouveautés & <tests>' } });
    expect(out.html).toContain('<html lang="fr-CA">');
    expect(out.html).toContain('<div lang="fr" ');
    expect(out.html).toContain('parce que votre adresse est abonnée à Nouveautés &amp; &lt;tests&gt;.');
    expect(out.html).toContain('>Se désabonner de Nouveautés &amp; &lt;tests&gt;</a>');
  });

  it('keeps a lang the body set, and wraps nothing when the body has no <html>', () => {
    const own = renderMessage({ ...base, locale: 'de', body: '<HTML LANG="en"><body>Hi</body></HTML>' });
    expect(own.html.startsWith('<HTML LANG="en"><body>')).toBe(true);
    expect(own.html).toContain('<div lang="de" ');
    const bare = renderMessage({ ...base, locale: 'nl', body: '<p>Hoi</p>' });
    expect(bare.html.startsWith('<p>Hoi</p><div lang="nl" ')).toBe(true);
    expect(bare.html).not.toContain('<html');
    expect(bare.html).toContain('>Afmelden</a>');
  });

  it('falls back to English for a language Pigeon does not ship, and ignores invalid locales', () => {
    const ja = renderMessage({ ...base, locale: 'ja' });
    expect(ja.html).toContain('<html lang="ja">');
    expect(ja.html).toContain('<div lang="en" ');
    expect(ja.html).toContain('You received this email because you subscribed to our list.');
    for (const locale of ['not a language!', '', null, undefined]) {
      const out = renderMessage({ ...base, locale });
      expect(out.html.startsWith('<html><head>'), String(locale)).toBe(true);
      expect(out.html).toContain('<div style=');
      expect(out.html).toContain('>Unsubscribe</a>');
    }
  });

  it('sets lang on transactional mail without tracking, and leaves HEADLESS mail as rendered', () => {
    const tx = renderMessage({ ...base, type: 'TRANSACTIONAL', tracking: 'DISABLED', locale: 'pt-BR' });
    expect(tx.html).toBe(base.body.replace('<html>', '<html lang="pt-BR">'));
    expect(renderMessage({ ...base, type: 'HEADLESS', locale: 'de' }).html).toBe(base.body);
  });
});
