import { escapeHtml } from '../../lib/html.js';
import type { PreferenceTopic } from '../../topics/membership.js';
import { postButton } from '../../web/public-page.js';

/**
 * The preference centre's content (issue 35): HTML only, no script, so that it works in any browser
 * and mail client's web view. subscription.routes.ts loads the facts and wraps this in the public
 * page shell (web/public-page.ts).
 */

/** How long "pause emails" lasts: the form's `snooze` values. */
export const SNOOZE_CHOICES = [
  { value: '2w', label: '2 weeks' },
  { value: '1m', label: '1 month' },
  { value: '3m', label: '3 months' },
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
}

/** "1 March 2027": a date as a reader anywhere reads it, without their time zone (UTC). */
const longDate = (d: Date) =>
  d.toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });

/**
 * The body of the preference centre of `f`, whose forms post to `action`; `note` is a sentence shown
 * on top (what was just saved), `error` one that says what went wrong.
 */
export function preferencesBody(f: PreferencesFacts, action: string, note?: string, error?: string): string {
  const parts: string[] = [];
  if (error) parts.push(`<p class="error" role="alert">${escapeHtml(error)}</p>`);
  else if (note) parts.push(`<p class="note" role="status">${escapeHtml(note)}</p>`);
  parts.push(`<p>Choose which emails <strong>${escapeHtml(f.email)}</strong> gets from ${escapeHtml(f.project)}.</p>`);
  if (!f.subscribed) {
    parts.push(
      `<p>You are unsubscribed: you get no emails from ${escapeHtml(f.project)} except the ones you ask for, such as receipts or password resets.</p>`,
    );
  }
  if (f.topics.length) parts.push(topicsForm(f, action));
  if (f.subscribed) {
    parts.push('<hr>', snoozeSection(f, action));
    parts.push(
      '<hr><h2>Unsubscribe from everything</h2>',
      `<p>Stop every newsletter and announcement of ${escapeHtml(f.project)}. Emails about your account, such as receipts, still arrive.</p>`,
      postButton(action, 'Unsubscribe from everything', { action: 'unsubscribe' }, true),
    );
  } else {
    parts.push(
      f.topics.length ? '<hr><h2>Everything</h2>' : '',
      postButton(action, f.topics.length ? 'Subscribe to everything again' : 'Subscribe again', {
        action: 'subscribe',
      }),
    );
  }
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
  const button = f.subscribed ? 'Save preferences' : 'Subscribe to the ticked topics';
  return (
    `<form method="post" action="${escapeHtml(action)}"><input type="hidden" name="action" value="save">` +
    `<input type="hidden" name="shown" value="${shown}">` +
    `<fieldset><legend>Topics</legend>${boxes}</fieldset><button type="submit">${button}</button></form>`
  );
}

function snoozeSection(f: PreferencesFacts, action: string): string {
  if (f.snoozedUntil) {
    return (
      `<h2>Paused</h2><p>Emails are paused until ${escapeHtml(longDate(f.snoozedUntil))}.</p>` +
      postButton(action, 'Resume emails now', { action: 'resume' }, true)
    );
  }
  const radios = SNOOZE_CHOICES.map(
    (c, i) =>
      `<label for="snooze-${c.value}"><input type="radio" id="snooze-${c.value}" name="snooze" value="${c.value}"${i === 0 ? ' checked' : ''}>${c.label}</label>`,
  ).join('');
  return (
    `<h2>Take a break</h2><form method="post" action="${escapeHtml(action)}"><input type="hidden" name="action" value="snooze">` +
    `<fieldset><legend>Pause newsletters and announcements for</legend>${radios}</fieldset>` +
    `<button type="submit" class="secondary">Pause emails</button></form>`
  );
}
