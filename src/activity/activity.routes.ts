import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Deps } from '../deps.js';
import { projectOf } from '../http/auth.js';
import { replies } from '../http/responses.js';
import {
  activityFeedOut,
  activityQuery,
  activityStatsOut,
  activityTypesOut,
  recentCountOut,
  recentCountQuery,
  statsQuery,
  upcomingOut,
  upcomingQuery,
} from './activity.schema.js';
import * as svc from './activity.service.js';

/** Activity feed: sends, opens, clicks, bounces, complaints, inbound mail and other events. */
export async function activityRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['activity'];

  r.get(
    '/activity',
    {
      schema: {
        tags,
        summary: 'Email and event activity newest first, cursor-paginated; filter with type=a,b',
        querystring: activityQuery,
        response: replies({ 200: activityFeedOut }),
      },
    },
    async (req) => svc.feed(deps, projectOf(req), req.query),
  );

  r.get(
    '/activity/stats',
    {
      schema: {
        tags,
        summary: 'Activity counts per type and rates between from and to (default: last 30 days)',
        querystring: statsQuery,
        response: replies({ 200: activityStatsOut }),
      },
    },
    async (req) => svc.stats(deps, projectOf(req), req.query),
  );

  r.get(
    '/activity/recent-count',
    {
      schema: {
        tags,
        summary: 'Number of activity items in the last N minutes (default 60)',
        querystring: recentCountQuery,
        response: replies({ 200: recentCountOut }),
      },
    },
    async (req) => svc.recentCount(deps, projectOf(req), req.query.minutes),
  );

  r.get(
    '/activity/types',
    {
      schema: { tags, summary: 'The activity item types', response: replies({ 200: activityTypesOut }) },
    },
    async (req) => {
      projectOf(req);
      return svc.types();
    },
  );

  r.get(
    '/activity/upcoming',
    {
      schema: {
        tags,
        summary: 'Scheduled campaigns ahead and workflow executions waiting',
        querystring: upcomingQuery,
        response: replies({ 200: upcomingOut }),
      },
    },
    async (req) => svc.upcoming(deps, projectOf(req), req.query.limit),
  );
}
