import {
  Context,
  Liquid,
  LiquidError,
  LiquidTag,
  RenderError,
  Tag,
  Tokenizer,
  toPromise,
  toValue,
  toValueSync,
  Value,
  type Emitter,
  type Parser,
  type TagToken,
  type Template,
  type TopLevelToken,
} from 'liquidjs';
import { escapeHtml } from '../../lib/html.js';
import {
  lineAndColumn,
  liquidMessage,
  PLUNK_TAG,
  readPlunkArgs,
  sourceOffset,
  TemplateSyntaxError,
  translate,
  type Translation,
} from './plunk-syntax.js';

/**
 * The template engine of emails: LiquidJS, with Plunk's forms translated in (plunk-syntax.ts), no file
 * system, and limits that make every template render in bounded time and memory whatever it holds.
 * Two engines: `html` escapes every output by default (bodies; `| raw` or `{{{ }}}` opt out), `text`
 * never escapes (subjects).
 */
export type TemplateKind = 'html' | 'text';

/**
 * Limits of one template (LiquidJS's DoS options, plus the length of what a render writes).
 * - `parseChars` (LiquidJS `parseLimit`): 5,000,000 characters of Liquid source. Sources are capped
 *   at 1,000,000 characters by the request schemas and Plunk's translation at most quadruples a form
 *   (the shortest, `{{a}}`, becomes a 16-character tag; one UTF-16 unit of a name becomes at most 4
 *   base64 characters); parsing that much is linear and takes well under a second.
 * - `renderMs` (LiquidJS `renderLimit`): 1,000 ms of rendering, not counting the time the render gives
 *   back to the event loop. A newsletter renders in a few ms; a loop that runs longer is a mistake or
 *   an attack, and the email fails rather than holding a worker.
 * - `memory` (LiquidJS `memoryLimit`): 10,000,000 units of what filters and ranges allocate (string
 *   characters, array elements), so `(1..100000000)` or a `split`/`append` explosion stops early.
 * - `rendered`: characters a render may write, 2,000,000 for bodies (twice the source cap: room for
 *   loops over data, while the text part and MIME of the result stay quick to build) and 10,000 for
 *   subjects.
 */
export const TEMPLATE_LIMITS = {
  parseChars: 5_000_000,
  renderMs: 1_000,
  memory: 10_000_000,
  rendered: { html: 2_000_000, text: 10_000 } as Record<TemplateKind, number>,
} as const;

/** A long render gives the event loop a turn after this much continuous work (ms). */
const SLICE_MS = 10;

/** Text of a value as Plunk printed it: strings as is, dates in ISO 8601, objects and arrays as JSON. */
export function toText(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (v instanceof Date) return v.toISOString();
  return JSON.stringify(v);
}

/** LiquidJS's own stringification of what tags write. */
function stringify(v: unknown): string {
  v = toValue(v);
  if (typeof v === 'string') return v;
  if (v === undefined || v === null) return '';
  if (Array.isArray(v)) return v.map(stringify).join('');
  return String(v);
}

/** A name Liquid reads as a variable path: `firstName`, `contact.plan`, `order.items.first`. */
const LIQUID_PATH = /^[A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)*$/;

/** The `{%plunk%}` tag: one of Plunk's forms (see plunk-syntax.ts). */
function plunkTagClass(escape: boolean) {
  return class PlunkTag extends Tag {
    private readonly form: ReturnType<typeof readPlunkArgs>;
    constructor(token: TagToken, remainTokens: TopLevelToken[], liquid: Liquid) {
      super(token, remainTokens, liquid);
      this.form = readPlunkArgs(token.args);
    }
    *render(ctx: Context, emitter: Emitter): Generator<unknown, void, unknown> {
      const { name, raw, fallback } = this.form;
      // An exact key first (data keys may contain dots), then a dotted path through Liquid's scopes,
      // so loop variables and assigned names resolve too.
      let value = yield ctx._get([name]);
      if (value === undefined && name.includes('.')) value = yield ctx._get(name.split('.'));
      const text = toText(toValue(value));
      if (text === undefined) {
        if (fallback !== undefined) emitter.write(fallback);
        return;
      }
      emitter.write(escape && !raw ? escapeHtml(text) : text);
    }
    /**
     * For LiquidJS's static analysis ({@link usedVariables}): the looked-up name as a Liquid path, so
     * loop and assigned names are told from data. A form with a fallback is left out (its author
     * planned for the value to be missing), as is a name that is no Liquid path (`{{first name}}`).
     */
    *arguments(): Generator<Value> {
      const { name, fallback } = this.form;
      if (fallback !== undefined || !LIQUID_PATH.test(name)) return;
      yield new Value(name, this.liquid);
    }
  };
}

