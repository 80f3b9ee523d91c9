import type { FastifyReply } from 'fastify';
import { escapeHtml } from '../lib/html.js';
import { FAVICON_LINK } from './favicon.js';

/**
 * The pages Pigeon serves to the people its projects mail, without a login: the unsubscribe and
 * subscribe pages, the preference centre, hosted forms and their confirmation pages. One shell for
 * all of them: the project's name above the title (the reader knows whose mail this is), the
 * project's brand colour on buttons and links, no script, readable at phone width, and a
 * Content-Security-Policy that lets a page load nothing and post only to Pigeon itself.
 */

/** The accent of a project without a brand colour: the dashboard's blue. */
export const DEFAULT_BRAND_COLOR = '#1f4fd1';

/** A `#rrggbb` colour, the only form a project's brand colour takes. */
export const BRAND_COLOR_PATTERN = /^#[0-9a-fA-F]{6}$/;

/** WCAG 2.2 relative luminance of a `#rrggbb` colour (0 black … 1 white). */
function luminance(hex: string): number {
  const ch = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255);
  const [r, g, b] = ch.map((c) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4)) as [
    number,
    number,
    number,
  ];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG contrast ratio of two luminances (1 … 21). */
const contrast = (a: number, b: number) => (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);

/**
 * The colours a page draws from brand colour `brand` (`#rrggbb`, anything else falls back to
 * {@link DEFAULT_BRAND_COLOR}), each meeting WCAG 2.2 AA contrast (4.5:1, success criterion 1.4.3)
 * whatever colour a project picked: `button` with its `buttonText` (white or near-black, whichever
 * reads better), and `link`, the brand itself when it reads on white, else near-black.
 */
export function brandPalette(brand: string | null | undefined): { button: string; buttonText: string; link: string } {
  const b = brand && BRAND_COLOR_PATTERN.test(brand) ? brand.toLowerCase() : DEFAULT_BRAND_COLOR;
  const l = luminance(b);
  const white = 1;
  const ink = luminance('#1f2328');
  return {
    button: b,
    buttonText: contrast(l, white) >= contrast(l, ink) ? '#ffffff' : '#1f2328',
    link: contrast(l, white) >= 4.5 ? b : '#1f2328',
  };
}

/** What a public page shows: whose page it is, its title, and its body (HTML, already escaped). */
export interface PublicPage {
  /** The project's name, shown above the title. */
  project: string;
  /** The project's brand colour (`#rrggbb`), or null for the default. */
  brandColor?: string | null;
  title: string;
  /** The page's content: HTML whose every value the caller escaped. */
  body: string;
  /** The language the page is written in, a BCP 47 tag for `<html lang>` (default `en`). */
  lang?: string;
}

/** The whole HTML document of `p` (escapes `project` and `title`; `body` goes in as given). */
export function publicPageHtml(p: PublicPage): string {
  const c = brandPalette(p.brandColor);
  return (
    `<!doctype html><html lang="${escapeHtml(p.lang ?? 'en')}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<meta name="robots" content="noindex"><title>${escapeHtml(p.title)} · ${escapeHtml(p.project)}</title>` +
    FAVICON_LINK +
    `<style>body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;background:#f4f5f7;color:#1f2328;line-height:1.5}` +
    `main{max-width:32rem;margin:4rem auto;padding:2rem;background:#fff;border:1px solid #dde1e6;border-top:4px solid ${c.button};border-radius:8px}` +
    `.brand{margin:0 0 1.5rem;font-size:.85rem;font-weight:600;letter-spacing:.04em;text-transform:uppercase;color:#57606a}` +
    `h1{font-size:1.4rem;margin:0 0 1rem}h2{font-size:1.05rem;margin:1.5rem 0 .5rem}a{color:${c.link}}` +
    `button{font:inherit;padding:.55rem 1.1rem;border:1px solid ${c.button};background:${c.button};color:${c.buttonText};border-radius:6px;cursor:pointer}` +
    `button.secondary{background:#fff;color:#1f2328;border-color:#8c959f}` +
    `fieldset{border:0;margin:0 0 1rem;padding:0}legend{font-weight:600;padding:0;margin-bottom:.5rem}` +
    `label{display:block;margin:.35rem 0}label.field{font-weight:600}.hint{display:block;font-weight:400;font-size:.9rem;color:#57606a;margin-left:1.6rem}` +
    `input[type=checkbox],input[type=radio]{width:1.1rem;height:1.1rem;margin:0 .5rem 0 0;vertical-align:-.15rem;accent-color:${c.button}}` +
    `input[type=text],input[type=email],select{font:inherit;width:100%;box-sizing:border-box;padding:.5rem .6rem;border:1px solid #8c959f;border-radius:6px;margin:.25rem 0 .75rem}` +
    `.note{padding:.75rem 1rem;border-radius:6px;background:#e9f5ee;border:1px solid #9bd3b0;margin:0 0 1rem}` +
    `.error{padding:.75rem 1rem;border-radius:6px;background:#fdeeee;border:1px solid #e5a5a5;margin:0 0 1rem}` +
    `.honey{position:absolute;left:-10000px;width:1px;height:1px;overflow:hidden}` +
    `hr{border:0;border-top:1px solid #dde1e6;margin:1.5rem 0}` +
    `@media (max-width:34rem){main{margin:0;border-left:0;border-right:0;border-bottom:0;border-radius:0;min-height:100vh}}</style>` +
    `</head><body><main><p class="brand">${escapeHtml(p.project)}</p><h1>${escapeHtml(p.title)}</h1>${p.body}</main></body></html>`
  );
}

const NO_STORE = 'no-store, no-cache, must-revalidate, private, max-age=0';

/**
 * Sends `p` as a public page with status `status` (default 200). The page runs no script and may not
 * be framed (a hidden frame could make a click for the reader); its forms may post only to Pigeon
 * itself (`publicUrl`'s origin, and `'self'` for a server reached by another name), plus the origins
 * in `redirectTargets` (browsers apply `form-action` to the redirect a form post answers, so a hosted
 * form whose success is a redirect elsewhere names that origin here).
 */
export function sendPublicPage(
  reply: FastifyReply,
  publicUrl: string,
  p: PublicPage,
  status = 200,
  redirectTargets: readonly string[] = [],
): FastifyReply {
  const formTarget = [new URL(publicUrl).origin, ...redirectTargets.map((u) => new URL(u).origin)].join(' ');
  // img-src data:: the tab's icon, inlined (FAVICON_LINK), so the page loads nothing else.
  const csp = `default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self' ${formTarget}; frame-ancestors 'none'; base-uri 'none'`;
  return reply
    .code(status)
    .header('Content-Type', 'text/html; charset=utf-8')
    .header('Cache-Control', NO_STORE)
    .header('Content-Security-Policy', csp)
    .header('X-Frame-Options', 'DENY')
    .header('Referrer-Policy', 'no-referrer')
    .header('X-Content-Type-Options', 'nosniff')
    .send(publicPageHtml(p));
}

/**
 * A `<form method="post">` to `action` with one submit button `label` and hidden `fields`; `secondary`
 * draws the button outlined (for the less common choice beside a main one). Every value is escaped.
 */
export function postButton(
  action: string,
  label: string,
  fields: Record<string, string> = {},
  secondary = false,
): string {
  const hidden = Object.entries(fields)
    .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`)
    .join('');
  const cls = secondary ? ' class="secondary"' : '';
  return `<form method="post" action="${escapeHtml(action)}">${hidden}<button type="submit"${cls}>${escapeHtml(label)}</button></form>`;
}
