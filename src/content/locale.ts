import { escapeHtml } from '../lib/html.js';
import { de } from './i18n/de.js';
import { en, type Catalogue, type MessageKey } from './i18n/en.js';
import { es } from './i18n/es.js';
import { fr } from './i18n/fr.js';
import { it } from './i18n/it.js';
import { nl } from './i18n/nl.js';
import { pt } from './i18n/pt.js';

/**
 * Languages of readers (issue 38): a contact's `locale` (a BCP 47 tag kept in `data.locale`), the
 * choice among what is available (a template's translations, the languages Pigeon ships), and the
 * message catalogues of what Pigeon itself writes to readers: the footer of marketing mail and the
 * hosted pages (unsubscribe, subscribe, preference centre, double opt-in confirmation).
 */

export type { Catalogue, MessageKey } from './i18n/en.js';

/** The data key of a contact's language (reserved: see docs/languages.md). */
export const LOCALE_KEY = 'locale';

/** The languages whose footer and hosted pages Pigeon ships, English first (the fallback). */
export const SHIPPED_LANGUAGES = ['en', 'de', 'fr', 'es', 'pt', 'it', 'nl'] as const;

export type ShippedLanguage = (typeof SHIPPED_LANGUAGES)[number];

const CATALOGUES: Record<ShippedLanguage, Catalogue> = { en, de, fr, es, pt, it, nl };

/** Each shipped language named in itself, as a language select shows it. */
export const LANGUAGE_NAMES: Record<ShippedLanguage, string> = {
  en: 'English',
  de: 'Deutsch',
  fr: 'Français',
  es: 'Español',
  pt: 'Português',
  it: 'Italiano',
  nl: 'Nederlands',
};

/**
 * `value` as a canonical BCP 47 tag (`Intl.getCanonicalLocales`: `pt-br` → `pt-BR`, `EN` → `en`), or
 * null when it is no string, empty, longer than 64 characters, `und`, or not a well-formed tag. The
 * POSIX spelling with `_` (`pt_BR`, common in exports of other tools) is read as `-`.
 */
export function normalizeLocale(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const raw = value.trim().replace(/_/g, '-');
  if (raw === '' || raw.length > 64) return null;
  try {
    const [tag] = Intl.getCanonicalLocales(raw);
    return tag && tag !== 'und' ? tag : null;
  } catch {
    return null; // RangeError: not a well-formed tag
  }
}

/** The primary language subtag of a canonical tag (`pt-BR` → `pt`). */
const languageOf = (tag: string) => tag.split('-')[0];

/**
 * The entry of `available` that suits a reader who wants `wanted`, compared as canonical tags
 * ({@link normalizeLocale}; entries that are not tags never match):
 * 1. the same tag (`pt-BR` for `pt-BR`);
 * 2. the tag with its last subtags dropped, longest first (`zh-Hant-TW` → `zh-Hant` → `zh`);
 * 3. another tag of the same language, the first in `available`'s order (`pt` or `pt-PT` → `pt-BR`).
 * @returns the entry as spelled in `available`, or null (nothing of that language, or `wanted` is
 *   null or not a tag): the caller then uses its default.
 */
export function pickLocale(available: readonly string[], wanted: string | null): string | null {
  const want = normalizeLocale(wanted);
  if (!want) return null;
  const byTag = new Map<string, string>();
  for (const a of available) {
    const tag = normalizeLocale(a);
    if (tag && !byTag.has(tag.toLowerCase())) byTag.set(tag.toLowerCase(), a);
  }
  const parts = want.toLowerCase().split('-');
  for (let n = parts.length; n > 0; n--) {
    const hit = byTag.get(parts.slice(0, n).join('-'));
    if (hit !== undefined) return hit;
  }
  for (const [tag, a] of byTag) if (languageOf(tag) === parts[0]) return a;
  return null;
}

/** The shipped language for `locale` (any value; see {@link pickLocale}), or null when none fits. */
export function shippedLanguage(locale: unknown): ShippedLanguage | null {
  return pickLocale(SHIPPED_LANGUAGES, normalizeLocale(locale)) as ShippedLanguage | null;
}

/**
 * The language tags of an `Accept-Language` header (RFC 9110 §12.5.4), most preferred first: by
 * `q` (default 1; ties keep the header's order), leaving out `*`, `q=0` and tags that are not BCP 47.
 * At most the first 20 entries are read (a header is the client's to fill).
 */
export function acceptedLanguages(header: string | undefined): string[] {
  if (!header) return [];
  return header
    .split(',')
    .slice(0, 20)
    .map((part, i) => {
      const [tag, ...params] = part.split(';');
      const q = params.map((p) => /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(p)).find(Boolean);
      return { tag: tag.trim() === '*' ? null : normalizeLocale(tag), q: q ? Number(q[1]) : 1, i };
    })
    .filter((e): e is { tag: string; q: number; i: number } => e.tag !== null && e.q > 0 && Number.isFinite(e.q))
    .sort((a, b) => b.q - a.q || a.i - b.i)
    .map((e) => e.tag);
}

/**
 * The language of a hosted page a reader opens: the contact's `locale` when Pigeon ships a language
 * of it, else the first language of the browser's `Accept-Language` that it ships, else English.
 */
export function pageLanguage(contactLocale: unknown, acceptLanguage: string | undefined): ShippedLanguage {
  const own = shippedLanguage(contactLocale);
  if (own) return own;
  for (const tag of acceptedLanguages(acceptLanguage)) {
    const hit = shippedLanguage(tag);
    if (hit) return hit;
  }
  return 'en';
}

/** The message catalogue of `language` (every key of en.ts). */
export const catalogue = (language: ShippedLanguage): Catalogue => CATALOGUES[language];

/**
 * `message` with each `{name}` replaced by `values[name]` (a name without a value stays as written).
 * Plain text in, plain text out: for HTML use {@link formatHtml}.
 */
export function formatMessage(message: string, values: Record<string, string> = {}): string {
  return message.replace(/\{(\w+)\}/g, (m, name: string) => (Object.hasOwn(values, name) ? values[name] : m));
}

/**
 * `message` as HTML: its own text escaped, each `{name}` replaced by `values[name]` **as given**, so
 * the caller passes HTML (an escaped value, or markup such as `<strong>…</strong>` around one).
 */
export function formatHtml(message: string, values: Record<string, string> = {}): string {
  return message
    .split(/(\{\w+\})/)
    .map((part) => {
      const name = /^\{(\w+)\}$/.exec(part)?.[1];
      return name !== undefined && Object.hasOwn(values, name) ? values[name] : escapeHtml(part);
    })
    .join('');
}

/**
 * The translator of one language: `t(key, values)` is the message `key` of `language` as plain text
 * ({@link formatMessage}); `t.html(key, values)` the same as HTML ({@link formatHtml}).
 */
export function translator(language: ShippedLanguage) {
  const c = CATALOGUES[language];
  const t = (key: MessageKey, values?: Record<string, string>) => formatMessage(c[key], values);
  return Object.assign(t, {
    language,
    html: (key: MessageKey, values?: Record<string, string>) => formatHtml(c[key], values),
  });
}

export type Translator = ReturnType<typeof translator>;
