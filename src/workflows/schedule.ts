import { Cron } from 'croner';

/**
 * Schedules of SCHEDULE triggers: a 5-field cron expression (minute hour day-of-month month
 * day-of-week, as crontab(5) reads it) read in the project's IANA time zone. Parsing and the times it
 * matches are croner's; this module holds what Pigeon adds: which expressions it takes, which tick is
 * due, and the sentence the dashboard shows. Pure: no database, no clock of its own.
 */

/** A cron expression Pigeon refuses, with the reason (for a 422 field error). */
export class CronError extends Error {}

// `?` makes croner fill in the time the pattern is read, so the same expression would fire at
// different times depending on when it was saved; nicknames (@daily) and seconds are not 5 fields.
const CRON_CHARS = /^[0-9A-Za-z*,/\-\s]+$/;

/**
 * Reads `expr` as a 5-field cron expression in `timeZone` (an IANA name the caller has checked).
 * Day-of-month and day-of-week combine as crontab(5) does: when both are restricted, either matches.
 * @throws CronError when it is not 5 fields, uses `?` or `@` nicknames, or croner refuses a field
 *   (the message says which).
 */
export function parseCron(expr: string, timeZone = 'UTC'): Cron {
  const text = expr.trim().replace(/\s+/g, ' ');
  const fields = text.split(' ');
  if (fields.length !== 5 || !CRON_CHARS.test(text)) {
    throw new CronError('Write 5 fields: minute hour day-of-month month day-of-week, e.g. "0 9 * * 1"');
  }
  try {
    return new Cron(text, { timezone: timeZone, paused: true, mode: '5-part', domAndDow: false });
  } catch (err) {
    throw new CronError((err as Error).message.replace(/^CronPattern: /, ''));
  }
}

/** `expr` with its whitespace normalised (one space between fields), as it is stored. */
export const normaliseCron = (expr: string): string => expr.trim().replace(/\s+/g, ' ');

/**
 * The tick of `expr` that is due at `now`: the latest time it matches that is at or before `now` and
 * after `since` (when the trigger was enabled or changed), or null when there is none. Only the latest:
 * a worker that was down over several ticks fires one of them on its return, not each one it missed.
 */
export function dueTick(expr: string, timeZone: string, since: Date, now: Date): Date | null {
  // previousRuns is strict (a tick at exactly `now` is not before it): look from one millisecond on.
  const [latest] = parseCron(expr, timeZone).previousRuns(1, new Date(now.getTime() + 1));
  return latest && latest > since ? latest : null;
}

/** The first tick of `expr` after `after`, or null when it never matches again (e.g. 31 February). */
export function nextTick(expr: string, timeZone: string, after: Date): Date | null {
  return parseCron(expr, timeZone).nextRun(after);
}

const DAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const DAY_ALIASES: Record<string, number> = { SUN: 0, MON: 1, TUE: 2, WED: 3, THU: 4, FRI: 5, SAT: 6 };
const MONTH_ALIASES: Record<string, number> = Object.fromEntries(
  MONTH_NAMES.map((m, i) => [m.slice(0, 3).toUpperCase(), i + 1]),
);

/** A field's values when it is a plain list of numbers or names (`1,3-5`), else null. */
function listOf(field: string, aliases: Record<string, number> = {}): number[] | null {
  const out: number[] = [];
  const num = (t: string) => (/^\d+$/.test(t) ? Number(t) : aliases[t.toUpperCase()]);
  for (const part of field.split(',')) {
    const [a, b, ...rest] = part.split('-');
    const from = num(a);
    const to = b === undefined ? from : num(b);
    if (rest.length || from === undefined || to === undefined || Number.isNaN(from) || to < from) return null;
    for (let v = from; v <= to; v++) out.push(v);
  }
  return out;
}

const pad = (n: number) => String(n).padStart(2, '0');
const and = (items: string[]) =>
  items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
const ordinal = (n: number) => {
  const s = n % 100 >= 11 && n % 100 <= 13 ? 'th' : ({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[n % 10];
  return `${n}${s ?? 'th'}`;
};

/** The days of week of a field, Sunday as 0 (7 is Sunday too). */
function daysOf(field: string): string | null {
  const days = listOf(field, DAY_ALIASES);
  if (!days || days.some((d) => d > 7)) return null;
  const set = [...new Set(days.map((d) => d % 7))].sort();
  if (set.join() === '1,2,3,4,5') return 'weekday (Monday to Friday)';
  if (set.join() === '0,6') return 'Saturday and Sunday';
  return and(set.map((d) => DAY_NAMES[d]));
}

/** "at 09:00" / "at 09:00 and 17:30" / "every hour at :15" / "every 10 minutes"… for minute and hour fields. */
function timesOf(minute: string, hour: string): string | null {
  const step = /^\*\/(\d+)$/.exec(minute);
  if (minute === '*' && hour === '*') return 'every minute';
  if (step && hour === '*') return `every ${step[1]} minutes`;
  const minutes = listOf(minute);
  if (!minutes || minutes.some((m) => m > 59)) return null;
  if (hour === '*') return `every hour at ${and(minutes.map((m) => `:${pad(m)}`))}`;
  const hours = listOf(hour);
  if (!hours || hours.some((h) => h > 23) || hours.length * minutes.length > 6) return null;
  return `at ${and(hours.flatMap((h) => minutes.map((m) => `${pad(h)}:${pad(m)}`)))}`;
}

/**
 * A sentence for the schedule `expr` in `timeZone`, for people: `Every Monday at 09:00
 * (Europe/Paris)`, `Every day at 08:30 and 18:00 (UTC)`, `On the 1st of every month at 07:00 (UTC)`.
 * Shapes it has no sentence for read `At times matching "<expr>" (<zone>)`.
 * @throws CronError for an expression {@link parseCron} refuses.
 */
export function describeSchedule(expr: string, timeZone: string): string {
  parseCron(expr, timeZone);
  const [minute, hour, dom, month, dow] = normaliseCron(expr).split(' ');
  const zone = ` (${timeZone})`;
  const fallback = `At times matching "${normaliseCron(expr)}"${zone}`;
  const times = timesOf(minute, hour);
  if (!times) return fallback;
  const cap = (s: string) => s[0].toUpperCase() + s.slice(1);
  const months = month === '*' ? null : listOf(month, MONTH_ALIASES);
  if (month !== '*' && (!months || months.some((m) => m < 1 || m > 12))) return fallback;
  const monthText = months ? and(months.map((m) => MONTH_NAMES[m - 1])) : null;
  const repeating = !times.startsWith('at ');
  if (dom === '*' && dow === '*') {
    const every = repeating ? cap(times) : `Every day ${times}`;
    return `${every}${monthText ? `, in ${monthText}` : ''}${zone}`;
  }
  if (dom === '*') {
    const days = daysOf(dow);
    if (!days) return fallback;
    return `${repeating ? `${cap(times)}, every ${days}` : `Every ${days} ${times}`}${monthText ? `, in ${monthText}` : ''}${zone}`;
  }
  if (dow === '*') {
    const doms = listOf(dom);
    if (!doms || doms.some((d) => d < 1 || d > 31)) return fallback;
    const on = `on the ${and(doms.map(ordinal))} of ${monthText ?? 'every month'}`;
    return `${repeating ? `${cap(times)}, ${on}` : `${cap(on)} ${times}`}${zone}`;
  }
  return fallback;
}