/** A queue with the `length`/`shift()` LiquidJS's parser uses; Array#shift made parsing quadratic. */
class TokenQueue {
  private i = 0;
  constructor(private readonly items: TopLevelToken[]) {}
  get length(): number {
    return this.items.length - this.i;
  }
  shift(): TopLevelToken | undefined {
    return this.i < this.items.length ? this.items[this.i++] : undefined;
  }
}
const queue = (tokens: TopLevelToken[]) => new TokenQueue(tokens) as unknown as TopLevelToken[];

/** `{% liquid %}` parsing its lines through the same linear queue. */
class LinearLiquidTag extends LiquidTag {
  constructor(token: TagToken, remainTokens: TopLevelToken[], liquid: Liquid, parser: Parser) {
    super(token, remainTokens, liquid, {
      parseTokens: (tokens: TopLevelToken[]) => parser.parseTokens(queue(tokens)),
    } as Parser);
  }
}

/** Per-render state: the output budget and the render clock, which stops while the render yields. */
interface RenderState {
  written: number;
  max: number;
  kind: TemplateKind;
  deadline: number;
  lastYield: number;
}
const states = new WeakMap<Context, RenderState>();

/** Writes what a render emits, counting it against the render's output budget. */
class BudgetEmitter implements Emitter {
  buffer = '';
  constructor(private readonly state: RenderState | undefined) {}
  write(html: unknown): void {
    const s = stringify(html);
    if (this.state && (this.state.written += s.length) > this.state.max) {
      throw new Error(
        `the rendered ${this.state.kind === 'html' ? 'body' : 'subject'} is longer than ${this.state.max} characters`,
      );
    }
    this.buffer += s;
  }
}

/** The render limit of one render, as a LiquidJS limiter whose clock {@link yieldingRender} pauses. */
function renderClock(state: RenderState) {
  return {
    use() {},
    check(now: number) {
      if (now > state.deadline) throw new Error('template render limit exceeded');
    },
  };
}

/**
 * LiquidJS's `renderTemplates` (the loop every block tag renders its children with), plus: in async
 * renders, a turn for the event loop every {@link SLICE_MS} ms (LiquidJS's async render only awaits
 * microtasks, which never let timers or sockets run), with the render clock stopped meanwhile.
 */
function installYieldingRenderer(engine: Liquid): void {
  engine.renderer.renderTemplates = function* renderTemplates(templates: Template[], ctx: Context, emitter?: Emitter) {
    const state = states.get(ctx);
    const out = emitter ?? new BudgetEmitter(state);
    for (const tpl of templates) {
      if (state && !ctx.sync && performance.now() - state.lastYield >= SLICE_MS) {
        const paused = performance.now();
        yield new Promise<void>((resolve) => setImmediate(resolve));
        state.lastYield = performance.now();
        state.deadline += state.lastYield - paused;
      }
      ctx.renderLimit.check(performance.now());
      try {
        const html = yield tpl.render(ctx, out);
        if (html) out.write(html);
        if (ctx.breakCalled || ctx.continueCalled) break;
      } catch (e) {
        throw LiquidError.is(e) ? e : new RenderError(e as Error, tpl);
      }
    }
    return out.buffer;
  };
}

function createEngine(kind: TemplateKind): Liquid {
  const engine = new Liquid({
    strictFilters: true, // an unknown filter fails the parse (a 422 on save) instead of vanishing
    ownPropertyOnly: true, // no prototype properties of data (`{{ x.constructor }}`)
    templates: {}, // no file system: `include` & co. could otherwise read files of the server
    timezoneOffset: 0, // `date` renders the same on every server
    // Named, so LiquidJS does not ask Intl for the server's default locale when the engine is made:
    // that one call maps ~6 MB of ICU data into every process's resident memory.
    locale: 'en-US',
    outputEscape:
      kind === 'html' ? (v: unknown) => escapeHtml(toText(toValue(v)) ?? '') : (v: unknown) => toText(toValue(v)) ?? '',
    parseLimit: TEMPLATE_LIMITS.parseChars,
    renderLimit: TEMPLATE_LIMITS.renderMs,
    memoryLimit: TEMPLATE_LIMITS.memory,
  });
  for (const name of ['include', 'render', 'layout', 'block']) delete engine.tags[name];
  engine.registerTag('liquid', LinearLiquidTag);
  engine.registerTag(PLUNK_TAG, plunkTagClass(kind === 'html'));
  installYieldingRenderer(engine);
  return engine;
}

const engines: Record<TemplateKind, Liquid> = { html: createEngine('html'), text: createEngine('text') };

/** A parsed template and its translation (for positions in what the user wrote). */
export interface CompiledTemplate {
  kind: TemplateKind;
  source: string;
  templates: Template[];
  translation: Translation;
}

/** An error of a template at a position of the template as written (1-based line and column). */
export class TemplateError extends Error {
  constructor(
    readonly reason: string,
    readonly line: number,
    readonly column: number,
    readonly phase: 'parse' | 'render',
  ) {
    super(`line ${line}, column ${column}: ${reason}`);
    this.name = 'TemplateError';
  }
}

