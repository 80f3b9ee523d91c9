import { LANGUAGE_NAMES, SHIPPED_LANGUAGES, type ShippedLanguage, type Translator } from '../../content/locale.js';
import { escapeHtml } from '../../lib/html.js';
import type { PreferenceTopic } from '../../topics/membership.js';
import { postButton } from '../../web/public-page.js';

/**
 * The preference centre's content (issue 35): HTML only, no script, so that it works in any browser
 * and mail client's web view, in the reader's language (issue 38, content/locale.ts).
 * subscription.routes.ts loads the facts and wraps this in the public page shell (web/public-page.ts).
 */

/** How long "pause emails" lasts: the form's `snooze` values, with the message key of each label. */
export const SNOOZE_CHOICES = [
  { value: '2w', key: 'prefs.snooze2w' },
  { value: '1m', key: 'prefs.snooze1m' },
  { value: '3m', key: 'prefs.snooze3m' },
] as const;

export type SnoozeChoice = (typeof SNOOZE_CHOICES)[number]['value'];

/** The end of a snooze of `choice` started at `at` (calendar months, in UTC). */
export function snoozeEnd(choice: SnoozeChoice, at: Date): Date {
  const d = new Date(at);
  if (choice === '2w') d.setUTCDate(d.getUTCDate() + 14);
  else d.setUTCMonth(d.getUTCMonth() + (choice === '1m' ? 1 : 3));
  return d;
}

/** What the preference centre shows of a contact. */
export interface PreferencesFacts {
  email: string;
  project: string;
  subscribed: boolean;
  /** The end of a snooze still running, else null. */
  snoozedUntil: Date | null;
  topics: PreferenceTopic[];
  /** The messages of the page's language. */
  t: Translator;
  /** The language the select shows as chosen (the contact's, else the page's). */
  language: ShippedLanguage;
}

/** "1 March 2027" in the page's language: a date as a reader anywhere reads it, without their time zone (UTC). */
const longDate = (d: Date, language: ShippedLanguage) =>
  d.toLocaleDateString(language === 'en' ? 'en-GB' : language, {
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  });

/**
 * The body of the preference centre of `f`, whose forms post to `action`; `note` is a sentence shown
 * on top (what was just saved), `error` one that says what went wrong (both already in the page's language).
 */
export function preferencesBody(f: PreferencesFacts, action: string, note?: string, error?: string): string {
  const { t } = f;
  const project = escapeHtml(f.project);
  const parts: string[] = [];
  if (error) parts.push(`<p class="error" role="alert">${escapeHtml(error)}</p>`);
  else if (note) parts.push(`<p class="note" role="status">${escapeHtml(note)}</p>`);
  parts.push(`<p>${t.html('prefs.intro', { email: `<strong>${escapeHtml(f.email)}</strong>`, project })}</p>`);
  if (!f.subscribed) parts.push(`<p>${t.html('prefs.unsubscribedNote', { project })}</p>`);
  if (f.topics.length) parts.push(topicsForm(f, action));
  if (f.subscribed) {
    parts.push('<hr>', snoozeSection(f, action));
    parts.push(
      `<hr><h2>${t.html('prefs.everythingTitle')}</h2>`,
      `<p>${t.html('prefs.everythingText', { project })}</p>`,
      postButton(action, t('prefs.everythingButton'), { action: 'unsubscribe' }, true),
    );
  } else {
    parts.push(
      f.topics.length ? `<hr><h2>${t.html('prefs.everything')}</h2>` : '',
      postButton(action, t(f.topics.length ? 'prefs.subscribeAll' : 'prefs.subscribeAgain'), {
        action: 'subscribe',
      }),
    );
  }
  parts.push('<hr>', languageForm(f, action));
  return parts.join('');
}

function topicsForm(f: PreferencesFacts, action: string): string {
  const boxes = f.topics
    .map((t) => {
      const id = `topic-${t.id}`;
      const hint = t.description ? `<span class="hint" id="${id}-hint">${escapeHtml(t.description)}</span>` : '';
      const described = t.description ? ` aria-describedby="${id}-hint"` : '';
      // Checked shows the membership; for an unsubscribed contact a ticked topic is what saving joins.
      const checked = t.subscribed && f.subscribed ? ' checked' : '';
      return `<label for="${id}"><input type="checkbox" id="${id}" name="topic.${escapeHtml(t.id)}" value="on"${checked}${described}>${escapeHtml(t.name)}${hint}</label>`;
    })
    .join('');
  const shown = escapeHtml(f.topics.map((t) => t.id).join(','));
  const button = f.t.html(f.subscribed ? 'prefs.save' : 'prefs.subscribeTicked');
  return (
    `<form method="post" action="${escapeHtml(action)}"><input type="hidden" name="action" value="save">` +
    `<input type="hidden" name="shown" value="${shown}">` +
    `<fieldset><legend>${f.t.html('prefs.topics')}</legend>${boxes}</fieldset><button type="submit">${button}</button></form>`
  );
}

function snoozeSection(f: PreferencesFacts, action: string): string {
  const { t } = f;
  if (f.snoozedUntil) {
    return (
      `<h2>${t.html('prefs.pausedTitle')}</h2><p>${t.html('prefs.pausedUntil', { date: escapeHtml(longDate(f.snoozedUntil, f.language)) })}</p>` +
      postButton(action, t('prefs.resume'), { action: 'resume' }, true)
    );
  }
  const radios = SNOOZE_CHOICES.map(
    (c, i) =>
      `<label for="snooze-${c.value}"><input type="radio" id="snooze-${c.value}" name="snooze" value="${c.value}"${i === 0 ? ' checked' : ''}>${t.html(c.key)}</label>`,
  ).join('');
  return (
    `<h2>${t.html('prefs.breakTitle')}</h2><form method="post" action="${escapeHtml(action)}"><input type="hidden" name="action" value="snooze">` +
    `<fieldset><legend>${t.html('prefs.pauseFor')}</legend>${radios}</fieldset>` +
    `<button type="submit" class="secondary">${t.html('prefs.pause')}</button></form>`
  );
}

/** The language select (field `locale`, one of SHIPPED_LANGUAGES), each language named in itself. */
function languageForm(f: PreferencesFacts, action: string): string {
  const options = SHIPPED_LANGUAGES.map(
    (l) =>
      `<option value="${l}" lang="${l}"${l === f.language ? ' selected' : ''}>${escapeHtml(LANGUAGE_NAMES[l])}</option>`,
  ).join('');
  return (
    `<h2>${f.t.html('prefs.languageTitle')}</h2><form method="post" action="${escapeHtml(action)}"><input type="hidden" name="action" value="language">` +
    `<label class="field" for="locale">${f.t.html('prefs.languageLabel')}</label><select id="locale" name="locale">${options}</select>` +
    `<button type="submit" class="secondary">${f.t.html('prefs.languageSave')}</button></form>`
  );
}
