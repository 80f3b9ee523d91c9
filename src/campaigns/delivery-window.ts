/**
 * Send windows and local time (issue 37): the rules, without I/O.
 *
 * A window is `{from, to, days}` read in one time zone: mail may go out on the listed weekdays from
 * `from` (included) to `to` (excluded), both "HH:MM" of the same day (`from` < `to`). Its next
 * opening from a moment `t` is `t` itself when `t` is inside, else the next `from` on a listed day.
 *
 * Local times that a zone skips or repeats (daylight saving changes) are read as PostgreSQL reads
 * `timestamp AT TIME ZONE zone`, so this module and the SQL of the fan-out (migration 0033,
 * `pigeon_next_local`, `pigeon_window_at`) agree: a time in the spring-forward gap is read with the
 * offset before the change (02:30 in New York on its spring-forward day is 03:30 EDT), a time of the
 * repeated hour of the fall-back night is its second occurrence (standard time).
 */
import { z } from 'zod';

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export interface SendWindow {
  from: string;
  to: string;
  days: Weekday[];
}

/** ISO weekday numbers (1 = Monday … 7 = Sunday), as PostgreSQL's `isodow`. */
export const isoDays = (days: readonly Weekday[]): number[] => days.map((d) => WEEKDAYS.indexOf(d) + 1);

const HHMM = /^([01]\d|2[0-3]):([0-5]\d)$/;

/** Whether `s` is a 24-hour "HH:MM" time. */
export const isHhmm = (s: string): boolean => HHMM.test(s);

/** Minutes since midnight of an "HH:MM" time. */
export function minutesOf(hhmm: string): number {
  const m = HHMM.exec(hhmm);
  if (!m) throw new Error(`not an HH:MM time: ${hhmm}`);
  return Number(m[1]) * 60 + Number(m[2]);
}

interface LocalParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, f);
  }
  return f;
}

/** The wall-clock reading of `t` in `zone`. */
export function localParts(t: Date, zone: string): LocalParts {
  const p: Record<string, number> = {};
  for (const { type, value } of formatter(zone).formatToParts(t)) if (type !== 'literal') p[type] = Number(value);
  return { year: p.year, month: p.month, day: p.day, hour: p.hour % 24, minute: p.minute, second: p.second };
}

/** The UTC offset of `zone` at `t`, in milliseconds (east positive). */
export function offsetAt(t: Date, zone: string): number {
  const l = localParts(t, zone);
  const asUtc = Date.UTC(l.year, l.month - 1, l.day, l.hour, l.minute, l.second);
  return asUtc - Math.floor(t.getTime() / 1000) * 1000;
}

/**
 * The moment when the clocks of `zone` read the given local date and time (month 1..12; a day past
 * the month's end rolls over, as Date.UTC does). DST: see the module comment.
 */
export function localToUtc(year: number, month: number, day: number, minutes: number, zone: string): Date {
  const wall = Date.UTC(year, month - 1, day, 0, minutes);
  // The offsets a day before and after cover any single change around this wall time.
  const before = offsetAt(new Date(wall - 86_400_000), zone);
  const after = offsetAt(new Date(wall + 86_400_000), zone);
  const fits = [before, after].filter((o) => offsetAt(new Date(wall - o), zone) === o).map((o) => wall - o);
  if (fits.length === 0) return new Date(wall - before); // in the gap: the offset before the change
  return new Date(Math.max(...fits)); // repeated: the later moment (standard time)
}

/** ISO weekday (1 = Monday) of a calendar date. */
const isoDow = (year: number, month: number, day: number) =>
  ((new Date(Date.UTC(year, month - 1, day)).getUTCDay() + 6) % 7) + 1;

/**
 * The first moment at or after `t` when the clocks of `zone` read `hhmm` on one of `days` (all days
 * when absent): today's when it has not passed yet, else the next listed day's.
 */
export function nextLocalTime(t: Date, zone: string, hhmm: string, days?: readonly Weekday[]): Date {
  const minutes = minutesOf(hhmm);
  const allowed = days ? isoDays(days) : null;
  const l = localParts(t, zone);
  for (let d = 0; d <= 7; d++) {
    if (allowed && !allowed.includes(isoDow(l.year, l.month, l.day + d))) continue;
    const at = localToUtc(l.year, l.month, l.day + d, minutes, zone);
    if (at.getTime() >= t.getTime()) return at;
  }
  throw new Error('nextLocalTime: no listed day'); // days is never empty (validated)
}

/** Whether `t` lies inside `w` read in `zone`. */
export function insideWindow(t: Date, zone: string, w: SendWindow): boolean {
  const l = localParts(t, zone);
  const m = l.hour * 60 + l.minute;
  return isoDays(w.days).includes(isoDow(l.year, l.month, l.day)) && m >= minutesOf(w.from) && m < minutesOf(w.to);
}

/** `t` when it lies inside `w` (read in `zone`), else the window's next opening. */
export function nextOpening(t: Date, zone: string, w: SendWindow): Date {
  return insideWindow(t, zone, w) ? t : nextLocalTime(t, zone, w.from, w.days);
}

/**
 * The moment the i-th of `total` mails of a spread is due: start + i/total × hours (the first at the
 * start, the last one step before its end).
 */
export function spreadMoment(start: Date, i: number, total: number, hours: number): Date {
  return new Date(start.getTime() + (total > 0 ? (i / total) * hours * 3_600_000 : 0));
}

/** A 24-hour "HH:MM" time in an API body. */
export const hhmm = z.string().refine(isHhmm, { message: 'Use a 24-hour time "HH:MM", e.g. "09:00"' });

/** A window in an API body (campaign `delivery.window`, a workflow DELAY step's `window`). */
export const deliveryWindowBody = z
  .object({
    from: hhmm,
    to: hhmm,
    days: z
      .array(z.enum(WEEKDAYS))
      .min(1, { message: 'List at least one day' })
      .refine((d) => new Set(d).size === d.length, { message: 'List each day once' }),
  })
  .refine((w) => !isHhmm(w.from) || !isHhmm(w.to) || minutesOf(w.from) < minutesOf(w.to), {
    message: 'The window must end after it starts on the same day ("to" later than "from")',
    path: ['to'],
  });
