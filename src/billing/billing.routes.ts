import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Deps } from '../deps.js';
import { AppError } from '../http/errors.js';
import { isoDateTime, replies } from '../http/responses.js';
import { projectIdParams } from '../projects/projects.schema.js';
import * as billing from './billing.service.js';

const cap = z.number().int().min(0).nullable();
const limitsBody = z.object({ transactional: cap, campaigns: cap, workflows: cap });
const consumptionOut = z.object({
  periodStart: isoDateTime,
  transactional: z.number().int(),
  campaigns: z.number().int(),
  workflows: z.number().int(),
});

/**
 * Billing: with no payment provider configured,
 * checkout, portal and invoices answer 404; monthly limits and consumption always work.
 */
export async function billingRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['billing'];
  // Session only (`/users/@me*`): an API key never reaches billing.
  const config = { auth: 'member' as const };
  const noProvider = async () => {
    throw new AppError(
      'RESOURCE_NOT_FOUND',
      'Billing is not enabled on this server (no payment provider is configured)',
    );
  };
  r.post(
    '/users/@me/projects/:id/checkout',
    {
      config,
      schema: {
        tags,
        summary: 'Payment checkout (404: no payment provider)',
        params: projectIdParams,
        response: replies({}),
      },
    },
    noProvider,
  );
  r.post(
    '/users/@me/projects/:id/billing-portal',
    {
      config,
      schema: {
        tags,
        summary: 'Billing portal (404: no payment provider)',
        params: projectIdParams,
        response: replies({}),
      },
    },
    noProvider,
  );
  r.get(
    '/users/@me/projects/:id/billing-invoices',
    {
      config,
      schema: { tags, summary: 'Invoices (404: no payment provider)', params: projectIdParams, response: replies({}) },
    },
    noProvider,
  );

  r.get(
    '/users/@me/projects/:id/billing-limits',
    {
      config,
      schema: {
        tags,
        summary: 'Monthly email caps per source; null = no cap',
        params: projectIdParams,
        response: replies({ 200: limitsBody }),
      },
    },
    async (req) => billing.getLimits(deps.db, req.params.id),
  );

  r.put(
    '/users/@me/projects/:id/billing-limits',
    {
      config: { ...config, roles: ['OWNER'] },
      schema: {
        tags,
        summary: 'Set the monthly email caps (OWNER)',
        params: projectIdParams,
        body: limitsBody,
        response: replies({ 200: limitsBody }),
      },
    },
    async (req) => {
      return billing.setLimits(deps.db, req.params.id, req.body, deps.clock.now());
    },
  );

  r.get(
    '/users/@me/projects/:id/billing-consumption',
    {
      config,
      schema: {
        tags,
        summary: 'Emails this month per source',
        params: projectIdParams,
        response: replies({ 200: consumptionOut }),
      },
    },
    async (req) => billing.consumption(deps.db, req.params.id, deps.clock.now()),
  );

  r.post(
    '/webhooks/incoming/:provider',
    {
      config: { auth: 'none', crossSite: 'allow' },
      schema: {
        tags,
        summary: 'Payment provider webhooks (404: none configured)',
        params: z.object({ provider: z.string() }),
        response: replies({}),
      },
    },
    noProvider,
  );
}
