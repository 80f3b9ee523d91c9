import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Deps } from '../deps.js';
import { projectOf } from '../http/auth.js';
import { replies } from '../http/responses.js';
import { campaignLinksParams, linksOut, stepLinksParams } from './links.schema.js';
import * as svc from './links.service.js';

/**
 * Per-link click reports (issue 36) of a campaign's mail and of a workflow step's. Registered here,
 * not in the campaigns and workflows features: they read the tracking events, not those features' tables.
 */
export async function linkReportRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get(
    '/campaigns/:id/links',
    {
      schema: {
        tags: ['campaigns'],
        summary: "Clicks per tracked link of the campaign's mail, machine activity kept apart",
        params: campaignLinksParams,
        response: replies({ 200: linksOut }),
      },
    },
    async (req) => svc.campaignLinks(deps, projectOf(req), req.params.id),
  );

  r.get(
    '/workflows/:id/steps/:stepId/links',
    {
      schema: {
        tags: ['workflows'],
        summary: 'Clicks per tracked link of the mail a SEND_EMAIL step sent, machine activity kept apart',
        params: stepLinksParams,
        response: replies({ 200: linksOut }),
      },
    },
    async (req) => svc.stepLinks(deps, projectOf(req), req.params.id, req.params.stepId),
  );
}
