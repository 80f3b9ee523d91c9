import { compile } from 'html-to-text';
import type { TemplateType } from '../../db/schema/messaging.js';
import { normalizeLocale, shippedLanguage, translator, type Translator } from '../../content/locale.js';
import { AppError, type FieldError } from '../../http/errors.js';
import { escapeHtml } from '../../lib/html.js';
import { compileTemplate, renderTemplate, renderTemplateSync, TemplateError, type TemplateKind } from './liquid.js';
import { applyPlan, planEdits, rewriteLinks } from './links.js';
import { clickToken, contactToken, openToken } from './tokens.js';

/**
 * Rendering of an email: the subject and body through LiquidJS with Plunk's `{{ }}` forms
 * (liquid.ts), then the unsubscribe footer of marketing mail, the text part, and tracking (link
 * rewrite and open pixel through an HTML tokenizer, links.ts). The delivery job loads the rows and
 * calls {@link renderEmail}.
 */

export { escapeHtml, rewriteLinks };
export { TemplateError } from './liquid.js';

export type TrackingMode = 'ENABLED' | 'DISABLED' | 'MARKETING_ONLY';

/**
 * Renders `text` with `vars` in one go (holding the event loop; bounded by the template limits).
 * With `escape` (HTML bodies) values are HTML-escaped unless written `{{{ }}}` or `| raw`; a Plunk
 * fallback is the author's own text and is inserted as written. A missing value without a fallback
 * renders as the empty string. @throws TemplateError when `text` does not parse or a limit is passed.
 */
export function interpolate(text: string, vars: Record<string, unknown>, escape: boolean): string {
  return renderTemplateSync(compileTemplate(escape ? 'html' : 'text', text), vars);
}

/** Subject post-processing: never escaped, no CR/LF (a header injection otherwise). */
const oneLine = (s: string) => s.replace(/[\r\n]+/g, ' ').trim();

/** A rendered subject: variables in, never escaped, no CR/LF. @throws TemplateError */
export const renderSubject = (subject: string, vars: Record<string, unknown>): string =>
  oneLine(interpolate(subject, vars, false));

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };
/** Decodes the HTML character references that appear in attribute values (`&amp;` in query strings). */
export function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, ref: string) => {
    if (ref[0] === '#') {
      const cp = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return Number.isFinite(cp) && cp > 0 && cp <= 0x10ffff ? String.fromCodePoint(cp) : m;
    }
    return NAMED[ref.toLowerCase()] ?? m;
  });
}

/** Whether tracking applies to mail of `type` under the project's `mode` (HEADLESS never). */
export function tracksMail(mode: TrackingMode, type: TemplateType): boolean {
  if (type === 'HEADLESS' || mode === 'DISABLED') return false;
  return mode === 'ENABLED' || type === 'MARKETING';
}

/**
 * The contact id of mail rendered for no contact (a preview without a sample contact, a template's
 * test send): its subscription links name no one, so they lead nowhere.
 */
export const NO_CONTACT_ID = '00000000-0000-0000-0000-000000000000';

/**
 * The contact's subscription links: `unsubscribeUrl` (one click; for mail sent to topic `topicId` it
 * leaves that topic only, else every mail), `subscribeUrl` and `manageUrl`, the preference centre.
 */
export function subscriptionUrls(publicUrl: string, secret: string, contactId: string, topicId?: string | null) {
  const t = contactToken(secret, contactId);
  return {
    unsubscribeUrl: `${publicUrl}/unsubscribe/${topicId ? contactToken(secret, contactId, topicId) : t}`,
    subscribeUrl: `${publicUrl}/subscribe/${t}`,
    manageUrl: `${publicUrl}/preferences/${t}`,
  };
}

export interface RenderInput {
  emailId: string;
  subject: string;
  body: string;
  type: TemplateType;
  tracking: TrackingMode;
  /** Contact data; later layers win. */
  contactData: Record<string, unknown>;
  /** Per-request values stored on the email row (persistent and transient, or the workflow's context). */
  variables: Record<string, unknown>;
  contact: { id: string; email: string };
  /** The topic the mail was sent to (issue 35): its unsubscribe link and footer name it. */
  topic?: { id: string; name: string } | null;
  publicUrl: string;
  secret: string;
  /**
   * The reader's language, a BCP 47 tag (the contact's normalised `data.locale`; anything that is not
   * a tag counts as none). The automatic footer of marketing mail is written in the shipped language
   * that fits it (English when none does) and carries that language as its `lang`; the body's
   * `<html>` start tag gets `lang="<locale>"` when it has none (a body without `<html>` is not
   * wrapped). HEADLESS mail is left as rendered.
   */
  locale?: string | null;
}

export interface RenderedMessage {
  subject: string;
  html: string;
  text: string;
  urls: ReturnType<typeof subscriptionUrls>;
}

