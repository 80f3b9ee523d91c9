import { Tokenizer, TokenKind, type Liquid, type TagToken } from 'liquidjs';

type NormalizedFullOptions = Liquid['options'];

/**
 * Plunk's template syntax, translated into Liquid before LiquidJS parses a template. Plunk's forms
 * keep rendering exactly as Plunk (and Pigeon before LiquidJS) rendered them:
 *
 *   {{name}}  {{ name }}  {{name ?? 'fallback'}}  {{name ?? "fallback"}}  {{name ?? bare words}}
 *   {{{name}}}  {{{name ?? 'fallback'}}}
 *
 * `name` is a run of characters other than white space, braces, `?`, `|`, quotes and square brackets
 * (a contact data key, or a dotted path into nested data). Each form becomes one `{%plunk …%}` tag
 * (see liquid.ts) that looks the name up, HTML-escapes the value in bodies (never with triple braces)
 * and otherwise inserts the fallback as written, trimmed. Everything else is Liquid: `{{ x | upcase }}`,
 * `{% if %}`, `{% for %}`, `{{- x -}}` (a `-` right inside the braces is Liquid's white-space control).
 * The only inputs that render differently from the old expression are therefore names holding `|`,
 * quotes or brackets, or starting/ending with `-` against the braces (which looked up keys nobody has
 * and printed nothing), and `{{`/`{%` text that is not a Plunk form, which is now Liquid (and a 422
 * on save when it does not parse).
 *
 * The pass is linear in the template's length: it walks LiquidJS's own tokenizer over the source (so
 * it splits outputs, tags and `{% raw %}` exactly where LiquidJS will), and at each `{{` tries Plunk's
 * grammar with plain character scans. A failed attempt reads no further than the Liquid output that is
 * then taken from the same position, so no character is read more than a constant number of times.
 * No regular expression scans the template (the one this replaces backtracked cubically).
 */

/** Where each piece of the Liquid source came from, to report positions in the template the user wrote. */
export interface Translation {
  /** The Liquid source. */
  liquid: string;
  /** Liquid offset at which each piece starts, ascending. */
  outStarts: number[];
  /** Source offset of each piece. */
  srcStarts: number[];
  /** Whether each piece is a verbatim copy (offsets map one to one) or generated (maps to its start). */
  verbatim: boolean[];
}

/** A template that cannot be parsed; `offset` is a position in the template as written (0-based). */
export class TemplateSyntaxError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
    this.name = 'TemplateSyntaxError';
  }
}

/** The name of the tag Plunk's forms become. */
export const PLUNK_TAG = 'plunk';

/** Liquid block tags may nest this deep; deeper nesting is a syntax error (LiquidJS's parser recurses). */
export const MAX_NESTING = 100;

const BLOCKS = new Set(['if', 'unless', 'for', 'case', 'capture', 'tablerow']);

const LBRACE = 0x7b;
const RBRACE = 0x7d;
const QMARK = 0x3f;
const DASH = 0x2d;

