import { convert } from 'html-to-text';
import type { TemplateType } from '../db/schema/messaging.js';
import { clickToken, contactToken, openToken } from './tokens.js';

/**
 * Rendering of an email (decisions.md: templates and rendering; sending, tracking): `{{ }}` variables,
 * link rewriting and the open pixel, the unsubscribe footer of marketing mail, and the text part.
 * Pure functions: the delivery job loads the rows and calls {@link renderMessage}.
 */

export type TrackingMode = 'ENABLED' | 'DISABLED' | 'MARKETING_ONLY';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
/** HTML-escapes text for element content and quoted attribute values. */
export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => ESCAPES[c]);

/** The value at `path` of `vars`: an exact key first (data keys may contain dots), then a dotted walk. */
function lookup(vars: Record<string, unknown>, path: string): unknown {
  if (Object.prototype.hasOwnProperty.call(vars, path)) return vars[path];
  let cur: unknown = vars;
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object' || !Object.prototype.hasOwnProperty.call(cur, part)) return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

function toText(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v instanceof Date) return v.toISOString();
  return JSON.stringify(v);
}

// {{{raw}}} | {{name}} | {{name ?? 'fallback'}} (fallback quoted with ' or ", or bare up to the braces).
const VAR = /\{\{\{\s*([^{}\s?]+)\s*(?:\?\?\s*(?:'([^']*)'|"([^"]*)"|([^{}]*?)))?\s*\}\}\}|\{\{\s*([^{}\s?]+)\s*(?:\?\?\s*(?:'([^']*)'|"([^"]*)"|([^{}]*?)))?\s*\}\}/g;

/**
 * Replaces `{{name}}`, `{{name ?? 'fallback'}}` and `{{{name}}}` in `text` with values of `vars`.
 * With `escape` (HTML bodies) `{{ }}` values are HTML-escaped and `{{{ }}}` values inserted raw; the
 * fallback is the template author's own text and is inserted as written. A missing value without a
 * fallback renders as the empty string.
 */
export function interpolate(text: string, vars: Record<string, unknown>, escape: boolean): string {
  return text.replace(VAR, (_m, rawName, rq1, rq2, rbare, name, q1, q2, bare) => {
    const isRaw = rawName !== undefined;
    const key = (isRaw ? rawName : name) as string;
    const value = toText(lookup(vars, key));
    if (value === undefined) {
      const fb = isRaw ? (rq1 ?? rq2 ?? rbare) : (q1 ?? q2 ?? bare);
      return fb === undefined ? '' : String(fb).trim();
    }
    return escape && !isRaw ? escapeHtml(value) : value;
  });
}

/** A rendered subject: variables in, never escaped, no CR/LF (decisions.md). */
export const renderSubject = (subject: string, vars: Record<string, unknown>): string =>
  interpolate(subject, vars, false).replace(/[\r\n]+/g, ' ').trim();

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

// An <a …> start tag whose attribute values may themselves hold '>' (quoted), then its href attribute.
const A_TAG = /<a\b(?:[^>"']|"[^"]*"|'[^']*')*>/gi;
const HREF = /(\shref\s*=\s*)("([^"]*)"|'([^']*)'|([^\s"'>]+))/i;

/**
 * Calls `rewrite(url)` for the href of every `<a>` start tag whose (entity-decoded) value is an
 * http(s) URL, and puts the returned URL in its place; `rewrite` returns null to keep a link as is.
 * Only `<a href>` is touched and the rest of the document stays byte for byte as written, so
 * conditional comments and table layouts of real newsletters survive.
 */
export function rewriteLinks(html: string, rewrite: (url: string) => string | null): string {
  return html.replace(A_TAG, (tag) => {
    const m = HREF.exec(tag);
    if (!m) return tag;
    const value = m[3] ?? m[4] ?? m[5] ?? '';
    const url = decodeEntities(value).trim();
    if (!/^https?:\/\/[^\s]/i.test(url)) return tag;
    const next = rewrite(url);
    if (next === null) return tag;
    return tag.slice(0, m.index) + `${m[1]}"${escapeHtml(next)}"` + tag.slice(m.index + m[0].length);
  });
}

/** Inserts `snippet` before the last `</body>`, or appends it when there is none. */
export function insertBeforeBodyEnd(html: string, snippet: string): string {
  const i = html.search(/<\/body\s*>(?![\s\S]*<\/body\s*>)/i);
  return i < 0 ? html + snippet : html.slice(0, i) + snippet + html.slice(i);
}

/** Whether tracking applies to mail of `type` under the project's `mode` (HEADLESS never). */
export function tracksMail(mode: TrackingMode, type: TemplateType): boolean {
  if (type === 'HEADLESS' || mode === 'DISABLED') return false;
  return mode === 'ENABLED' || type === 'MARKETING';
}

/** The contact's subscription links (decisions.md: unsubscribe, manageUrl). */
export function subscriptionUrls(publicUrl: string, secret: string, contactId: string) {
  const t = contactToken(secret, contactId);
  return {
    unsubscribeUrl: `${publicUrl}/unsubscribe/${t}`,
    subscribeUrl: `${publicUrl}/subscribe/${t}`,
    manageUrl: `${publicUrl}/manage/${t}`,
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
  /** Per-request values stored on the email row (persistent and transient). */
  variables: Record<string, unknown>;
  contact: { id: string; email: string };
  publicUrl: string;
  secret: string;
}

export interface RenderedMessage {
  subject: string;
  html: string;
  text: string;
  urls: ReturnType<typeof subscriptionUrls>;
}

/**
 * Renders one email for one contact. Variables: contact data, then the email's per-request variables
 * (a later layer wins), then `contact.*`, `email` and the subscription URLs, which cannot be
 * overridden. MARKETING mail gets an unsubscribe footer unless the body already links to its
 * unsubscribe or manage URL; HEADLESS mail is sent exactly as rendered (no footer, no tracking).
 */
export function renderMessage(input: RenderInput): RenderedMessage {
  const urls = subscriptionUrls(input.publicUrl, input.secret, input.contact.id);
  const vars: Record<string, unknown> = {
    ...input.contactData,
    ...input.variables,
    email: input.contact.email,
    contact: { ...input.contactData, id: input.contact.id, email: input.contact.email },
    ...urls,
  };
  const subject = renderSubject(input.subject, vars);
  let html = interpolate(input.body, vars, true);
  if (input.type === 'MARKETING' && !html.includes(urls.unsubscribeUrl) && !html.includes(urls.manageUrl)) {
    html = insertBeforeBodyEnd(html, unsubscribeFooter(urls.unsubscribeUrl));
  }
  const text = htmlToText(html);
  if (tracksMail(input.tracking, input.type)) {
    const own = input.publicUrl + '/';
    html = rewriteLinks(html, (url) =>
      url.startsWith(own) ? null : `${input.publicUrl}/t/c/${clickToken(input.secret, input.emailId, url)}`);
    const pixel = `${input.publicUrl}/t/o/${openToken(input.secret, input.emailId)}`;
    html = insertBeforeBodyEnd(html,
      `<img src="${escapeHtml(pixel)}" width="1" height="1" alt="" style="display:block;width:1px;height:1px;border:0;margin:0;padding:0" />`);
  }
  return { subject, html, text, urls };
}

function unsubscribeFooter(url: string): string {
  return `<div style="margin:24px auto 0;padding:12px;text-align:center;font-family:Arial,Helvetica,sans-serif;font-size:12px;line-height:18px;color:#8a8a8a">`
    + `You received this email because you subscribed to our list. `
    + `<a href="${escapeHtml(url)}" style="color:#8a8a8a;text-decoration:underline">Unsubscribe</a></div>`;
}

/** The plain-text part of an HTML body (html-to-text; images left out, links as `text [url]`). */
export function htmlToText(html: string): string {
  return convert(html, {
    wordwrap: 78,
    selectors: [
      { selector: 'img', format: 'skip' },
      { selector: 'a', options: { hideLinkHrefIfSameAsText: true } },
    ],
  });
}
