import type { FormField } from '../db/schema.js';
import { translator, type Translator } from '../content/locale.js';
import { escapeHtml } from '../lib/html.js';
import { postButton, type PublicPage } from '../web/public-page.js';
import { HONEYPOT, isTicked } from './fields.js';
import type { PublicForm } from './forms.repo.js';

/**
 * The HTML of hosted forms: the inputs of a form (one writer for the hosted page `GET /f/:id` and the
 * snippet the dashboard offers to paste into any site, so both post the same fields), and the pages
 * a visitor meets (the form, its success, the confirmation link's outcomes), drawn by
 * web/public-page.ts. Every value is escaped here.
 */

/** How long a confirmation link works, in days (the pages say it). */
export const CONFIRM_DAYS = 7;

/** Values to show in the inputs again (a submission that was refused): field key → value. */
export type ShownValues = Readonly<Record<string, unknown>>;

const attr = (name: string, value: string) => ` ${name}="${escapeHtml(value)}"`;
const text = (v: unknown) => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');

/** The inputs of `fields`, each labelled; ids start with `idPrefix`. `values` fills them in. */
function inputsHtml(fields: readonly FormField[], idPrefix: string, values: ShownValues, nl: string): string {
  return fields
    .map((f) => {
      const id = `${idPrefix}${f.key}`;
      const required = f.required || f.type === 'email' ? ' required' : '';
      const star = required ? ' <span aria-hidden="true">*</span>' : '';
      if (f.type === 'checkbox') {
        const checked = isTicked(values[f.key]) ? ' checked' : '';
        return `<label><input type="checkbox"${attr('name', f.key)} value="true"${checked}${required}> ${escapeHtml(f.label)}${star}</label>`;
      }
      const label = `<label class="field"${attr('for', id)}>${escapeHtml(f.label)}${star}</label>`;
      if (f.type === 'select') {
        const chosen = text(values[f.key]);
        const options = (f.options ?? [])
          .map((o) => `<option${attr('value', o)}${o === chosen ? ' selected' : ''}>${escapeHtml(o)}</option>`)
          .join('');
        return `${label}${nl}<select${attr('id', id)}${attr('name', f.key)}${required}><option value="">Choose…</option>${options}</select>`;
      }
      const type = f.type === 'email' ? 'email' : 'text';
      const auto = f.type === 'email' ? ' autocomplete="email"' : '';
      const value = text(values[f.key]);
      return `${label}${nl}<input type="${type}"${attr('id', id)}${attr('name', f.key)}${value ? attr('value', value) : ''}${auto}${required}>`;
    })
    .join(nl);
}

/** The honeypot: out of sight and out of the tab order; `style` places it where `.honey` is not defined. */
const honeypotHtml = (idPrefix: string, style: string) =>
  `<div${style ? attr('style', style) : ' class="honey"'} aria-hidden="true"><label${attr('for', `${idPrefix}${HONEYPOT}`)}>Leave this empty</label>` +
  `<input type="text"${attr('id', `${idPrefix}${HONEYPOT}`)}${attr('name', HONEYPOT)} tabindex="-1" autocomplete="off"></div>`;

/** The address the form posts to: `PUBLIC_URL/f/:id`. */
export const formUrl = (publicUrl: string, formId: string) => `${publicUrl}/f/${formId}`;

/**
 * The snippet to paste into any site: a plain `<form method="post">` to `PUBLIC_URL/f/:id` with the
 * form's fields, the honeypot (hidden by an inline style) and a submit button, one element a line.
 */
export function embedHtml(publicUrl: string, form: { id: string; fields: readonly FormField[] }): string {
  const nl = '\n  ';
  return (
    `<form method="post"${attr('action', formUrl(publicUrl, form.id))} accept-charset="utf-8">${nl}` +
    inputsHtml(form.fields, 'pigeon-', {}, nl) +
    nl +
    honeypotHtml('pigeon-', 'position:absolute;left:-10000px;width:1px;height:1px;overflow:hidden') +
    `${nl}<button type="submit">Sign up</button>\n</form>`
  );
}

/** Pages of no known form or sign-up (an unknown form, a forged link): said in Pigeon's name. */
export const UNKNOWN_PROJECT = { projectName: 'Pigeon', brandColor: null };

