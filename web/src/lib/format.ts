const date = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

/** `Nov 3, 2026` in the browser's locale, from an ISO string. */
export const formatDate = (iso: string): string => date.format(new Date(iso));

/** `Nov 3, 2026, 14:05` in the browser's locale, from an ISO string. */
export const formatDateTime = (iso: string): string => dateTime.format(new Date(iso));

/** `3 minutes ago`, `yesterday`… relative to `now` (ms since epoch). */
export function formatRelative(iso: string, now = Date.now()): string {
  const seconds = Math.round((new Date(iso).getTime() - now) / 1000);
  const abs = Math.abs(seconds);
  if (abs < 45) return 'just now';
  if (abs < 45 * 60) return relative.format(Math.round(seconds / 60), 'minute');
  if (abs < 22 * 3600) return relative.format(Math.round(seconds / 3600), 'hour');
  return relative.format(Math.round(seconds / 86400), 'day');
}
