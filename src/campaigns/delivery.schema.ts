import { z } from 'zod';
import { isoDateTime } from '../http/responses.js';
import { deliveryWindowBody, hhmm, isHhmm, minutesOf, WEEKDAYS } from './delivery-window.js';

/** Body and answer shapes of a campaign's `delivery` and its preview (the rules are delivery.ts's). */
export const deliveryBody = z
  .object({
    mode: z.enum(['now', 'spread', 'local-time']).default('now'),
    spreadHours: z
      .number()
      .int({ message: 'spreadHours must be a whole number of hours' })
      .min(1, { message: 'Spread over at least 1 hour' })
      .max(72, { message: 'Spread over at most 72 hours' })
      .optional(),
    localTime: hhmm.optional(),
    window: deliveryWindowBody.optional(),
  })
  .superRefine((d, ctx) => {
    if (d.mode === 'spread' && d.spreadHours === undefined)
      ctx.addIssue({ code: 'custom', path: ['spreadHours'], message: 'Say over how many hours (1 to 72) to spread' });
    if (d.mode === 'local-time' && d.localTime === undefined)
      ctx.addIssue({ code: 'custom', path: ['localTime'], message: 'Say at what local time ("HH:MM") to send' });
    if (
      d.mode === 'local-time' &&
      d.localTime &&
      isHhmm(d.localTime) &&
      d.window &&
      isHhmm(d.window.from) &&
      isHhmm(d.window.to)
    ) {
      const m = minutesOf(d.localTime);
      if (m < minutesOf(d.window.from) || m >= minutesOf(d.window.to))
        ctx.addIssue({ code: 'custom', path: ['localTime'], message: 'The local time must lie inside the window' });
    }
  })
  .meta({
    description:
      'How the mail is handed out over time: "now" (default), "spread" over spreadHours, or at "local-time" in each contact\'s time zone (contact data "timezone", else the project\'s); an optional window (from, to, days) limits when mail goes out',
  });
export type DeliveryInput = z.output<typeof deliveryBody>;

export const deliveryOut = z
  .object({
    mode: z.enum(['now', 'spread', 'local-time']),
    spreadHours: z.number().int().optional(),
    localTime: z.string().optional(),
    window: z.object({ from: z.string(), to: z.string(), days: z.array(z.enum(WEEKDAYS)) }).optional(),
    endsAt: isoDateTime.nullable().meta({
      description:
        'When the last mail of the send is due, once the send has started and has mail due later (null: at once, or not started)',
    }),
  })
  .meta({ id: 'CampaignDelivery' });

/**
 * Query of `GET /campaigns/:id/delivery-preview`: a delivery to draw instead of the stored one (the
 * composer's unsaved choice), flat: `days` comma-separated. Checked as a campaign body's `delivery`.
 */
export const deliveryPreviewQuery = z.object({
  mode: z.enum(['now', 'spread', 'local-time']).optional(),
  spreadHours: z.coerce.number().optional(),
  localTime: z.string().max(5).optional(),
  from: z.string().max(5).optional(),
  to: z.string().max(5).optional(),
  days: z.string().max(100).optional(),
});
export type DeliveryPreviewQuery = z.output<typeof deliveryPreviewQuery>;

export const deliveryPreviewOut = z
  .object({
    start: isoDateTime.meta({ description: 'The moment the curve starts from: the schedule, the start, or now' }),
    total: z.number().int().meta({ description: 'Recipients counted for the curve' }),
    buckets: z
      .array(z.object({ at: isoDateTime, count: z.number().int() }))
      .meta({ description: 'Mails due per hour (the hour starting at `at`, UTC), hours without mail left out' }),
  })
  .meta({ id: 'DeliveryPreview' });
