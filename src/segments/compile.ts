import { and, eq, sql, SQL } from 'drizzle-orm';
import { segments, type ConditionFilter, type ConditionTree } from '../db/schema.js';
import type { Db } from '../db/pool.js';
import { AppError, type FieldError } from '../http/errors.js';
import { isUuid } from '../lib/ids.js';
import { parseConditionTree, type Operator, type Unit } from './condition.schema.js';
import {
  containment,
  dataExprs,
  nn,
  parseBooleanValue,
  parseDateValue,
  parseNumberValue,
  UNIT_MS,
  type DateValue,
} from './compile-values.js';
import { CONTACT_DATE_COLUMNS, DATA_KEY, EMAIL_COLUMNS, EVENT_NAME, ORDER_OPS, VALUE_OPS } from './columns.js';
import { OPERATORS_BY_KIND } from './operators.js';
import {
  MAX_EXPANDED_FILTERS,
  MAX_REFERENCE_DEPTH,
  ReferenceLimitError,
  type ReferenceHop,
} from './reference-limits.js';

/**
 * The one condition-tree compiler, shared by segments, campaign audiences (`audienceCondition`) and
 * workflow CONDITION steps.
 *
 * A tree compiles to ONE parameterised boolean SQL predicate over the contacts table aliased `c`
 * (`select … from contacts c where c.project_id = $p and <predicate>`): no per-contact evaluation in
 * JavaScript. Every value is a bound parameter; field names are checked against fixed patterns and
 * never spliced into the SQL. The predicate is never NULL, so it may be negated.
 *
 * Semantics (decided here where the spec is silent):
 * - Within a group its filters and nested `conditions` are ANDed; groups combine with `logic`.
 *   A group with no filters and no conditions, and a tree with no groups, restrict nothing: they
 *   match every contact of the project.
 * - `email` (contact column): equals / notEquals / contains / notContains, case-insensitive.
 * - `subscribed`: equals / notEquals with a boolean (or the string "true"/"false").
 * - `createdAt`, `updatedAt`: equals / notEquals / greaterThan / lessThan / …OrEqual with an ISO date
 *   or date-time (or epoch ms); a date-only value names a whole UTC day (`equals 2024-05-01` is that
 *   day, `greaterThan 2024-05-01` starts the next day); `within` / `olderThan` N `unit`s before now.
 * - `data.<dotted.path>`: every value operator. A number filter value compares numerically with a
 *   stored JSON number OR a stored string that looks like a number (`"42"`, `" 4.5e1 "`); a string
 *   value equals a stored string, or the same number, or the same boolean (text-form equality, served
 *   by the GIN index); ordering comparisons take a number or an ISO date; dates are read from stored
 *   ISO strings (date-only = midnight UTC; no offset = UTC); `contains` is a case-insensitive
 *   substring; `exists` is "present and not JSON null". A missing key fails every positive operator
 *   and passes `notEquals`, `notContains` and `notExists`.
 * - `event.<name>`: triggered, notTriggered, triggeredWithin, notTriggeredWithin (includes contacts
 *   that never had the event), triggeredOlderThan (had it, but not within the window: Plunk's rule).
 * - `email.<sent|delivered|opened|clicked|bounced|complained>` (Plunk's aliases open, click, delivery,
 *   bounce, complaint too): the same family over the contact's emails' timestamps.
 * - `segment.<id>`: memberOfSegment / notMemberOfSegment. STATIC reads segment_members; DYNAMIC
 *   compiles that segment's condition inline (live, also when tracked), with cycle detection. The
 *   whole expanded tree is held to one budget of filters (every reference counts its segment's
 *   filters again) and a maximum reference depth (reference-limits.ts); past either the compile
 *   stops at once, so a stored chain of references can never be built into a huge predicate.
 * - Time windows: `value` is a positive amount (number or numeric string), `unit` is required;
 *   the window is [now − amount·unit, ∞), `now` being `ctx.now` bound as a parameter.
 */