/** A template of a message that failed to render; `field` is `subject` or `body`. */
export class MessageRenderError extends Error {
  constructor(
    readonly field: 'subject' | 'body',
    readonly error: TemplateError,
  ) {
    super(`the ${field} template failed at line ${error.line}, column ${error.column}: ${error.reason}`);
    this.name = 'MessageRenderError';
  }
}

/** The variables {@link variablesOf} sets on every message, whatever the data. */
type ReservedName = 'email' | 'contact' | keyof ReturnType<typeof subscriptionUrls>;

// A Record, so a reserved name added to variablesOf without its line here fails the build.
const RESERVED_DESCRIPTIONS: Record<ReservedName, string> = {
  email: "The recipient's email address",
  contact: 'The contact: contact.id, contact.email and every field of its data',
  unsubscribeUrl:
    "Link that unsubscribes the contact in one click: from the mail's topic when it has one, else from every email",
  subscribeUrl: 'Link that subscribes the contact again',
  manageUrl: "Link to the contact's preference centre (topics, pause, unsubscribe from everything)",
};

/**
 * The variables every message has, which contact data and per-request variables cannot override,
 * with what each holds (served to the template editor's variable picker by `POST /templates/preview`).
 */
export const RESERVED_VARIABLES: ReadonlyArray<{ name: ReservedName; description: string }> = Object.entries(
  RESERVED_DESCRIPTIONS,
).map(([name, description]) => ({ name: name as ReservedName, description }));

/**
 * The variables of one message: contact data, then the email's per-request variables (a later layer
 * wins), then `contact.*`, `email` and the subscription URLs, which cannot be overridden.
 */
function variablesOf(input: RenderInput, urls: ReturnType<typeof subscriptionUrls>): Record<string, unknown> {
  const reserved: Record<ReservedName, unknown> = {
    email: input.contact.email,
    contact: { ...input.contactData, id: input.contact.id, email: input.contact.email },
    ...urls,
  };
  return { ...input.contactData, ...input.variables, ...reserved };
}

function compileField(field: 'subject' | 'body', source: string) {
  try {
    return compileTemplate(field === 'subject' ? 'text' : 'html', source);
  } catch (err) {
    throw err instanceof TemplateError ? new MessageRenderError(field, err) : err;
  }
}

async function renderField(field: 'subject' | 'body', source: string, vars: Record<string, unknown>): Promise<string> {
  const t = compileField(field, source);
  try {
    return await renderTemplate(t, vars);
  } catch (err) {
    throw err instanceof TemplateError ? new MessageRenderError(field, err) : err;
  }
}

/**
 * MARKETING mail gets an unsubscribe footer unless the body already links to its unsubscribe or
 * manage URL; then the text part (from the HTML before tracking) and, where {@link tracksMail},
 * tracked links and the open pixel. HEADLESS mail is sent exactly as rendered.
 */
function finish(
  input: RenderInput,
  urls: ReturnType<typeof subscriptionUrls>,
  subject: string,
  rendered: string,
): RenderedMessage {
  const lang = input.type === 'HEADLESS' ? null : normalizeLocale(input.locale);
  const footer =
    input.type === 'MARKETING' && !rendered.includes(urls.unsubscribeUrl) && !rendered.includes(urls.manageUrl)
      ? unsubscribeFooter(urls, input.topic?.name ?? null, translator(shippedLanguage(lang) ?? 'en'), lang !== null)
      : '';
  const track = tracksMail(input.tracking, input.type);
  // Nothing to insert or rewrite (transactional mail without tracking or language, HEADLESS): no scan at all.
  if (!footer && !track && !lang) return { subject, html: rendered, text: htmlToText(rendered), urls };
  const own = input.publicUrl + '/';
  // One tokenizer pass serves the footer, the text part's HTML and the tracked HTML. The footer's
  // only link is our own unsubscribe URL, which is never rewritten, so inserting it after the scan
  // gives what scanning the HTML with the footer would.
  const plan = planEdits(
    rendered,
    track ? (url, link) => `${input.publicUrl}/t/c/${clickToken(input.secret, input.emailId, url, link)}` : undefined,
    (url) => url.startsWith(own),
  );
  const untracked = footer || lang ? applyPlan(plan, footer, { links: false, lang }) : rendered;
  const text = htmlToText(untracked);
  if (!track) return { subject, html: untracked, text, urls };
  const pixel = `${input.publicUrl}/t/o/${openToken(input.secret, input.emailId)}`;
  const html = applyPlan(plan, footer, {
    lang,
    then: `<img src="${escapeHtml(pixel)}" width="1" height="1" alt="" style="display:block;width:1px;height:1px;border:0;margin:0;padding:0" />`,
  });
  return { subject, html, text, urls };
}

