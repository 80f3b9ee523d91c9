import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Deps } from '../deps.js';
import { replies } from '../http/responses.js';
import { pageEntries } from './audit.repo.js';
import { auditLogOut, auditLogParams, auditLogQuery } from './audit.schema.js';

/**
 * The audit log (issue 39), read-only: no route changes or deletes an entry. Owners and admins of the
 * project read it through their session (`member` auth: never an API key, which could otherwise
 * read who holds which key and when they act).
 */
export async function auditRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get(
    '/projects/:id/audit-log',
    {
      config: { auth: 'member', roles: ['OWNER', 'ADMIN'] },
      schema: {
        tags: ['audit'],
        summary:
          "The project's audit log, newest first, cursor-paged; filter by actor (id or type:user|key), action (exact or a prefix ending in a dot), target and time (OWNER, ADMIN)",
        params: auditLogParams,
        querystring: auditLogQuery,
        response: replies({ 200: auditLogOut }),
      },
    },
    async (req) => pageEntries(deps.db, req.params.id, req.query),
  );
}
