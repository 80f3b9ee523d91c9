/**
 * An A/B test in words, for the report, the send dialog and the composer: the metric, the wait, the
 * significance of a p-value. Kept apart from experiment.ts (the composer's form, checked with the
 * server's zod rules) so the report's chunk does not carry zod.
 */

export type WaitUnit = 'minutes' | 'hours' | 'days';

/** A wait in minutes shown in the largest unit that divides it (240 → 4 hours, 1440 → 1 day). */
export function waitOf(minutes: number): { wait: number; waitUnit: WaitUnit } {
  if (minutes % 1440 === 0) return { wait: minutes / 1440, waitUnit: 'days' };
  if (minutes % 60 === 0) return { wait: minutes / 60, waitUnit: 'hours' };
  return { wait: minutes, waitUnit: 'minutes' };
}

/** The metric in words: "human opens", "human clicks", or "contacts who tracked “signup”". */
export function metricWords(metric: string): string {
  if (metric === 'open') return 'human opens';
  if (metric === 'click') return 'human clicks';
  return `contacts who tracked “${metric.replace(/^event:/, '')}”`;
}

/** A wait in words: "4 hours", "1 day", "90 minutes". */
export function waitWords(minutes: number): string {
  const { wait, waitUnit } = waitOf(minutes);
  return `${wait} ${wait === 1 ? waitUnit.slice(0, -1) : waitUnit}`;
}

/** A p-value as the report says it: significant below 0.05, "not yet" otherwise (or without one). */
export const significance = (pValue: number | null) =>
  pValue !== null && pValue < 0.05 ? 'significant at 95 %' : 'not yet significant';

/** What "Send now" does with an A/B test, in a sentence for its confirmation. */
export function experimentSendWords(e: { testPercent: number; holdoutPercent: number; waitMinutes: number }): string {
  const held = e.holdoutPercent ? `, ${e.holdoutPercent} % are held out` : '';
  return e.testPercent >= 100
    ? `It is a pure split: each variant goes to an equal share${held}.`
    : `It is an A/B test: ${e.testPercent} % get the variants now${held}, and the rest gets the winner after ${waitWords(e.waitMinutes)}.`;
}
