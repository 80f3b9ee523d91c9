import { sql, type SQL } from 'drizzle-orm';

/**
 * Value helpers of the condition compiler: how filter
 * values are read, and the SQL that reads a `data.<path>` value as a number or a timestamp without
 * ever failing on a stored value of another shape (a cast error would turn a segment into a 500).
 */

/**
 * A decimal in the form PostgreSQL's `numeric` input reads: optional sign, digits with an optional
 * fraction, an exponent of at most 3 digits. Only text of at most {@link NUMBER_MAX_LENGTH} characters
 * counts (see {@link isNumberText}), which is what keeps the `numeric` cast from failing: at most 1,000
 * digits and |exponent| ≤ 999 stay far inside its limits (131,072 digits before the point, a display
 * scale of 16,383, an exponent of ±1,000). The length is checked apart from the pattern because bounded
 * repeats (`\d{1,100}`) make PostgreSQL's regex engine about five times slower on every value read.
 */
export const NUMBER_RE = /^\s*[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d{1,3})?\s*$/;
const NUMBER_RE_SQL = String.raw`^\s*[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d{1,3})?\s*$`;
/** The longest text read as a number, in characters (UTF-16 code units in JS, characters in SQL: equal for the digits, signs and spaces a number holds). */
export const NUMBER_MAX_LENGTH = 1000;

/** Whether `s` reads as a number: the rule {@link dataExprs} applies to stored strings, here for filter values. */
export const isNumberText = (s: string): boolean => s.length <= NUMBER_MAX_LENGTH && NUMBER_RE.test(s);

/**
 * ISO 8601 date or date-time with field ranges checked (PostgreSQL's cast must not fail on it; the
 * day-of-month is checked separately). No offset means UTC.
 */
export const DATE_RE =
  /^[1-9]\d{3}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])([T ]([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,9})?)?(Z|[+-](0\d|1[0-4])(:?[0-5]\d)?)?)?$/;
const DATE_RE_SQL = String.raw`^[1-9]\d{3}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])([T ]([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,9})?)?(Z|[+-](0\d|1[0-4])(:?[0-5]\d)?)?)?$`;
const HAS_OFFSET_SQL = String.raw`[T ]\d\d:\d\d.*(Z|[+-]\d\d(:?\d\d)?)$`;
const DATE_ONLY_RE = /^\d{4}-\d{2}-\d{2}$/;

export const DAY_MS = 86_400_000;
export const UNIT_MS = { minutes: 60_000, hours: 3_600_000, days: DAY_MS } as const;

/** A date filter value: the instant it names, and whether it names a whole UTC day. */
export interface DateValue {
  start: Date;
  /** Start of the next day when the value was date-only (`2024-05-01`), else undefined. */
  dayEnd?: Date;
}

/**
 * Reads a date filter value: an ISO date (`2024-05-01`, a whole UTC day), an ISO date-time (no offset
 * means UTC) or, for contact columns, epoch milliseconds. Null when it is none of these.
 */
export function parseDateValue(v: unknown, allowEpoch = false): DateValue | null {
  if (allowEpoch && typeof v === 'number') {
    const d = new Date(v); // beyond ±8.64e15 ms this is an Invalid Date, refused like any other junk
    return Number.isNaN(d.getTime()) ? null : { start: d };
  }
  if (typeof v !== 'string' || !DATE_RE.test(v.trim())) return null;
  const s = v.trim();
  // A day that does not exist (2024-02-31) would roll over in JS; refuse it like the database does.
  const day = new Date(`${s.slice(0, 10)}T00:00:00.000Z`);
  if (Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== s.slice(0, 10)) return null;
  if (DATE_ONLY_RE.test(s)) return { start: day, dayEnd: new Date(day.getTime() + DAY_MS) };
  let iso = s.replace(' ', 'T');
  if (!/(Z|[+-]\d\d(:?\d\d)?)$/.test(iso.slice(10))) iso += 'Z';
  else iso = iso.replace(/([+-]\d\d)(\d\d)$/, '$1:$2').replace(/([+-]\d\d)$/, '$1:00');
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? null : { start: d };
}

/** A number given as a JSON number or a numeric-looking string; null otherwise. */
export function parseNumberValue(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'string' && isNumberText(v)) {
    const n = Number(v.trim());
    return Number.isFinite(n) ? n : null;
  }
  return null;
}

/** A boolean given as JSON or as the string `true`/`false` (any case). */
export function parseBooleanValue(v: unknown): boolean | null {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string' && /^(true|false)$/i.test(v.trim())) return v.trim().toLowerCase() === 'true';
  return null;
}

/** `{"a":{"b":v}}` for the path `a.b`: a containment document the GIN index (jsonb_path_ops) serves. */
export function containment(path: string[], v: unknown): string {
  let doc: unknown = v;
  for (let i = path.length - 1; i >= 0; i--) doc = { [path[i]]: doc };
  return JSON.stringify(doc);
}

/** A PostgreSQL text[] literal, bound as one parameter (drizzle would expand a JS array into a list). */
export function textArrayLiteral(parts: string[]): string {
  return `{${parts.map((p) => `"${p.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).join(',')}}`;
}

/** SQL reads of one `data.<path>` value of the contact aliased `c`. */
export function dataExprs(path: string[]) {
  const p = textArrayLiteral(path);
  const json = sql`(c.data #> ${p}::text[])`;
  const text = sql`(c.data #>> ${p}::text[])`;
  // CASE fixes the evaluation order: the cast only runs on values the length and pattern have vetted.
  // The simple CASE reads the type once, a JSON number is cast without going through text, and the
  // pattern runs on strings only: over 200,000 values this is ~3× cheaper than testing the type per branch.
  const num = sql`(case jsonb_typeof(${json}) when 'number' then ${json}::numeric
    when 'string' then case when length(${text}) <= ${sql.raw(String(NUMBER_MAX_LENGTH))} and ${text} ~ ${NUMBER_RE_SQL} then btrim(${text})::numeric end end)`;
  const ts = sql`(case when jsonb_typeof(${json}) = 'string' and ${text} ~ ${DATE_RE_SQL} then
    case when substr(${text}, 9, 2)::int <= extract(day from make_date(substr(${text}, 1, 4)::int, substr(${text}, 6, 2)::int, 1) + interval '1 month - 1 day') then
      case when ${text} ~ ${HAS_OFFSET_SQL} then ${text}::timestamptz else (${text}::timestamp at time zone 'UTC') end
    end end)`;
  return { json, text, num, ts };
}

/** `expr` as a predicate that is never NULL (so NOT of it, and of a whole tree, means what it says). */
export const nn = (expr: SQL): SQL => sql`coalesce((${expr}), false)`;
