import { QuoteType, Tokenizer, type TokenizerCallbacks } from 'htmlparser2';
import { escapeHtml } from '../../lib/html.js';

/**
 * HTML edits of a rendered email, made through htmlparser2's tokenizer rather than regular expressions:
 * the tokenizer reads tags, attributes, comments and raw-text elements as a browser does, in one
 * linear pass, and reports source offsets, so everything but the edited attribute values stays byte
 * for byte as written (conditional comments, VML, table layouts).
 */

/** HTML white space as the tokenizer reads it. */
const isHtmlSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0c || c === 0x0d;

interface Edit {
  start: number;
  end: number;
  text: string;
}

/** Where a tracked link sits in its email, as the rewrite is told. */
export interface TrackedLink {
  /** 0-based order of the link among the email's tracked links (those not skipped), in document order. */
  position: number;
  /** How many distinct URLs the email's tracked links have. */
  links: number;
}

/** Replacement of a link's URL (null keeps it as written), told where the link sits. */
export type LinkRewrite = (url: string, link: TrackedLink) => string | null;

/** Links to leave alone and out of the count (e.g. the service's own subscription links). */
export type LinkSkip = (url: string) => boolean;

interface Scan {
  edits: Edit[];
  /** Offset of the `<` of the last `</body>` close tag, or -1. */
  bodyEnd: number;
  /** The HTML ends inside a start tag (`<a href="…` with no `>`): text appended to it joins that tag. */
  openTag: boolean;
  /** Offset just after the name of the first `<html` start tag when it has no `lang` attribute, or -1. */
  langAt: number;
}

/**
 * One tokenizer pass over `html`: the `<a href>` values to replace (when `rewrite` is given) and where
 * the last `</body>` starts. An href is taken as the browser takes it: the first `href` of an `<a>`
 * start tag, entity-decoded and trimmed; only http(s) URLs that `skip` does not skip are offered to
 * `rewrite`, after the pass, so that each is told its position and the count of distinct URLs.
 */
function scan(html: string, rewrite?: LinkRewrite, skip?: LinkSkip): Scan {
  const found: Array<Edit & { url: string }> = [];
  let bodyEnd = -1;
  let inA = false;
  let inTag = false;
  let hrefSeen = false;
  let pending: (Edit & { url: string }) | null = null; // an href, kept once its tag is complete
  let attrName = '';
  let attrNameEnd = 0;
  let value = '';
  // The first <html> start tag: where a lang attribute can go, unless it has one.
  let htmlSeen = false;
  let inHtml = false;
  let htmlHasLang = false;
  let htmlNameEnd = -1;
  let langAt = -1;
  const closeTag = () => {
    if (inHtml && !htmlHasLang) langAt = htmlNameEnd;
    inHtml = false;
    if (pending) found.push(pending);
    pending = null;
    inA = false;
    inTag = false;
  };
  const cbs: TokenizerCallbacks = {
    onopentagname(start, end) {
      pending = null;
      inTag = true;
      inA = end - start === 1 && (html.charCodeAt(start) | 0x20) === 0x61; // a or A
      hrefSeen = false;
      if (!htmlSeen && end - start === 4 && html.slice(start, end).toLowerCase() === 'html') {
        htmlSeen = inHtml = true;
        htmlNameEnd = end;
      }
    },
    onattribname(start, end) {
      if (inHtml && end - start === 4 && html.slice(start, end).toLowerCase() === 'lang') htmlHasLang = true;
      attrName = inA ? html.slice(start, end).toLowerCase() : '';
      attrNameEnd = end;
      value = '';
    },
    onattribdata(start, end) {
      if (inA && attrName === 'href') value += html.slice(start, end);
    },
    onattribentity(cp) {
      if (inA && attrName === 'href') value += String.fromCodePoint(cp);
    },
    onattribend(quote, end) {
      if (!inA || attrName !== 'href' || hrefSeen) return;
      hrefSeen = true; // a browser uses the first href and ignores repeats
      if (quote === QuoteType.NoValue || !rewrite) return;
      const url = value.trim();
      if (!isHttpUrl(url) || skip?.(url)) return;
      // The value starts after `=` and any white space; replace it with its quotes, if any.
      let start = attrNameEnd;
      while (isHtmlSpace(html.charCodeAt(start))) start++;
      start++; // '='
      while (isHtmlSpace(html.charCodeAt(start))) start++;
      pending = { start, end, text: '', url };
    },
    onopentagend: closeTag,
    onselfclosingtag: closeTag,
    onclosetag(start, end) {
      if (end - start !== 4 || html.slice(start, end).toLowerCase() !== 'body') return;
      let lt = start - 1;
      while (lt > 0 && html.charCodeAt(lt) !== 0x3c) lt--; // back over white space and '/'
      bodyEnd = lt;
    },
    oncdata() {},
    oncomment() {},
    ondeclaration() {},
    onend() {},
    onprocessinginstruction() {},
    ontext() {},
    ontextentity() {},
  };
  const tokenizer = new Tokenizer({ decodeEntities: true }, cbs);
  tokenizer.write(html);
  tokenizer.end();
  const edits: Edit[] = [];
  if (rewrite && found.length) {
    const links = new Set(found.map((f) => f.url)).size;
    found.forEach((f, position) => {
      const next = rewrite(f.url, { position, links });
      if (next !== null) edits.push({ start: f.start, end: f.end, text: `"${escapeHtml(next)}"` });
    });
  }
  return { edits, bodyEnd, openTag: inTag, langAt };
}

