import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Deps } from '../deps.js';
import { projectOf } from '../http/auth.js';
import { noContent, replies } from '../http/responses.js';
import {
  addSuppressionsBody,
  addSuppressionsOut,
  emailParams,
  listSuppressionsQuery,
  suppressionListOut,
} from './suppressions.schema.js';
import * as svc from './suppressions.service.js';

/** The project's suppression list. Dashboard auth (secret key, or session with X-Project-Id). */
export async function suppressionsRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['suppressions'];

  r.get(
    '/suppressions',
    {
      schema: {
        tags,
        summary:
          'Suppressed addresses, newest first (cursor, limit 1..100, reason: bounce | complaint | manual | unsubscribe)',
        querystring: listSuppressionsQuery,
        response: replies({ 200: suppressionListOut }),
      },
    },
    async (req) => svc.listSuppressions(deps, projectOf(req), req.query),
  );

  r.post(
    '/suppressions',
    {
      schema: {
        tags,
        summary:
          'Suppress up to 1,000 addresses (reason defaults to manual); addresses already suppressed keep their reason',
        body: addSuppressionsBody,
        response: replies({ 200: addSuppressionsOut }),
      },
    },
    async (req) => svc.addSuppressions(deps, projectOf(req), req.body.emails, req.body.reason),
  );

  r.delete(
    '/suppressions/:email',
    {
      schema: {
        tags,
        summary: 'Remove an address from the suppression list (404 when it is not on it)',
        params: emailParams,
        response: replies({ 204: noContent }),
      },
    },
    async (req, reply) => {
      await svc.removeSuppression(deps, projectOf(req), req.params.email);
      return reply.code(204).send();
    },
  );
}