export interface CompileContext {
  /** For `segment.<id>` look-ups (a transaction or the pool). */
  db: Pick<Db, 'select'>;
  projectId: string;
  /** Business time (`deps.clock.now()`). */
  now: Date;
  /** Name of the tree in error paths; default `condition`. */
  prefix?: string;
  /** Segments whose condition is being compiled (the segment being saved), for cycle detection. */
  segmentStack?: string[];
  /**
   * Conditions to use instead of the stored ones, by segment id (lower-case): checks what a change
   * to a segment would do to the segments that name it, before it is saved.
   */
  overrides?: Map<string, ConditionTree>;
}

/** Whether `q` holds any of `parts` (by identity), at any depth of its chunks. */
function embeds(q: SQL, parts: SQL[]): boolean {
  return q.queryChunks.some((c) => parts.includes(c as SQL) || (c instanceof SQL && embeds(c, parts)));
}

/** Thrown inside a filter: one field error, the filter compiles to `false` and the rest goes on. */
class FilterError extends Error {
  constructor(
    readonly part: 'field' | 'operator' | 'value' | 'unit',
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

type SegmentLookup = { type: 'DYNAMIC' | 'STATIC'; name: string; condition: ConditionTree | null } | null;

class Compiler {
  readonly errors: FieldError[] = [];
  constructor(
    private readonly ctx: CompileContext,
    private readonly stack: string[],
    // One look-up per referenced segment per compile, however often it is named.
    private readonly seen = new Map<string, Promise<SegmentLookup>>(),
    // Shared by every compiler of one compile: filters compiled so far, across all inlined segments.
    private readonly budget = { used: 0 },
    // The references inlined from the outermost tree down to this one.
    private readonly hops: ReferenceHop[] = [],
  ) {}

  /** Predicates that read a data value per row (a cast, a pattern, a substring): see {@link staged}. */
  private readonly perRow = new WeakSet<SQL>();

  /**
   * The tree as a conjunction split in two: `first`, what an index or a join serves (containment,
   * columns, events, emails, segment references, nested ORs), and `later`, the filters that read a
   * data value per row. Only a tree whose parts are all ANDed (logic AND, or a single group) splits;
   * nested conjunctive `conditions` split too. Anything else is one part of `first`. Filters are
   * compiled in the same order as {@link tree}, so errors and the budget count are the same.
   */
  async staged(t: ConditionTree, path: string): Promise<{ first: SQL[]; later: SQL[] }> {
    if (t.logic !== 'AND' && t.groups.length > 1) return { first: [await this.tree(t, path)], later: [] };
    const out = { first: [] as SQL[], later: [] as SQL[] };
    for (const [i, g] of t.groups.entries()) {
      for (const [j, f] of g.filters.entries()) {
        const part = await this.filterAt(f, `${path}.groups.${i}.filters.${j}`);
        (this.perRow.has(part) ? out.later : out.first).push(part);
      }
      if (g.conditions) {
        const inner = await this.staged(g.conditions, `${path}.groups.${i}.conditions`);
        out.first.push(...inner.first);
        out.later.push(...inner.later);
      }
    }
    return out;
  }

  async tree(t: ConditionTree, path: string): Promise<SQL> {
    const groups: SQL[] = [];
    let emptyGroup = false;
    for (const [i, g] of t.groups.entries()) {
      const parts: SQL[] = [];
      for (const [j, f] of g.filters.entries()) parts.push(await this.filterAt(f, `${path}.groups.${i}.filters.${j}`));
      if (g.conditions) parts.push(await this.tree(g.conditions, `${path}.groups.${i}.conditions`));
      if (parts.length) groups.push(parts.length === 1 ? parts[0] : sql`(${sql.join(parts, sql` and `)})`);
      else emptyGroup = true;
    }
    // An empty group restricts nothing: it drops out of an AND and satisfies an OR.
    if (!groups.length || (emptyGroup && t.logic === 'OR')) return sql`true`;
    return groups.length === 1 ? groups[0] : sql`(${sql.join(groups, t.logic === 'OR' ? sql` or ` : sql` and `)})`;
  }

  private async filterAt(f: ConditionFilter, path: string): Promise<SQL> {
    // Counted before it is compiled: an over-budget tree stops here, before any more SQL is built.
    if (++this.budget.used > MAX_EXPANDED_FILTERS)
      throw Object.assign(new ReferenceLimitError('segment_too_large', this.hops), { field: path });
    try {
      return await this.filter(f);
    } catch (err) {
      // The outermost filter on the way down is the one to name: each level overwrites the field.
      if (err instanceof ReferenceLimitError) err.field = path;
      if (!(err instanceof FilterError)) throw err;
      this.errors.push({ field: `${path}.${err.part}`, message: err.message, code: err.code });
      return sql`false`;
    }
  }

  private filter(f: ConditionFilter): SQL | Promise<SQL> {
    const op = f.operator as Operator;
    const { field } = f;
    if (field === 'email') return this.emailColumn(op, f.value);
    if (field === 'subscribed') return this.subscribed(op, f.value);
    if (CONTACT_DATE_COLUMNS[field]) return this.contactDate(sql.raw(`c.${CONTACT_DATE_COLUMNS[field]}`), f);
    if (field.startsWith('data.')) return this.data(f);
    if (field.startsWith('event.')) return this.event(field.slice(6), f);
    if (field.startsWith('email.')) return this.emailActivity(field.slice(6), f);
    if (field.startsWith('segment.')) return this.segment(field.slice(8), op);
    throw new FilterError(
      'field',
      `Unknown field "${field}": use email, subscribed, createdAt, updatedAt, data.<key>, event.<name>, email.<activity> or segment.<id>`,
      'invalid_field',
    );
  }

  private allow(op: Operator, allowed: readonly Operator[], field: string): void {
    if (!allowed.includes(op)) {
      throw new FilterError(
        'operator',
        `Operator "${op}" does not fit field ${field}; allowed: ${allowed.join(', ')}`,
        'invalid_operator',
      );
    }
  }

  /** Start of the window of a time-window operator: now − value·unit. */
  private since(f: ConditionFilter): string {
    if (!f.unit)
      throw new FilterError('unit', `Operator "${f.operator}" needs a unit: minutes, hours or days`, 'unit_required');
    const amount = parseNumberValue(f.value);
    if (amount === null || amount <= 0)
      throw new FilterError('value', `Operator "${f.operator}" needs a positive number as value`, 'invalid_type');
    const ms = amount * UNIT_MS[f.unit as Unit];
    const t = this.ctx.now.getTime() - ms;
    if (!Number.isFinite(t) || Math.abs(t) > 8.64e15)
      throw new FilterError('value', 'The time window is too large', 'too_big');
    return new Date(t).toISOString();
  }

  private stringValue(v: unknown): string {
    if (typeof v === 'string') return v;
    if (typeof v === 'number' && Number.isFinite(v)) return String(v);
    throw new FilterError('value', 'value must be a string', 'invalid_type');
  }

  private emailColumn(op: Operator, value: unknown): SQL {
    this.allow(op, OPERATORS_BY_KIND.email, 'email');
    const v = this.stringValue(value).trim().toLowerCase();
    switch (op) {
      case 'equals':
        return sql`c.email = ${v}`;
      case 'notEquals':
        return sql`c.email <> ${v}`;
      case 'contains':
        return sql`strpos(c.email, ${v}) > 0`;
      default:
        return sql`strpos(c.email, ${v}) = 0`;
    }
  }

  private subscribed(op: Operator, value: unknown): SQL {
    this.allow(op, OPERATORS_BY_KIND.subscribed, 'subscribed');
    const b = parseBooleanValue(value);
    if (b === null) throw new FilterError('value', 'value must be a boolean', 'invalid_type');
    return op === 'equals' ? sql`c.subscribed = ${b}` : sql`c.subscribed <> ${b}`;
  }

  /** Comparison of a timestamp expression with a date value; day granularity for date-only values. */
  private dateCompare(col: SQL, op: Operator, d: DateValue): SQL {
    const s = d.start.toISOString();
    const e = d.dayEnd?.toISOString();
    switch (op) {
      case 'equals':
        return e ? sql`(${col} >= ${s}::timestamptz and ${col} < ${e}::timestamptz)` : sql`${col} = ${s}::timestamptz`;
      case 'greaterThan':
        return e ? sql`${col} >= ${e}::timestamptz` : sql`${col} > ${s}::timestamptz`;
      case 'greaterThanOrEqual':
        return sql`${col} >= ${s}::timestamptz`;
      case 'lessThan':
        return sql`${col} < ${s}::timestamptz`;
      case 'lessThanOrEqual':
        return e ? sql`${col} < ${e}::timestamptz` : sql`${col} <= ${s}::timestamptz`;
      default:
        throw new Error(`not a date comparison: ${op}`);
    }
  }

  private contactDate(col: SQL, f: ConditionFilter): SQL {
    const op = f.operator as Operator;
    this.allow(op, OPERATORS_BY_KIND.contactDate, f.field);
    if (op === 'within') return sql`${col} >= ${this.since(f)}::timestamptz`;
    if (op === 'olderThan') return sql`${col} < ${this.since(f)}::timestamptz`;
    const d = parseDateValue(f.value, true);
    if (!d) throw new FilterError('value', 'value must be an ISO date (2024-05-01) or date-time', 'invalid_type');
    if (op === 'notEquals') return sql`not ${this.dateCompare(col, 'equals', d)}`;
    return this.dateCompare(col, op, d);
  }

  private data(f: ConditionFilter): SQL {
    const path = f.field.slice(5).split('.');
    if (path.length > 10 || !path.every((k) => DATA_KEY.test(k))) {
      throw new FilterError(
        'field',
        'A data field name has up to 10 parts separated by dots, each of letters, digits, spaces, "_" and "-"',
        'invalid_field',
      );
    }
    const x = dataExprs(path);
    const out = this.dataPredicate(f, path, x);
    if (embeds(out, [x.num, x.ts, x.text])) this.perRow.add(out);
    return out;
  }

  private dataPredicate(f: ConditionFilter, path: string[], x: ReturnType<typeof dataExprs>): SQL {
    const op = f.operator as Operator;
    this.allow(op, VALUE_OPS, f.field);
    const v = f.value;
    switch (op) {
      case 'exists':
        return sql`coalesce(jsonb_typeof(${x.json}), 'null') <> 'null'`;
      case 'notExists':
        return sql`coalesce(jsonb_typeof(${x.json}), 'null') = 'null'`;
      case 'within':
        return nn(sql`${x.ts} >= ${this.since(f)}::timestamptz`);
      case 'olderThan':
        return nn(sql`${x.ts} < ${this.since(f)}::timestamptz`);
      case 'contains':
        return nn(sql`strpos(lower(${x.text}), ${this.stringValue(v).toLowerCase()}) > 0`);
      case 'notContains':
        return sql`not ${nn(sql`strpos(lower(${x.text}), ${this.stringValue(v).toLowerCase()}) > 0`)}`;
      case 'equals':
        return this.dataEquals(path, x, v);
      case 'notEquals':
        return sql`not ${this.dataEquals(path, x, v)}`;
      default:
        break;
    }
    const cmp = sql.raw(ORDER_OPS[op]);
    if (typeof v === 'number') return nn(sql`${x.num} ${cmp} ${parseNumberValue(v)}::numeric`);
    const d = parseDateValue(v);
    if (d) return nn(this.dateCompare(x.ts, op, d));
    const n = parseNumberValue(v);
    if (n !== null) return nn(sql`${x.num} ${cmp} ${n}::numeric`);
    throw new FilterError('value', `Operator "${op}" needs a number or an ISO date as value`, 'invalid_type');
  }

  /** Text-form equality; containment terms keep the GIN index usable. Never NULL. */
  private dataEquals(path: string[], x: ReturnType<typeof dataExprs>, v: unknown): SQL {
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) throw new FilterError('value', 'value must be a finite number', 'invalid_type');
      return nn(sql`${x.num} = ${v}::numeric`);
    }
    if (typeof v === 'boolean') {
      return sql`(c.data @> ${containment(path, v)}::jsonb or c.data @> ${containment(path, String(v))}::jsonb)`;
    }
    if (typeof v !== 'string')
      throw new FilterError('value', 'value must be a string, number or boolean', 'invalid_type');
    const d = parseDateValue(v);
    if (d?.dayEnd) return nn(this.dateCompare(x.ts, 'equals', d));
    const terms = [sql`c.data @> ${containment(path, v)}::jsonb`];
    const n = parseNumberValue(v);
    if (n !== null) terms.push(nn(sql`${x.num} = ${v.trim()}::numeric`));
    const b = parseBooleanValue(v);
    if (b !== null) terms.push(sql`c.data @> ${containment(path, b)}::jsonb`);
    return terms.length === 1 ? terms[0] : sql`(${sql.join(terms, sql` or `)})`;
  }

