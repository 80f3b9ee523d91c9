/**
 * How the dashboard says the human figures (issue 36): opens and clicks by people leave out what the
 * server marks as machine activity (src/emails/tracking/machine.ts). One wording for every screen.
 */
export const MACHINES_LEFT_OUT = 'Apple Mail Privacy Protection, security scanners and link previews';

/** `n / of` in percent, one decimal at most ("40 %", "12.5 %"); "–" when `of` is 0 (nothing sent). */
export function percent(n: number, of: number): string {
  if (of === 0) return '–';
  const p = Math.round((n / of) * 1000) / 10;
  return `${p.toLocaleString('en-US')} %`;
}
