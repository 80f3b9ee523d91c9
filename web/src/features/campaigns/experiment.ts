import { waitOf, type WaitUnit } from './experimentWords';

/**
 * The composer's side of an A/B/n campaign, as pure functions: the form's state and the API body it
 * becomes, and the split of an audience into groups (drawn as a bar before the send). The rules of the send itself are the server's (src/campaigns/experiment.ts); the
 * split here repeats its arithmetic only to show the numbers the send will use.
 */
/**
 * The API's bounds on variants (MIN_VARIANTS, MAX_VARIANTS of src/campaigns/experiment.schema.ts; the
 * unit test holds them equal). Not imported: the schema module brings zod, which the composer loads
 * only once the A/B test is switched on (experimentChecks.ts).
 */
export const MIN_VARIANTS = 2;
export const MAX_VARIANTS = 5;

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

const emptyVariant = (key: string): VariantDraft => ({ key, subject: '', fromName: '', from: '', body: null });

/** The next variant to add: the first key not in use; null once there are {@link MAX_VARIANTS}. */
export function nextVariant(variants: VariantDraft[]): VariantDraft | null {
  if (variants.length >= MAX_VARIANTS) return null;
  const key = KEYS.find((k) => !variants.some((v) => v.key === k));
  return key ? emptyVariant(key) : null;
}

/** The minutes of a wait given in a unit. */
export const waitMinutes = (wait: number, unit: WaitUnit) => Math.round(wait * MINUTES[unit]);

const MINUTES: Record<WaitUnit, number> = { minutes: 1, hours: 60, days: 1440 };

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

/**
 * The bodies a campaign sent: its own, and each A/B variant's that has one of its own (a variant
 * without one sent the campaign's), labelled for the click map's picker; `key` '' is the campaign's.
 */
export function sentBodies(c: {
  body: string;
  variants: Array<{ key: string; body?: string }> | null;
}): Array<{ key: string; label: string; html: string }> {
  const own = (c.variants ?? []).filter((v) => v.body);
  if (own.length === 0) return [{ key: '', label: 'The campaign', html: c.body }];
  const shared = (c.variants ?? []).filter((v) => !v.body).map((v) => v.key);
  return [
    ...(shared.length > 0
      ? [{ key: '', label: `Variant ${shared.join(', ')} (the campaign's body)`, html: c.body }]
      : []),
    ...own.map((v) => ({ key: v.key, label: `Variant ${v.key}`, html: v.body! })),
  ];
}