  /** EXISTS-family predicate over `rows` (a correlated subquery's FROM+WHERE) and its time column. */
  private activity(f: ConditionFilter, rows: SQL, time: SQL): SQL {
    const op = f.operator as Operator;
    this.allow(op, OPERATORS_BY_KIND.event, f.field);
    const any = sql`exists (select 1 from ${rows})`;
    if (op === 'triggered') return any;
    if (op === 'notTriggered') return sql`not ${any}`;
    const recent = sql`exists (select 1 from ${rows} and ${time} >= ${this.since(f)}::timestamptz)`;
    if (op === 'triggeredWithin') return recent;
    if (op === 'notTriggeredWithin') return sql`not ${recent}`;
    return sql`(${any} and not ${recent})`; // triggeredOlderThan
  }

  private event(name: string, f: ConditionFilter): SQL {
    if (!EVENT_NAME.test(name))
      throw new FilterError('field', 'event.<name> needs an event name of 1 to 200 characters', 'invalid_field');
    const rows = sql`events e where e.project_id = ${this.ctx.projectId} and e.contact_id = c.id and e.name = ${name}`;
    return this.activity(f, rows, sql`e.created_at`);
  }

  private emailActivity(kind: string, f: ConditionFilter): SQL {
    const col = EMAIL_COLUMNS[kind];
    if (!col)
      throw new FilterError(
        'field',
        'email.<activity> takes sent, delivered, opened, clicked, bounced or complained',
        'invalid_field',
      );
    const time = sql.raw(`m.${col}`);
    const rows = sql`emails m where m.project_id = ${this.ctx.projectId} and m.contact_id = c.id and ${time} is not null`;
    return this.activity(f, rows, time);
  }

