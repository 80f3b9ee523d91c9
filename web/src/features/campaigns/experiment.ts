import { experimentBody as experimentRules, MAX_VARIANTS, variantBody } from '../../api/rules';

/**
 * The composer's side of an A/B/n campaign, as pure functions: the form's state and the API body it
 * becomes, the split of an audience into groups (drawn as a bar before the send), the metric and the
 * wait in words. The rules of the send itself are the server's (src/campaigns/experiment.ts); the
 * split here repeats its arithmetic only to show the numbers the send will use.
 */
/** Variant keys in order: a new variant takes the next free one. */
export const KEYS = ['A', 'B', 'C', 'D', 'E'] as const;

/** One variant in the composer; empty strings fall back to the campaign's fields. */
export interface VariantDraft {
  key: string;
  subject: string;
  fromName: string;
  /** A whole address, or empty for the campaign's. */
  from: string;
  /** Null: the campaign's body; a string: the variant's own. */
  body: string | null;
}

export type MetricKind = 'open' | 'click' | 'event';
export type WaitUnit = 'minutes' | 'hours' | 'days';

/** The A/B settings of the composer (off: a plain campaign). */
export interface ExperimentDraft {
  enabled: boolean;
  variants: VariantDraft[];
  testPercent: number;
  holdoutPercent: number;
  metric: MetricKind;
  eventName: string;
  wait: number;
  waitUnit: WaitUnit;
}

const MINUTES: Record<WaitUnit, number> = { minutes: 1, hours: 60, days: 1440 };

const emptyVariant = (key: string): VariantDraft => ({ key, subject: '', fromName: '', from: '', body: null });

/** The next variant to add: the first key not in use; null once there are {@link MAX_VARIANTS}. */
export function nextVariant(variants: VariantDraft[]): VariantDraft | null {
  if (variants.length >= MAX_VARIANTS) return null;
  const key = KEYS.find((k) => !variants.some((v) => v.key === k));
  return key ? emptyVariant(key) : null;
}

/** A wait in minutes shown in the largest unit that divides it (240 → 4 hours, 1440 → 1 day). */
export function waitOf(minutes: number): { wait: number; waitUnit: WaitUnit } {
  if (minutes % 1440 === 0) return { wait: minutes / 1440, waitUnit: 'days' };
  if (minutes % 60 === 0) return { wait: minutes / 60, waitUnit: 'hours' };
  return { wait: minutes, waitUnit: 'minutes' };
}

/** The minutes of a wait given in a unit. */
export const waitMinutes = (wait: number, unit: WaitUnit) => Math.round(wait * MINUTES[unit]);

/** What a saved campaign's A/B fields (or their absence) look like in the composer. */
export function draftOf(c?: {
  variants: Array<{ key: string; subject?: string; fromName?: string; from?: string; body?: string }> | null;
  experiment: { testPercent: number; holdoutPercent: number; metric: string; waitMinutes: number } | null;
}): ExperimentDraft {
  const e = c?.experiment;
  const event = e?.metric.startsWith('event:') ? e.metric.slice(6) : null;
  return {
    enabled: Boolean(e && c?.variants?.length),
    variants: c?.variants?.length
      ? c.variants.map((v) => ({
          key: v.key,
          subject: v.subject ?? '',
          fromName: v.fromName ?? '',
          from: v.from ?? '',
          body: v.body ?? null,
        }))
      : [emptyVariant('A'), emptyVariant('B')],
    testPercent: e?.testPercent ?? 20,
    holdoutPercent: e?.holdoutPercent ?? 0,
    metric: event !== null ? 'event' : e?.metric === 'click' ? 'click' : 'open',
    eventName: event ?? '',
    ...waitOf(e?.waitMinutes ?? 240),
  };
}

/** The `variants` and `experiment` of the campaign body: null for both when the test is off. */
export function experimentBody(d: ExperimentDraft) {
  if (!d.enabled) return { variants: null, experiment: null };
  return {
    variants: d.variants.map((v) => ({
      key: v.key,
      ...(v.subject.trim() ? { subject: v.subject } : {}),
      ...(v.fromName.trim() ? { fromName: v.fromName.trim() } : {}),
      ...(v.from.trim() ? { from: v.from.trim() } : {}),
      ...(v.body !== null ? { body: v.body } : {}),
    })),
    experiment: {
      testPercent: d.testPercent,
      holdoutPercent: d.holdoutPercent,
      metric: d.metric === 'event' ? `event:${d.eventName.trim()}` : d.metric,
      waitMinutes: waitMinutes(d.wait, d.waitUnit),
    },
  };
}

// The dashboard's sentence for each field the server's rules refuse (the rules' own texts name API fields).
const SAY: Record<string, string> = {
  testPercent: 'The test share is a whole percent from 1 to 100.',
  holdoutPercent: 'The holdout is a whole percent from 0 to 50.',
  metric: 'Name the event that counts as a conversion (up to 100 characters).',
  waitMinutes: 'Wait between 15 minutes and 7 days, in whole minutes.',
  from: 'Enter an email address, or leave it empty for the campaign’s.',
  body: 'Write the body, or use the campaign’s.',
  subject: 'The subject must be on one line.',
  fromName: 'The from name has at most 200 characters.',
};
const TOGETHER =
  'The test share and the holdout together are at most 100 % (or a test share of 100 % for a pure split).';

/**
 * What the composer refuses before asking the server, by the API's field path (`experiment.testPercent`,
 * `variants.1.from`, …), checked with the server's own schemas (api/rules.ts); empty when the test can
 * be saved (or is off).
 */
export function experimentProblems(d: ExperimentDraft): Record<string, string> {
  const p: Record<string, string> = {};
  if (!d.enabled) return p;
  const { variants, experiment } = experimentBody(d);
  const e = experimentRules.safeParse(experiment);
  for (const issue of e.success ? [] : e.error.issues) {
    const field = String(issue.path[0] ?? 'testPercent');
    p[`experiment.${field}`] ??= issue.code === 'custom' ? TOGETHER : (SAY[field] ?? issue.message);
  }
  variants!.forEach((v, i) => {
    const r = variantBody.safeParse(v);
    for (const issue of r.success ? [] : r.error.issues) {
      const field = String(issue.path[0]);
      p[`variants.${i}.${field}`] ??= SAY[field] ?? issue.message;
    }
  });
  return p;
}

/** How an audience is cut: contacts held out, per variant (in order), and the rest that gets the winner. */
export interface Split {
  holdout: number;
  variants: number[];
  rest: number;
}

/**
 * The groups the send draws from `n` eligible contacts (src/campaigns/experiment.ts, step 1): the
 * holdout is round(n × holdout %), the test round(n × test %) (everyone else at 100 %) dealt round-robin
 * so the first groups get one more, and the rest (none in a pure split) waits for the winner.
 * Postgres rounds halves away from zero, as Math.round does for these non-negative numbers.
 */
export function splitOf(n: number, testPercent: number, holdoutPercent: number, variants: number): Split {
  const holdout = Math.round((n * holdoutPercent) / 100);
  const test = testPercent >= 100 ? n - holdout : Math.min(n, holdout + Math.round((n * testPercent) / 100)) - holdout;
  const each = Array.from({ length: variants }, (_, i) => Math.floor(test / variants) + (i < test % variants ? 1 : 0));
  return { holdout, variants: each, rest: n - holdout - test };
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
