import { describe, expect, it } from 'vitest';
import {
  acceptedLanguages,
  catalogue,
  formatHtml,
  formatMessage,
  normalizeLocale,
  pageLanguage,
  pickLocale,
  SHIPPED_LANGUAGES,
  shippedLanguage,
} from './locale.js';

describe('normalizeLocale', () => {
  it('canonicalises BCP 47 tags and reads the POSIX underscore', () => {
    expect(normalizeLocale('de')).toBe('de');
    expect(normalizeLocale('pt-br')).toBe('pt-BR');
    expect(normalizeLocale(' EN-us ')).toBe('en-US');
    expect(normalizeLocale('zh-hant-tw')).toBe('zh-Hant-TW');
    expect(normalizeLocale('pt_BR')).toBe('pt-BR');
  });
  it('is null for anything that is not a tag', () => {
    for (const v of ['', '  ', 'german!', 'e', 'de--DE', 'x'.repeat(70), 'und', 42, null, undefined, {}, ['de']])
      expect(normalizeLocale(v), JSON.stringify(v)).toBeNull();
  });
});

describe('pickLocale', () => {
  it('takes the exact tag first, whatever its case', () => {
    expect(pickLocale(['pt', 'pt-BR'], 'pt-br')).toBe('pt-BR');
    expect(pickLocale(['en', 'DE-at', 'de'], 'de-AT')).toBe('DE-at');
  });
  it('falls back to the language family: pt-BR → pt, zh-Hant-TW → zh-Hant → zh', () => {
    expect(pickLocale(['en', 'pt'], 'pt-BR')).toBe('pt');
    expect(pickLocale(['zh', 'zh-Hant'], 'zh-Hant-TW')).toBe('zh-Hant');
    expect(pickLocale(['zh'], 'zh-Hant-TW')).toBe('zh');
  });
  it('takes another tag of the language when only that exists: pt → pt-BR', () => {
    expect(pickLocale(['en', 'pt-BR'], 'pt')).toBe('pt-BR');
    expect(pickLocale(['pt-BR', 'pt-AO'], 'pt-PT')).toBe('pt-BR');
  });
  it('is null without a match, without a wanted tag, or for an invalid one', () => {
    expect(pickLocale(['en', 'de'], 'fr-CA')).toBeNull();
    expect(pickLocale(['en', 'de'], null)).toBeNull();
    expect(pickLocale(['en', 'de'], 'not a tag')).toBeNull();
    expect(pickLocale([], 'de')).toBeNull();
    expect(pickLocale(['not a tag'], 'de')).toBeNull();
  });
});

describe('the languages a reader gets', () => {
  it('reads Accept-Language by q, leaving out *, q=0 and junk', () => {
    expect(acceptedLanguages('fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5')).toEqual(['fr-CH', 'fr', 'en', 'de']);
    expect(acceptedLanguages('en;q=0.1, nl')).toEqual(['nl', 'en']);
    expect(acceptedLanguages('de;q=0, !!, es')).toEqual(['es']);
    expect(acceptedLanguages(undefined)).toEqual([]);
  });
  it('maps a locale to a shipped language by family', () => {
    expect(shippedLanguage('de-AT')).toBe('de');
    expect(shippedLanguage('pt_BR')).toBe('pt');
    expect(shippedLanguage('ja')).toBeNull();
    expect(shippedLanguage('nonsense value')).toBeNull();
  });
  it("chooses a page's language: the contact's, else the browser's, else English", () => {
    expect(pageLanguage('de', 'fr')).toBe('de');
    expect(pageLanguage(null, 'fr-FR,fr;q=0.9')).toBe('fr');
    // A locale Pigeon does not ship, or an invalid one, counts as none.
    expect(pageLanguage('ja', 'ja, fr;q=0.5')).toBe('fr');
    expect(pageLanguage('Klingon!', 'it')).toBe('it');
    expect(pageLanguage(undefined, 'ja')).toBe('en');
    expect(pageLanguage(undefined, undefined)).toBe('en');
  });
});

describe('message catalogues', () => {
  const names = (m: string) => [...m.matchAll(/\{(\w+)\}/g)].map((x) => x[1]).sort();
  it('every language has every key, with the placeholders of the English message, and no empty text', () => {
    const en = catalogue('en');
    for (const lang of SHIPPED_LANGUAGES) {
      const c = catalogue(lang);
      expect(Object.keys(c).sort(), lang).toEqual(Object.keys(en).sort());
      for (const [key, message] of Object.entries(c)) {
        expect(names(message), `${lang} ${key}`).toEqual(names(en[key as keyof typeof en]));
        expect(message.trim(), `${lang} ${key}`).not.toBe('');
        if (lang !== 'en' && message === en[key as keyof typeof en])
          expect(message, `${lang} ${key} is untranslated`).toMatch(/^\{\w+\}$/);
      }
    }
  });
  it('fills values; HTML messages escape their own text and insert values as given', () => {
    expect(formatMessage('Unsubscribe from {topic}', { topic: 'A & B' })).toBe('Unsubscribe from A & B');
    expect(formatMessage('{missing} stays')).toBe('{missing} stays');
    expect(formatHtml('Stop <now> {x}?', { x: '<strong>a</strong>' })).toBe('Stop &lt;now&gt; <strong>a</strong>?');
  });
});