  private async segment(id: string, op: Operator): Promise<SQL> {
    this.allow(op, OPERATORS_BY_KIND.segment, 'segment.<id>');
    if (!isUuid(id)) throw new FilterError('field', `No segment ${id} in this project`, 'segment_not_found');
    const key = id.toLowerCase();
    const cyclic = this.stack.includes(key);
    if (!this.seen.has(key)) {
      const override = this.ctx.overrides?.get(key);
      this.seen.set(
        key,
        this.ctx.db
          .select({ type: segments.type, name: segments.name, condition: segments.condition })
          .from(segments)
          .where(and(eq(segments.id, id), eq(segments.projectId, this.ctx.projectId)))
          .limit(1)
          .then((r) => (r[0] && override ? { ...r[0], condition: override } : (r[0] ?? null))),
      );
    }
    const seg = await this.seen.get(key)!;
    // Checked after the look-up so that the message names the segment as people know it.
    if (cyclic) {
      throw new FilterError(
        'field',
        `Segment "${seg?.name ?? id}" refers back to itself (a cycle of segment references)`,
        'segment_cycle',
      );
    }
    if (!seg) throw new FilterError('field', `No segment ${id} in this project`, 'segment_not_found');
    let member: SQL;
    if (seg.type === 'STATIC') {
      member = sql`exists (select 1 from segment_members sm where sm.segment_id = ${id} and sm.contact_id = c.id)`;
    } else {
      const hops = [...this.hops, { segmentId: key, name: seg.name }];
      if (hops.length > MAX_REFERENCE_DEPTH) throw new ReferenceLimitError('segment_too_deep', hops);
      const inner = new Compiler(this.ctx, [...this.stack, key], this.seen, this.budget, hops);
      member = seg.condition ? await inner.tree(seg.condition, 'condition') : sql`false`;
      if (inner.errors.length) {
        const e = inner.errors[0];
        throw new FilterError('field', `Segment ${id} cannot be used: ${e.message}`, e.code);
      }
    }
    return op === 'memberOfSegment' ? member : sql`not ${member}`;
  }
}

