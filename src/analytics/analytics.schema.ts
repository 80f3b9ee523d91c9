import { z } from 'zod';
import { limitParam } from '../events/events.schema.js';
import { isoDateTime, uuidOut } from '../http/responses.js';
import { rangeQuery } from './range.js';

export const timeseriesQuery = z.object({
  ...rangeQuery,
  interval: z.enum(['day', 'hour'], { message: 'interval must be day or hour' }).default('day'),
});

export const topCampaignsQuery = z.object({
  ...rangeQuery,
  limit: z.coerce
    .number({ message: 'limit must be an integer >= 1' })
    .int()
    .min(1)
    .default(10)
    .transform((n) => Math.min(n, 100)),
  sort: z.enum(['opens', 'clicks'], { message: 'sort must be opens or clicks' }).default('opens'),
});

export const campaignStatsQuery = z.object(rangeQuery);

export const topEventsQuery = z.object({
  ...rangeQuery,
  limit: limitParam,
  /** Include the service's own events (email.*, contact.*, segment.*.entry|exit); default false. */
  includeSystem: z
    .enum(['true', 'false'], { message: 'includeSystem must be true or false' })
    .default('false')
    .transform((v) => v === 'true'),
});

// Responses: ranges are `[from, to)`; rates are percentages with two decimals.

const count = z.number().int();
const pct = z.number().meta({ description: 'Percent, two decimals' });
/** Beside a raw count (`opened`, `clicked`: every open and click, as Plunk counts them), the human one. */
const humanCount = (what: 'opened' | 'clicked') =>
  count.meta({
    description: `Emails first ${what} by a person, not by a machine (Apple MPP, scanners, link previews)`,
  });

export const timeseriesOut = z.object({
  from: isoDateTime,
  to: isoDateTime,
  interval: z.enum(['day', 'hour']),
  data: z.array(
    z.object({
      date: isoDateTime,
      sent: count,
      delivered: count,
      opened: count,
      clicked: count,
      bounced: count,
      complained: count,
      humanOpened: humanCount('opened'),
      humanClicked: humanCount('clicked'),
    }),
  ),
});

export const topCampaignsOut = z.object({
  from: isoDateTime,
  to: isoDateTime,
  data: z.array(
    z.object({
      id: uuidOut,
      name: z.string(),
      subject: z.string(),
      status: z.string(),
      sentAt: isoDateTime.nullable(),
      sent: count,
      delivered: count,
      opened: count,
      clicked: count,
      bounced: count,
      humanOpened: humanCount('opened'),
      humanClicked: humanCount('clicked'),
      openRate: pct,
      clickRate: pct,
      humanOpenRate: pct,
      humanClickRate: pct,
    }),
  ),
});

export const campaignStatsOut = z.object({
  from: isoDateTime,
  to: isoDateTime,
  campaigns: count,
  recipients: count,
  sent: count,
  delivered: count,
  opened: count,
  clicked: count,
  bounced: count,
  complained: count,
  humanOpened: humanCount('opened'),
  humanClicked: humanCount('clicked'),
  deliveryRate: pct,
  openRate: pct,
  clickRate: pct,
  humanOpenRate: pct,
  humanClickRate: pct,
  bounceRate: pct,
  complaintRate: pct,
  byStatus: z.record(z.enum(['DRAFT', 'SCHEDULED', 'SENDING', 'SENT', 'CANCELLED']), count),
});

export const topEventsOut = z.object({
  from: isoDateTime,
  to: isoDateTime,
  data: z.array(z.object({ name: z.string(), count, contacts: count, lastSeen: isoDateTime })),
});
