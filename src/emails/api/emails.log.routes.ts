import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Deps } from '../../deps.js';
import { projectOf } from '../../http/auth.js';
import { replies } from '../../http/responses.js';
import { emailDetailOut, emailIdParams, emailListOut, listEmailsQuery } from './emails.log.schema.js';
import * as svc from './emails.log.service.js';

/** The email log. Dashboard auth (secret key, or session with X-Project-Id). */
export async function emailLogRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['emails'];

  r.get(
    '/emails',
    {
      schema: {
        tags,
        summary:
          'Outgoing emails newest first, cursor-paginated; filter by status=a,b, to (part of the address), source ' +
          '(api | campaign | workflow | test), campaignId, workflowId, since and until',
        querystring: listEmailsQuery,
        response: replies({ 200: emailListOut }),
      },
    },
    async (req) => svc.listEmails(deps, projectOf(req), req.query),
  );

  r.get(
    '/emails/:id',
    {
      schema: {
        tags,
        summary:
          "One email: status, times, error, source, its email.* events and the message as rendered (404 when not this project's)",
        params: emailIdParams,
        response: replies({ 200: emailDetailOut }),
      },
    },
    async (req) => svc.getEmail(deps, projectOf(req), req.params.id),
  );
}
