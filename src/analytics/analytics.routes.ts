import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Deps } from '../deps.js';
import { projectOf } from '../http/auth.js';
import { replies } from '../http/responses.js';
import {
  campaignStatsOut,
  campaignStatsQuery,
  timeseriesOut,
  timeseriesQuery,
  topCampaignsOut,
  topCampaignsQuery,
  topEventsOut,
  topEventsQuery,
} from './analytics.schema.js';
import * as svc from './analytics.service.js';

/** Analytics. Ranges are `[from, to)`, default the last 30 days; bad dates 422. */
export async function analyticsRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['analytics'];

  r.get(
    '/analytics/timeseries',
    {
      schema: {
        tags,
        summary: 'Sent, delivered, opened, clicked, bounced and complained per UTC day or hour',
        querystring: timeseriesQuery,
        response: replies({ 200: timeseriesOut }),
      },
    },
    async (req) => svc.timeseries(deps, projectOf(req), req.query),
  );

  r.get(
    '/analytics/top-campaigns',
    {
      schema: {
        tags,
        summary: 'Campaigns ranked by opens or clicks',
        querystring: topCampaignsQuery,
        response: replies({ 200: topCampaignsOut }),
      },
    },
    async (req) => svc.topCampaigns(deps, projectOf(req), req.query),
  );

  r.get(
    '/analytics/campaign-stats',
    {
      schema: {
        tags,
        summary: 'Totals and rates over campaign emails, and campaigns per status',
        querystring: campaignStatsQuery,
        response: replies({ 200: campaignStatsOut }),
      },
    },
    async (req) => svc.campaignStats(deps, projectOf(req), req.query),
  );

  r.get(
    '/analytics/top-events',
    {
      schema: {
        tags,
        summary: 'Event names ranked by count',
        querystring: topEventsQuery,
        response: replies({ 200: topEventsOut }),
      },
    },
    async (req) => svc.topEvents(deps, projectOf(req), req.query),
  );
}