/**
 * Validates `input` and compiles it into a predicate over contacts aliased `c` (see the semantics above).
 * Does not add the project filter: callers write `where c.project_id = $p and <predicate>`.
 * @throws AppError 422 VALIDATION_ERROR listing every wrong filter, e.g.
 *   `{field: 'condition.groups.0.filters.1.operator', code: 'invalid_operator'}`; codes: zod's for
 *   shape, `invalid_field`, `invalid_operator`, `unit_required`, `invalid_type`, `too_big`,
 *   `segment_not_found` (also another project's segment), `segment_cycle`; and, alone, `segment_too_large`
 *   or `segment_too_deep` (reference limits) with `details: {limit, path: [{segmentId, name}]}`, the
 *   message naming the path from the outermost filter through the inlined segments.
 */
export async function compileCondition(input: unknown, ctx: CompileContext): Promise<SQL> {
  return runCompiler(input, ctx, (c, tree, prefix) => c.tree(tree, prefix));
}

/**
 * A compiled tree split for evaluation order (see {@link compileStaged}): `first` is never null,
 * `later` is null when no filter reads a data value per row.
 */
export interface StagedPredicate {
  first: SQL;
  later: SQL | null;
}

/**
 * {@link compileCondition} for set-based reads (segment counts and computes), split so that
 * {@link matchingContacts} can have PostgreSQL apply the filters served by indexes and joins before
 * the ones that read a data value per row. Same validation and errors as {@link compileCondition};
 * `first and later` means the same as its predicate.
 */