/** An absolute http(s) URL with something after the scheme (an anchored, linear check). */
const isHttpUrl = (url: string) => /^https?:\/\/\S/i.test(url);

/** `html` with `edits` (ascending, disjoint) applied and `insert.text` put at `insert.at` (-1: the end). */
function apply(html: string, edits: Edit[], insert?: { at: number; text: string }): string {
  const parts: string[] = [];
  let from = 0;
  const at = insert ? (insert.at < 0 ? html.length : insert.at) : -1;
  let inserted = !insert;
  for (const e of edits) {
    if (!inserted && at <= e.start) {
      parts.push(html.slice(from, at), insert!.text);
      from = at;
      inserted = true;
    }
    parts.push(html.slice(from, e.start), e.text);
    from = e.end;
  }
  if (!inserted) {
    parts.push(html.slice(from, at), insert!.text);
    from = at;
  }
  parts.push(html.slice(from));
  return parts.join('');
}

/** What one tokenizer pass over an email's HTML found (see {@link planEdits}). */
export interface EditPlan {
  /** The HTML the plan was made for. */
  html: string;
  rewrite?: LinkRewrite;
  skip?: LinkSkip;
  /** See `Scan.openTag`. */
  openTag: boolean;
  /** The href replacements, ascending and disjoint (empty when no `rewrite` was given). */
  edits: Edit[];
  /** Offset of the `<` of the last `</body>`, or -1 (snippets are then appended). */
  bodyEnd: number;
  /** Where `lang` goes on the `<html>` start tag, or -1 (no such tag, or it has a lang already). */
  langAt: number;
}

/**
 * One pass over `html` for every edit a send makes: the link rewrites (as {@link rewriteLinks}, when
 * `rewrite` is given) and where a snippet goes (before the last `</body>`). {@link applyPlan} then
 * builds the variants without tokenizing again: the HTML with a footer only (for the text part)
 * and the sent HTML with footer, tracked links and pixel.
 */
export function planEdits(html: string, rewrite?: LinkRewrite, skip?: LinkSkip): EditPlan {
  const { edits, bodyEnd, openTag, langAt } = scan(html, rewrite, skip);
  return { html, rewrite, skip, edits, bodyEnd, openTag, langAt };
}

/** `edits` with ` lang="<lang>"` inserted at `langAt` (no change without a lang or a place for it). */
function withLang(edits: Edit[], langAt: number, lang: string | null | undefined): Edit[] {
  if (!lang || langAt < 0) return edits;
  const at: Edit = { start: langAt, end: langAt, text: ` lang="${escapeHtml(lang)}"` };
  return [...edits.filter((e) => e.start < langAt), at, ...edits.filter((e) => e.start >= langAt)];
}

/**
 * `plan.html` with `snippet` inserted before the last `</body>` (appended when there is none), then
 * `opts.then` right after it, and, unless `opts.links` is false, the planned link rewrites applied.
 * The result is what inserting `snippet` first, then rewriting the links and inserting `then` at the
 * same place would give, as long as `snippet` is balanced HTML whose links the plan skips (or has
 * none): `snippet` counts as part of the document, `then` is added after the rewrite. With
 * `opts.lang`, the first `<html>` start tag without a `lang` attribute gets `lang="<opts.lang>"`
 * (HTML without an `<html>` tag is left as it is).
 */
export function applyPlan(
  plan: EditPlan,
  snippet: string,
  opts: { links?: boolean; then?: string; lang?: string | null } = {},
): string {
  const links = opts.links ?? true;
  const then = opts.then ?? '';
  if (links && plan.rewrite && snippet && plan.openTag && plan.bodyEnd < 0) {
    // Appended to an unfinished start tag, the snippet becomes part of it (its `>` may close an
    // `<a href>` the plan did not count as a link): scan the joined text, as rewriting after the
    // insertion would. Only broken HTML takes this path.
    const joined = plan.html + snippet;
    const again = scan(joined, plan.rewrite, plan.skip);
    return apply(joined, withLang(again.edits, again.langAt, opts.lang), { at: again.bodyEnd, text: then });
  }
  return apply(plan.html, withLang(links ? plan.edits : [], plan.langAt, opts.lang), {
    at: plan.bodyEnd,
    text: snippet + then,
  });
}

/**
 * Calls `rewrite(url, {position, links})` for the href of every `<a>` start tag whose (entity-decoded)
 * value is an http(s) URL that `skip` does not skip, in document order, and puts the returned URL in
 * its place, double-quoted and HTML-escaped; `rewrite` returns null to keep a link as is. Links in
 * comments, `<script>` and `<style>` are not links and are left alone; the rest of the document stays
 * byte for byte as written.
 */
export function rewriteLinks(html: string, rewrite: LinkRewrite, skip?: LinkSkip): string {
  return apply(html, scan(html, rewrite, skip).edits);
}

/** Inserts `snippet` before the last `</body>` close tag, or appends it when there is none. */
export function insertBeforeBodyEnd(html: string, snippet: string): string {
  return apply(html, [], { at: scan(html).bodyEnd, text: snippet });
}
