/**
 * Project time zones: IANA names (`Europe/Paris`, `UTC`), the zone workflow schedule triggers read
 * their cron in (workflows/schedule.ts). Validity is what this Node's Intl (ICU's tz database) knows,
 * so a name the scheduler could not use is never stored.
 */

/** The zone of a project that never chose one. */
export const DEFAULT_TIME_ZONE = 'UTC';

/**
 * Whether `name` is an IANA time zone name Intl accepts (`Europe/Paris`, `UTC`, `America/New_York`;
 * not an offset like `+02:00`, not an abbreviation like `CEST`). Case is not significant to Intl, so
 * callers store {@link canonicalTimeZone}.
 */
export function isTimeZone(name: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(name)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** `name` as Intl spells it (`europe/paris` → `Europe/Paris`); call after {@link isTimeZone}. */
export function canonicalTimeZone(name: string): string {
  return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
}