function templateError(src: string, offset: number, reason: string, phase: 'parse' | 'render'): TemplateError {
  const { line, column } = lineAndColumn(src, Math.max(0, Math.min(offset, src.length)));
  return new TemplateError(reason, line, column, phase);
}

// Parsed templates by kind and source: a campaign parses its template once per process, not per
// contact. Bounded by total source length, least recently used first out.
const CACHE_CHARS = 20_000_000;
const caches: Record<TemplateKind, Map<string, CompiledTemplate>> = { html: new Map(), text: new Map() };
let cachedChars = 0;

function remember(t: CompiledTemplate): void {
  caches[t.kind].set(t.source, t);
  cachedChars += t.source.length;
  for (const cache of [caches.html, caches.text]) {
    for (const [k, v] of cache) {
      if (cachedChars <= CACHE_CHARS) return;
      cache.delete(k);
      cachedChars -= v.source.length;
    }
  }
}

/**
 * Parses `source` (Plunk forms and Liquid) for the `kind` engine; cached.
 * @throws TemplateError (phase `parse`) naming the line and column of the problem: an unclosed `{{` or
 *   `{%`, an unknown tag or filter, a block that is not closed, nesting deeper than 100, a source past
 *   the parse limit.
 */
export function compileTemplate(kind: TemplateKind, source: string): CompiledTemplate {
  const hit = caches[kind].get(source);
  if (hit) {
    caches[kind].delete(source);
    caches[kind].set(source, hit);
    return hit;
  }
  const engine = engines[kind];
  let translation: Translation;
  try {
    translation = translate(source, engine.options);
  } catch (err) {
    const e = err as TemplateSyntaxError;
    throw templateError(source, e.offset ?? 0, e.message, 'parse');
  }
  if (translation.liquid.length > engine.options.parseLimit) {
    throw templateError(
      source,
      0,
      `the template is longer than the parse limit of ${engine.options.parseLimit} characters`,
      'parse',
    );
  }
  let templates: Template[];
  try {
    const tokens = new Tokenizer(
      translation.liquid,
      engine.options.operators,
      undefined,
      undefined,
      engine.options.groupedExpressions,
    ).readTopLevelTokens(engine.options);
    templates = engine.parser.parseTokens(queue(tokens));
  } catch (err) {
    const at = (err as LiquidError).token?.begin ?? 0;
    const reason = /call stack/i.test(liquidMessage(err)) ? 'the template is nested too deeply' : liquidMessage(err);
    throw templateError(source, sourceOffset(translation, at), reason, 'parse');
  }
  const compiled: CompiledTemplate = { kind, source, templates, translation };
  remember(compiled);
  return compiled;
}

function start(t: CompiledTemplate, scope: Record<string, unknown>, sync: boolean) {
  const engine = engines[t.kind];
  const now = performance.now();
  const state: RenderState = {
    written: 0,
    max: TEMPLATE_LIMITS.rendered[t.kind],
    kind: t.kind,
    deadline: now + engine.options.renderLimit,
    lastYield: now,
  };
  const ctx = new Context(
    scope,
    engine.options,
    { sync },
    {
      liquid: engine,
      renderLimit: renderClock(state) as unknown as Context['renderLimit'],
    },
  );
  states.set(ctx, state);
  return engine.renderer.renderTemplates(t.templates, ctx, new BudgetEmitter(state));
}

function renderFailure(t: CompiledTemplate, err: unknown): TemplateError {
  const token = (err as LiquidError)?.token;
  const at = token && token.input === t.translation.liquid ? sourceOffset(t.translation, token.begin) : 0;
  return templateError(t.source, at, liquidMessage(err), 'render');
}

/**
 * Renders a compiled template with `scope` (the variables), giving the event loop a turn every 10 ms.
 * @throws TemplateError (phase `render`): a limit was passed or a filter failed.
 */
export async function renderTemplate(t: CompiledTemplate, scope: Record<string, unknown>): Promise<string> {
  try {
    return (await toPromise(start(t, scope, false))) as string;
  } catch (err) {
    throw renderFailure(t, err);
  }
}

/** {@link renderTemplate} in one go, holding the event loop (for callers that cannot await). */
export function renderTemplateSync(t: CompiledTemplate, scope: Record<string, unknown>): string {
  try {
    return toValueSync(start(t, scope, true)) as string;
  } catch (err) {
    throw renderFailure(t, err);
  }
}

/**
 * The names a template reads from its variables, without those it defines itself (loop variables,
 * `assign`, `capture`): the first segment of each path (`contact` for `{{ contact.plan }}`), in order
 * of first use. Found by LiquidJS's static analysis of the parsed template; Plunk forms with a
 * fallback are not counted (see the `plunk` tag's `arguments`).
 */
export function usedVariables(t: CompiledTemplate): string[] {
  return Object.keys(engines[t.kind].analyzeSync(t.templates, { partials: false }).globals);
}
