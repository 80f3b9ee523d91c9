import { randomBytes } from 'node:crypto';
import sanitizeHtml from 'sanitize-html';

/**
 * The rich text of the visual editor's text and footer blocks: the subset its toolbar writes (p, br,
 * strong, b, em, i, u, s, a, ul, ol, li, span) and links to http(s), mailto and tel (or a Liquid
 * expression), sanitised by `sanitize-html` again at every render so a document written through the
 * API cannot carry script, styles or event handlers into a mail.
 */
const OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: ['p', 'br', 'strong', 'b', 'em', 'i', 'u', 's', 'a', 'ul', 'ol', 'li', 'span'],
  allowedAttributes: { a: ['href', 'title', 'target'] },
  allowedSchemes: ['http', 'https', 'mailto', 'tel'],
  allowProtocolRelative: false,
};

const LIQUID = /\{\{[\s\S]*?\}\}|\{%[\s\S]*?%\}/g;

/**
 * Runs `fn` over `source` with its Liquid tags (`{{ … }}`, `{% … %}`) set aside as placeholders and put
 * back after, so an HTML step neither escapes nor drops what Liquid will read (`{% if a < 3 %}`,
 * `{{ x ?? "y" }}`). The placeholders carry a random nonce: user text cannot forge one.
 */
export function keepingLiquid(source: string, fn: (s: string) => string): string {
  const nonce = randomBytes(6).toString('hex');
  const kept: string[] = [];
  const out = fn(source.replace(LIQUID, (m) => `lq${nonce}x${kept.push(m) - 1}x`));
  return out.replace(new RegExp(`lq${nonce}x(\\d+)x`, 'g'), (_, i: string) => kept[Number(i)]);
}

/** The rich-text subset of `html`, Liquid kept as written. */
export function sanitizeRichText(html: string): string {
  return keepingLiquid(html, (s) => sanitizeHtml(s, OPTIONS));
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

/** Plain text as HTML text or a double-quoted attribute value, Liquid kept as written. */
export function escapeKeepingLiquid(text: string): string {
  return keepingLiquid(text, (s) => s.replace(/[&<>"]/g, (c) => ESCAPES[c]));
}

/**
 * A double-quoted attribute value, Liquid kept: double quotes inside a Liquid tag become single quotes
 * (Liquid reads both), since they would end the attribute.
 */
export function attrKeepingLiquid(value: string): string {
  return escapeKeepingLiquid(value.replace(LIQUID, (m) => m.replaceAll('"', "'")));
}