const shell = (
  form: Pick<PublicForm, 'projectName' | 'brandColor'>,
  title: string,
  body: string,
  lang = 'en',
): PublicPage => ({
  project: form.projectName,
  brandColor: form.brandColor,
  title,
  body,
  lang,
});

/** The pages of a confirmation link speak the reader's language (issue 38); English by default. */
const EN = translator('en');

/** The hosted form page; `error` (a sentence) above the inputs when a submission was refused. */
export function formPage(publicUrl: string, form: PublicForm, values: ShownValues = {}, error?: string): PublicPage {
  const alert = error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : '';
  return shell(
    form,
    form.name,
    `${alert}<p>Fields marked * are required.</p>` +
      `<form method="post"${attr('action', formUrl(publicUrl, form.id))} accept-charset="utf-8">` +
      inputsHtml(form.fields, 'f-', values, '') +
      honeypotHtml('f-', '') +
      `<p><button type="submit">Sign up</button></p></form>`,
  );
}

/** After a submission: the form's success message, and with double opt-in where to look next. */
export function submittedPage(form: PublicForm): PublicPage {
  const message = `<p class="note" role="status">${escapeHtml(form.successMessage)}</p>`;
  if (!form.doubleOptIn) return shell(form, 'Thank you', message);
  return shell(
    form,
    'Check your inbox',
    message +
      `<p>We sent you an email with a link to confirm your sign-up. Open it within ${CONFIRM_DAYS} days; ` +
      `until then you will not get our mail.</p>`,
  );
}

/**
 * The confirmation link was opened: one button that confirms (a POST to the same address), since
 * opening a link proves nothing (scanners and previews open every link of a mail). In the language of `t`.
 */
export const confirmPage = (form: PublicForm, action: string, t: Translator = EN): PublicPage =>
  shell(
    form,
    t('confirm.title'),
    `<p>${t.html('confirm.text', { project: escapeHtml(form.projectName) })}</p>` +
      postButton(action, t('confirm.button')),
    t.language,
  );

/** The sign-up was confirmed (now or before): it is complete. The form's own message is shown as written. */
export const confirmedPage = (form: PublicForm, t: Translator = EN): PublicPage =>
  shell(
    form,
    t('confirm.doneTitle'),
    `<p class="note" role="status">${escapeHtml(form.successMessage)}</p><p>${t.html('confirm.done')}</p>`,
    t.language,
  );

/** An expired confirmation link, with the way to sign up again when its form still exists. */
export const expiredPage = (publicUrl: string, form: PublicForm | undefined, t: Translator = EN): PublicPage =>
  shell(
    form ?? UNKNOWN_PROJECT,
    t('confirm.expiredTitle'),
    `<p>${t.html('confirm.expired', { days: String(CONFIRM_DAYS) })}</p>` +
      (form
        ? `<p>${t.html('confirm.signUpAgain', { link: `<a${attr('href', formUrl(publicUrl, form.id))}>${t.html('confirm.signUpAgainLink')}</a>` })}</p>`
        : ''),
    t.language,
  );

/** Too many submissions: when to try again. */
export const tooManyPage = (form: Pick<PublicForm, 'projectName' | 'brandColor'>, seconds: number): PublicPage =>
  shell(
    form,
    'Please try again later',
    `<p class="error" role="alert">This form has taken too many sign-ups from here in a short time. ` +
      `Try again in ${Math.max(1, Math.ceil(seconds / 60))} minute${seconds > 60 ? 's' : ''}.</p>`,
  );

/** An unknown form or a link that is not genuine. */
export const notFoundPage = (t: Translator = EN): PublicPage =>
  shell(UNKNOWN_PROJECT, t('confirm.notFoundTitle'), `<p>${t.html('confirm.notFound')}</p>`, t.language);

/** Something failed on our side (a 5xx): the visitor may try again. */
export const troublePage = (form: Pick<PublicForm, 'projectName' | 'brandColor'>): PublicPage =>
  shell(
    form,
    'Something went wrong',
    '<p class="error" role="alert">We could not take your sign-up just now. Please try again in a few minutes.</p>',
  );