export async function compileStaged(input: unknown, ctx: CompileContext): Promise<StagedPredicate> {
  return runCompiler(input, ctx, async (c, tree, prefix) => {
    const { first, later } = await c.staged(tree, prefix);
    const all = (parts: SQL[]) => (parts.length === 1 ? parts[0] : sql`(${sql.join(parts, sql` and `)})`);
    return { first: first.length ? all(first) : sql`true`, later: later.length ? all(later) : null };
  });
}

async function runCompiler<T>(
  input: unknown,
  ctx: CompileContext,
  run: (c: Compiler, tree: ConditionTree, prefix: string) => Promise<T>,
): Promise<T> {
  const prefix = ctx.prefix ?? 'condition';
  const tree = parseConditionTree(input, prefix);
  const c = new Compiler(
    ctx,
    (ctx.segmentStack ?? []).map((s) => s.toLowerCase()),
  );
  let out: T;
  try {
    out = await run(c, tree, prefix);
  } catch (err) {
    if (!(err instanceof ReferenceLimitError)) throw err;
    const message = err.describe();
    throw new AppError('VALIDATION_ERROR', `Invalid ${prefix}: ${message}`, {
      errors: [{ field: err.field ?? prefix, message, code: err.code }],
      details: { limit: err.code === 'segment_too_large' ? MAX_EXPANDED_FILTERS : MAX_REFERENCE_DEPTH, path: err.hops },
    });
  }
  if (c.errors.length) {
    throw new AppError(
      'VALIDATION_ERROR',
      `Invalid ${prefix}: ${c.errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`,
      { errors: c.errors },
    );
  }
  return out;
}
