import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Deps } from '../deps.js';
import { noContent, replies } from '../http/responses.js';
import { projectIdParams } from '../projects/projects.schema.js';
import { apiKeyOut, apiKeyParams, createApiKeyBody, createdApiKeyOut } from './api-keys.schema.js';
import * as svc from './api-keys.service.js';

/**
 * A project's scoped API keys (issue 39, docs/security.md "API keys and scopes"): the session of a
 * member only (never a key: a leaked key must not mint others); OWNER or ADMIN create and delete.
 */
export async function apiKeysRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['projects'];

  r.get(
    '/projects/:id/api-keys',
    {
      config: { auth: 'member' },
      schema: {
        tags,
        summary: "The project's scoped API keys, newest first (never the keys themselves)",
        params: projectIdParams,
        response: replies({ 200: z.array(apiKeyOut) }),
      },
    },
    async (req) => svc.listApiKeys(deps, req.params.id),
  );

  r.post(
    '/projects/:id/api-keys',
    {
      config: { auth: 'member', roles: ['OWNER', 'ADMIN'] },
      schema: {
        tags,
        summary: 'Create a scoped API key; the key is in this answer only',
        params: projectIdParams,
        body: createApiKeyBody,
        response: replies({ 201: createdApiKeyOut }),
      },
    },
    async (req, reply) => reply.code(201).send(await svc.createApiKey(deps, req, req.params.id, req.body)),
  );

  r.delete(
    '/projects/:id/api-keys/:keyId',
    {
      config: { auth: 'member', roles: ['OWNER', 'ADMIN'] },
      schema: {
        tags,
        summary: 'Delete a scoped API key; it stops working at once',
        params: apiKeyParams,
        response: replies({ 204: noContent }),
      },
    },
    async (req, reply) => {
      await svc.deleteApiKey(deps, req, req.params.id, req.params.keyId);
      return reply.code(204).send();
    },
  );
}
