import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Deps } from '../deps.js';
import { projectOf } from '../http/auth.js';
import { campaignStatsQuery, timeseriesQuery, topCampaignsQuery, topEventsQuery } from './analytics.schema.js';
import * as svc from './analytics.service.js';

/** Analytics (api.md §4.3 analytics). Ranges are `[from, to)`, default the last 30 days; bad dates 422. */
export async function analyticsRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['analytics'];

  r.get('/analytics/timeseries', {
    schema: { tags, summary: 'Sent, delivered, opened, clicked, bounced and complained per UTC day or hour', querystring: timeseriesQuery },
  }, async (req) => svc.timeseries(deps, projectOf(req), req.query));

  r.get('/analytics/top-campaigns', {
    schema: { tags, summary: 'Campaigns ranked by opens or clicks', querystring: topCampaignsQuery },
  }, async (req) => svc.topCampaigns(deps, projectOf(req), req.query));

  r.get('/analytics/campaign-stats', {
    schema: { tags, summary: 'Totals and rates over campaign emails, and campaigns per status', querystring: campaignStatsQuery },
  }, async (req) => svc.campaignStats(deps, projectOf(req), req.query));

  r.get('/analytics/top-events', {
    schema: { tags, summary: 'Event names ranked by count', querystring: topEventsQuery },
  }, async (req) => svc.topEvents(deps, projectOf(req), req.query));
}
