import { z } from 'zod';
import { limitParam } from '../events/events.schema.js';
import { rangeQuery } from './range.js';

export const timeseriesQuery = z.object({
  ...rangeQuery,
  interval: z.enum(['day', 'hour'], { message: 'interval must be day or hour' }).default('day'),
});

export const topCampaignsQuery = z.object({
  ...rangeQuery,
  limit: z.coerce.number({ message: 'limit must be an integer >= 1' }).int().min(1).default(10).transform((n) => Math.min(n, 100)),
  sort: z.enum(['opens', 'clicks'], { message: 'sort must be opens or clicks' }).default('opens'),
});

export const campaignStatsQuery = z.object(rangeQuery);

export const topEventsQuery = z.object({
  ...rangeQuery,
  limit: limitParam,
  /** Include the service's own events (email.*, contact.*, segment.*.entry|exit); default false. */
  includeSystem: z.enum(['true', 'false'], { message: 'includeSystem must be true or false' }).default('false').transform((v) => v === 'true'),
});
