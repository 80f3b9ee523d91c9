import { z } from 'zod';
import { bodyField, subjectField } from '../emails/api/content.schema.js';
import { isoDateTime } from '../http/responses.js';
import { emailField } from '../users/users.schema.js';

/** Variants of an A/B/n campaign: 2 to 5, keys one capital letter each. */
export const MIN_VARIANTS = 2;
export const MAX_VARIANTS = 5;

/** One version of the campaign; fields left out are the campaign's own. */
export const variantBody = z.object({
  key: z
    .string()
    .regex(/^[A-Z]$/, 'key must be one capital letter, "A" to "Z"')
    .meta({ description: 'One capital letter naming the variant: "A", "B", …' }),
  subject: subjectField('Subject must not contain line breaks').optional(),
  body: bodyField.optional(),
  from: emailField.optional(),
  fromName: z
    .string()
    .max(200)
    .optional()
    .transform((s) => (s ? s.replace(/[\r\n]+/g, ' ') : s)),
});

/** The metric a winner is chosen on: human opens, human clicks, or contacts who tracked an event. */
export const metricField = z
  .string()
  .regex(/^(open|click|event:.{1,100})$/, 'metric must be "open", "click" or "event:<event name>"')
  .meta({
    description: '"open", "click" or "event:<name>" (a contact who tracked the event after the send converted)',
  });

/**
 * `experiment` of a campaign body. `testPercent` of the audience is split evenly between the variants
 * (100: everyone outside the holdout, a pure split with no winner phase); `holdoutPercent` gets
 * nothing; `waitMinutes` after the start, the best variant goes to the rest.
 */
export const experimentBody = z
  .object({
    testPercent: z.number().int().min(1).max(100),
    metric: metricField,
    waitMinutes: z.number().int().min(15).max(10_080).default(240),
    holdoutPercent: z.number().int().min(0).max(50).default(0),
  })
  .refine((e) => e.testPercent === 100 || e.testPercent + e.holdoutPercent <= 100, {
    message: 'testPercent + holdoutPercent must be at most 100 (or testPercent 100 for a pure split)',
    path: ['testPercent'],
  });

/** Body of `POST /campaigns/:id/winner`. */
export const winnerBody = z.object({ key: z.string().regex(/^[A-Z]$/, 'key must be a variant key, "A" to "Z"') });

// Responses.

export const variantOut = z.object({
  key: z.string(),
  subject: z.string().optional(),
  body: z.string().optional(),
  from: z.string().optional(),
  fromName: z.string().optional(),
});

export const experimentOut = z.object({
  testPercent: z.number().int(),
  metric: z.string(),
  waitMinutes: z.number().int(),
  holdoutPercent: z.number().int(),
});

const count = z.number().int();
const rate = z.number().meta({ description: 'Percent, two decimals' });
const pValue = z.number().nullable().meta({
  description:
    'Two-sided p-value of a two-proportion z-test against the leading variant (null for the leader or without data); below 0.05 the difference is significant at 95 %',
});

/** Figures of one variant's test group (the winner phase's mail is counted in the campaign totals). */
export const variantStatsOut = z.object({
  key: z.string(),
  contacts: count.meta({ description: 'Contacts drawn into the test group' }),
  sent: count,
  delivered: count,
  opens: count.meta({ description: 'Emails opened, machine opens included (like openedCount)' }),
  clicks: count.meta({ description: 'Emails clicked, machine clicks included (like clickedCount)' }),
  humanOpens: count.meta({ description: 'Emails opened by a person (Apple MPP, scanners and previews excluded)' }),
  humanClicks: count.meta({ description: 'Emails clicked by a person' }),
  conversions: count
    .nullable()
    .meta({ description: 'Contacts who tracked the metric event after the send; null unless the metric is an event' }),
  rate: rate.meta({
    description: "The metric's human rate: humanOpens, humanClicks or conversions over sent, percent",
  }),
  pValue,
  significant: z.boolean().meta({ description: 'pValue < 0.05' }),
});

/** `experiment` of `GET /campaigns/:id/stats`: where the test stands. */
export const experimentStatsOut = z.object({
  metric: z.string(),
  testPercent: z.number().int(),
  holdoutPercent: z.number().int(),
  waitMinutes: z.number().int(),
  phase: z.enum(['draft', 'test', 'waiting', 'winner', 'done']),
  seed: z.number().int().nullable().meta({ description: 'Seed of the recorded random order the groups were drawn in' }),
  winner: z.string().nullable(),
  winnerChosenAt: isoDateTime.nullable(),
  winnerChosenBy: z.enum(['auto', 'manual']).nullable(),
  winnerDueAt: isoDateTime.nullable().meta({ description: 'When the winner is chosen automatically, while waiting' }),
  leader: z.string().nullable().meta({ description: 'The variant with the best rate so far (ties: the earliest)' }),
  holdout: z
    .object({
      contacts: count,
      conversions: count.nullable(),
      conversionRate: rate.nullable(),
      mailedConversionRate: rate
        .nullable()
        .meta({ description: 'Conversion rate of every mailed contact of the campaign' }),
      liftPoints: z
        .number()
        .nullable()
        .meta({ description: 'mailedConversionRate − conversionRate, percentage points: what the campaign added' }),
      pValue,
    })
    .nullable()
    .meta({ description: 'The holdout (never mailed) and the lift the mail gave; null without a holdout' }),
});