/** JavaScript's `\s` (WhiteSpace and LineTerminator), so `trim()` and the old `\s*` agree with it. */
function isSpace(c: number): boolean {
  return (
    c === 0x20 ||
    (c >= 0x09 && c <= 0x0d) ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/** A character of a Plunk variable name. */
function isNameChar(c: number): boolean {
  return (
    !isSpace(c) &&
    c !== LBRACE &&
    c !== RBRACE &&
    c !== QMARK &&
    c !== 0x7c /* | */ &&
    c !== 0x27 /* ' */ &&
    c !== 0x22 /* " */ &&
    c !== 0x5b /* [ */ &&
    c !== 0x5d
  ); /* ] */
}

function skipSpace(s: string, p: number): number {
  while (p < s.length && isSpace(s.charCodeAt(p))) p++;
  return p;
}

/** Whether `count` closing braces start at `p`. */
function closes(s: string, p: number, count: number): boolean {
  for (let k = 0; k < count; k++) if (s.charCodeAt(p + k) !== RBRACE) return false;
  return true;
}

interface PlunkForm {
  /** Offset just past the closing braces. */
  end: number;
  name: string;
  raw: boolean;
  /** The trimmed fallback, when the form has `??`. */
  fallback?: string;
}

/**
 * Plunk's form starting at `at` (`{{` or, with `triple`, `{{{`), as the old expression matched it:
 * `\{\{\s*name\s*(?:\?\?\s*(?:'([^']*)'|"([^"]*)"|([^{}]*?)))?\s*\}\}` and its triple-brace twin.
 */
function matchForm(s: string, at: number, triple: boolean): PlunkForm | null {
  const close = triple ? 3 : 2;
  let p = at + close;
  if (triple && s.charCodeAt(at + 2) !== LBRACE) return null;
  if (!triple && s.charCodeAt(p) === DASH) return null; // `{{-`: Liquid's white-space control
  p = skipSpace(s, p);
  const nameStart = p;
  while (p < s.length && isNameChar(s.charCodeAt(p))) p++;
  if (p === nameStart) return null;
  const name = s.slice(nameStart, p);
  const nameEnd = p;
  p = skipSpace(s, p);
  if (closes(s, p, close)) {
    // `{{name-}}`: Liquid's white-space control, not a name ending in a dash.
    if (!triple && p === nameEnd && s.charCodeAt(p - 1) === DASH) return null;
    return { end: p + close, name, raw: triple };
  }
  if (s.charCodeAt(p) !== QMARK || s.charCodeAt(p + 1) !== QMARK) return null;
  p = skipSpace(s, p + 2);
  const quote = s.charCodeAt(p);
  if (quote === 0x27 || quote === 0x22) {
    const q = s.indexOf(s[p], p + 1);
    if (q >= 0) {
      const after = skipSpace(s, q + 1);
      if (closes(s, after, close)) return { end: after + close, name, raw: triple, fallback: s.slice(p + 1, q).trim() };
    }
  }
  // A bare fallback: everything up to the first brace, which must open the closing braces.
  let b = p;
  while (b < s.length && s.charCodeAt(b) !== LBRACE && s.charCodeAt(b) !== RBRACE) b++;
  if (!closes(s, b, close)) return null;
  return { end: b + close, name, raw: triple, fallback: s.slice(p, b).trim() };
}

/**
 * The leftmost Plunk form in the run of `{` that starts at `at` (the old global expression tried each
 * position in turn, so in `{{{{name}}` the first two braces are text). @returns the form and where it
 * starts, or null when the `{{` at `at` is Liquid's.
 */
function matchRun(s: string, at: number): (PlunkForm & { start: number }) | null {
  for (let j = at; ; j++) {
    const m = matchForm(s, j, true) ?? matchForm(s, j, false);
    if (m) return { ...m, start: j };
    // Positions whose third character is not `{` start no further `{{`; each failed try above was O(1)
    // unless it reached the name, which happens at the last two positions of the run only.
    if (s.charCodeAt(j + 2) !== LBRACE) return null;
  }
}

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

/**
 * The tag a Plunk form becomes: `{%plunk <flags> <name base64>[ <fallback base64>]%}`, flags `e`
 * (escaped in bodies) or `r` (raw), plus `f` when there is a fallback. Standard base64 has no `%`, `}`,
 * white space or `-`, so the arguments can never end the tag early or look like white-space control.
 */
function plunkTag(m: PlunkForm): string {
  const flags = (m.raw ? 'r' : 'e') + (m.fallback !== undefined ? 'f' : '');
  return `{%${PLUNK_TAG} ${flags} ${b64(m.name)}${m.fallback ? ` ${b64(m.fallback)}` : ''}%}`;
}

/** The arguments of a `{%plunk%}` tag. @throws Error when they were not written by {@link translate}. */
export function readPlunkArgs(args: string): { name: string; raw: boolean; fallback?: string } {
  const [flags, name, fallback = ''] = args.trim().split(' ');
  if (!/^[er]f?$/.test(flags ?? '') || !name) throw new Error(`${PLUNK_TAG}: malformed arguments`);
  const text = (x: string) => Buffer.from(x, 'base64').toString('utf8');
  return { name: text(name), raw: flags[0] === 'r', ...(flags[1] === 'f' ? { fallback: text(fallback) } : {}) };
}

/**
 * Liquid markup a template may hold. LiquidJS parses markup at up to ~1.5 µs a character and each tag
 * or output costs ~10 µs (every token gets a tokenizer of its own), all synchronously; these caps keep
 * the parse of any template under a few hundred milliseconds. Plain HTML around the markup costs far
 * less and is bounded by the body cap.
 */
export const MARKUP_LIMITS = {
  /** `{{ }}` outputs, `{% %}` tags (each line of a `{% liquid %}` tag counts) and Plunk forms. */
  elements: 10_000,
  /** Characters inside them, delimiters included. */
  chars: 100_000,
} as const;

/**
 * Translates a template into Liquid (see the module comment).
 * @param options the normalized options of the LiquidJS engine that will parse the result
 * @throws TemplateSyntaxError for an unclosed `{{`, `{%` or `{% raw %}`, blocks nested deeper than
 *   {@link MAX_NESTING}, or more markup than {@link MARKUP_LIMITS}; its offset is in `src`.
 */
export function translate(src: string, options: NormalizedFullOptions): Translation {
  const tk = new Tokenizer(src, options.operators, undefined, undefined, options.groupedExpressions);
  const parts: string[] = [];
  const t: Translation = { liquid: '', outStarts: [], srcStarts: [], verbatim: [] };
  let outLen = 0;
  const emit = (text: string, srcAt: number, verbatim: boolean) => {
    t.outStarts.push(outLen);
    t.srcStarts.push(srcAt);
    t.verbatim.push(verbatim);
    parts.push(text);
    outLen += text.length;
  };
  let elements = 0;
  let chars = 0;
  const count = (n: number, length: number, at: number) => {
    elements += n;
    chars += length;
    if (elements > MARKUP_LIMITS.elements) {
      throw new TemplateSyntaxError(`the template has more than ${MARKUP_LIMITS.elements} Liquid tags and outputs`, at);
    }
    if (chars > MARKUP_LIMITS.chars) {
      throw new TemplateSyntaxError(
        `the template has more than ${MARKUP_LIMITS.chars} characters of Liquid markup`,
        at,
      );
    }
  };
  let inRaw = false;
  let inComment = false;
  let depth = 0;
  try {
    while (tk.p < tk.N) {
      const at = tk.p;
      if (!inRaw) {
        const next = markupStart(src, at);
        if (next > at) {
          // Text up to the next `{{` or `{%`, as LiquidJS's HTML token reads it, found with indexOf.
          emit(src.slice(at, next), at, true);
          tk.p = next;
          continue;
        }
        if (src.charCodeAt(at + 1) === LBRACE) {
          const m = matchRun(src, at);
          if (m) {
            count(1, m.end - m.start, m.start);
            // Braces before the form are text; a raw block keeps them from joining the tag into `{{%`.
            if (m.start > at) emit(`{% raw %}${src.slice(at, m.start)}{% endraw %}`, at, false);
            emit(plunkTag(m), m.start, false);
            tk.p = m.end;
            continue;
          }
        }
      }
      const token = tk.readTopLevelToken(options);
      emit(src.slice(token.begin, token.end), token.begin, true);
      if (token.kind !== TokenKind.Tag && token.kind !== TokenKind.Output) continue;
      if (inRaw && token.kind !== TokenKind.Tag) continue; // the text of a raw block
      const name = token.kind === TokenKind.Tag ? (token as TagToken).name : '';
      count(name === 'liquid' ? lineCount(src, token.begin, token.end) : 1, token.end - token.begin, token.begin);
      if (token.kind !== TokenKind.Tag) continue;
      if (inRaw) inRaw = name !== 'endraw';
      else if (inComment) inComment = name !== 'endcomment';
      else if (name === 'raw') inRaw = true;
      else if (name === 'comment') inComment = true;
      else if (BLOCKS.has(name)) {
        if (++depth > MAX_NESTING)
          throw new TemplateSyntaxError(`blocks are nested more than ${MAX_NESTING} deep`, token.begin);
      } else if (name.startsWith('end') && BLOCKS.has(name.slice(3))) depth--;
    }
  } catch (err) {
    if (err instanceof TemplateSyntaxError) throw err;
    const e = err as { token?: { begin?: number } };
    throw new TemplateSyntaxError(liquidMessage(err), e.token?.begin ?? tk.p);
  }
  t.liquid = parts.join('');
  return t;
}

/** The offset of the first `{{` or `{%` at or after `p`, or the end of `s`. */
function markupStart(s: string, p: number): number {
  for (let q = s.indexOf('{', p); q >= 0; q = s.indexOf('{', q + 1)) {
    const c = s.charCodeAt(q + 1);
    if (c === LBRACE || c === 0x25 /* % */) return q;
  }
  return s.length;
}

/** Lines in `s[from, to)` (the statements of a `{% liquid %}` tag). */
function lineCount(s: string, from: number, to: number): number {
  let n = 1;
  for (let i = s.indexOf('\n', from); i >= 0 && i < to; i = s.indexOf('\n', i + 1)) n++;
  return n;
}

/** The position in the template as written of offset `liquidOffset` of its translation. */
export function sourceOffset(t: Translation, liquidOffset: number): number {
  let lo = 0;
  let hi = t.outStarts.length - 1;
  if (hi < 0) return 0;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (t.outStarts[mid] <= liquidOffset) lo = mid;
    else hi = mid - 1;
  }
  return t.verbatim[lo] ? t.srcStarts[lo] + (liquidOffset - t.outStarts[lo]) : t.srcStarts[lo];
}

/** 1-based line and column of `offset` in `src` (columns count UTF-16 code units, as editors do). */
export function lineAndColumn(src: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = src.indexOf('\n'); i >= 0 && i < offset; i = src.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

/**
 * The message of a LiquidJS error without the `, line:…, col:…` LiquidJS appends and the source lines
 * it quotes (positions are reported in the template as written instead), at most 300 characters.
 */
export function liquidMessage(err: unknown): string {
  const e = err as { originalError?: Error; message?: string };
  let m = String(e?.originalError?.message ?? e?.message ?? err);
  const nl = m.indexOf('\n');
  if (nl >= 0) m = m.slice(0, nl);
  const at = m.lastIndexOf(', line:');
  if (at >= 0) m = m.slice(0, at);
  return m.length > 300 ? `${m.slice(0, 297)}...` : m;
}