/**
 * Renders one email for one contact (see {@link variablesOf} and {@link finish}). Long renders give the
 * event loop a turn every 10 ms; every template is bounded by the limits of liquid.ts.
 * @throws MessageRenderError when the subject or body does not parse or passes a limit (not worth a
 *   retry: the same input fails the same way).
 */
export async function renderEmail(input: RenderInput): Promise<RenderedMessage> {
  const urls = subscriptionUrls(input.publicUrl, input.secret, input.contact.id, input.topic?.id);
  const vars = variablesOf(input, urls);
  const subject = oneLine(await renderField('subject', input.subject, vars));
  return finish(input, urls, subject, await renderField('body', input.body, vars));
}

/** {@link renderEmail} in one go, holding the event loop (bench and tests). @throws MessageRenderError */
export function renderMessage(input: RenderInput): RenderedMessage {
  const urls = subscriptionUrls(input.publicUrl, input.secret, input.contact.id, input.topic?.id);
  const vars = variablesOf(input, urls);
  const run = (field: 'subject' | 'body', source: string) => {
    try {
      return renderTemplateSync(compileField(field, source), vars);
    } catch (err) {
      throw err instanceof TemplateError ? new MessageRenderError(field, err) : err;
    }
  };
  return finish(input, urls, oneLine(run('subject', input.subject)), run('body', input.body));
}

/**
 * Syntax problems of a subject and/or body about to be saved (templates, campaigns, inline `/v1/send`
 * content), as 422 field errors naming the line and column: an unclosed `{{`/`{%`, an unknown tag or
 * filter, an unclosed block, too much nesting or markup. Empty when both parse (they are then cached
 * for sending).
 */
export function templateErrors(fields: { subject?: string; body?: string }): FieldError[] {
  const errors: FieldError[] = [];
  const check = (field: 'subject' | 'body', kind: TemplateKind, source: string | undefined) => {
    if (source === undefined) return;
    try {
      compileTemplate(kind, source);
    } catch (err) {
      if (!(err instanceof TemplateError)) throw err;
      errors.push({
        field,
        code: 'invalid_template',
        message: `Template syntax error at line ${err.line}, column ${err.column}: ${err.reason}`,
      });
    }
  };
  check('subject', 'text', fields.subject);
  check('body', 'html', fields.body);
  return errors;
}

/**
 * {@link templateErrors} as the 422 of a save.
 * @throws AppError 422 VALIDATION_ERROR with `errors[]` (`field` subject or body, code `invalid_template`).
 */
export function assertTemplatesParse(fields: { subject?: string; body?: string }): void {
  const errors = templateErrors(fields);
  if (errors.length) {
    throw new AppError(
      'VALIDATION_ERROR',
      `Invalid template: ${errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`,
      {
        errors,
        suggestion:
          "Close every {{ }} and {% %}, end each block ({% if %}…{% endif %}), and use only Liquid's tags and filters.",
      },
    );
  }
}

/**
 * The footer of marketing mail, in the language of `t`: its one-click unsubscribe link (of the topic,
 * for topic mail) and the preference centre. `tagged` puts `lang` on the footer's div (a reader's
 * language is known), so that it is read in its language whatever the body's.
 */
function unsubscribeFooter(
  urls: ReturnType<typeof subscriptionUrls>,
  topic: string | null,
  t: Translator,
  tagged: boolean,
): string {
  const link = (href: string, label: string) =>
    `<a href="${escapeHtml(href)}" style="color:#6a6a6a;text-decoration:underline">${escapeHtml(label)}</a>`;
  return (
    `<div${tagged ? ` lang="${t.language}"` : ''} style="margin:24px auto 0;padding:12px;text-align:center;font-family:Arial,Helvetica,sans-serif;font-size:12px;line-height:18px;color:#6a6a6a">` +
    (topic
      ? `${t.html('footer.reasonTopic', { topic: escapeHtml(topic) })} ${link(urls.unsubscribeUrl, t('footer.unsubscribeTopic', { topic }))}`
      : `${t.html('footer.reason')} ${link(urls.unsubscribeUrl, t('footer.unsubscribe'))}`) +
    ` · ${link(urls.manageUrl, t('footer.preferences'))}</div>`
  );
}

// html-to-text's `convert` compiles its options on every call (a quarter of the plain-text cost in
// a campaign's profile); compiled once here.
const toText = compile({
  wordwrap: 78,
  selectors: [
    { selector: 'img', format: 'skip' },
    { selector: 'a', options: { hideLinkHrefIfSameAsText: true } },
  ],
});

/** The plain-text part of an HTML body (html-to-text; images left out, links as `text [url]`). */
export function htmlToText(html: string): string {
  return toText(html);
}
