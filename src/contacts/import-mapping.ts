/**
 * Which contact property a CSV column fills: the rule of `POST /contacts/import` for a column its
 * `mapping` does not name, and the mapping the dashboard proposes when it reads a file's header (the
 * same function, web/src/api/rules.ts). Pure: imports nothing.
 */

/**
 * What a column becomes: the email, the subscription, a data key (`data:<key>`), topic choices (`topics`:
 * cells of JSON `{"<topic id or name>": true|false}`), one topic's membership (`topic:<topicId>`: cells
 * yes/no), or nothing. Topic columns are only ever chosen by a mapping, never by the automatic rule.
 */
export type ColumnTarget = 'email' | 'subscribed' | 'skip' | 'topics' | `data:${string}` | `topic:${string}`;

const CSV_BOOLEANS: Record<string, boolean> = {
  true: true,
  false: false,
  yes: true,
  no: false,
  '1': true,
  '0': false,
  y: true,
  n: false,
};

/**
 * A yes/no CSV cell (`subscribed` and `topic:<topicId>` columns): true/yes/1/y → true,
 * false/no/0/n → false (any case, spaces around ignored), '' → null (no change), anything else → undefined.
 */
export function csvBoolean(cell: string | undefined): boolean | null | undefined {
  const v = (cell ?? '').trim().toLowerCase();
  if (v === '') return null;
  return Object.hasOwn(CSV_BOOLEANS, v) ? CSV_BOOLEANS[v] : undefined;
}

/** Headers that name the email, compared without case, spaces, `-` and `_`. */
const EMAIL_NAMES = new Set(['email', 'emailaddress', 'mail', 'mailaddress', 'emails']);

const squash = (h: string): string => h.toLowerCase().replace(/[\s_\-.]/g, '');

/**
 * True when a header cell names an email address column (`email`, `E-mail`, `Email Address`,
 * `email_address`, `mail`…): the one rule of every CSV import (contacts, suppressions).
 */
export const isEmailHeader = (raw: string): boolean => EMAIL_NAMES.has(squash(raw.trim()));

/**
 * Headers that name the contact's language, compared as {@link EMAIL_NAMES}: their column fills the
 * reserved `data.locale` (issue 38, docs/languages.md) that picks the mail's translation and the
 * language of the footer and hosted pages.
 */
const LOCALE_NAMES = new Set(['locale', 'language', 'lang', 'languagecode', 'preferredlanguage']);

/**
 * The automatic target of each header cell, in order: the first email-like header (`email`, `E-mail`,
 * `Email Address`, `email_address`, `mail`) is the email, a `subscribed` header the subscription, the
 * first language header (`locale`, `language`, `Lang`, `language_code`, `Preferred language`) the
 * reserved `data:locale`, an empty header is skipped and any other becomes `data:<header>` (trimmed).
 */
export function proposeMapping(header: string[]): ColumnTarget[] {
  let email = false;
  let subscribed = false;
  let locale = false;
  return header.map((raw): ColumnTarget => {
    const h = raw.trim();
    if (h === '') return 'skip';
    const s = squash(h);
    if (!email && isEmailHeader(h)) {
      email = true;
      return 'email';
    }
    if (!subscribed && s === 'subscribed') {
      subscribed = true;
      return 'subscribed';
    }
    if (!locale && LOCALE_NAMES.has(s)) {
      locale = true;
      return 'data:locale';
    }
    return `data:${h}`;
  });
}

/**
 * The targets of a file's header under a client's mapping (`{column: target}`, by the header's
 * trimmed text): named columns take the mapping's target, the others the automatic one; a column the
 * mapping makes the email, subscription or `data:locale` takes that role from any automatic one.
 */
export function resolveMapping(header: string[], mapping: Record<string, string> = {}): ColumnTarget[] {
  const auto = proposeMapping(header);
  const explicit = header.map((h) => mapping[h.trim()] as ColumnTarget | undefined);
  const taken = new Set<ColumnTarget>(
    explicit.filter((t) => t === 'email' || t === 'subscribed' || t === 'data:locale'),
  );
  return header.map((h, i): ColumnTarget => {
    const t = explicit[i] ?? auto[i];
    if (explicit[i] === undefined && taken.has(t)) return `data:${h.trim()}`;
    return t;
  });
}
