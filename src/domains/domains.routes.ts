import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Deps } from '../deps.js';
import { projectOf } from '../http/auth.js';
import { noContent, replies } from '../http/responses.js';
import { createDomainBody, domainOut } from './domains.schema.js';
import * as svc from './domains.service.js';

// Path ids are plain strings: a malformed id is 404 like an unknown one (common brief).
const idParams = z.object({ id: z.string() });
const projectParams = z.object({ projectId: z.string() });

/** Sender domains: add, list, DNS verification, delete. */
export async function domainsRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['domains'];

  r.post(
    '/domains',
    {
      schema: {
        tags,
        summary: 'Add a sender domain; answers the DKIM, SPF and DMARC records to publish',
        body: createDomainBody,
        response: replies({ 201: domainOut }),
      },
    },
    async (req, reply) => reply.code(201).send(await svc.createDomain(deps, projectOf(req), req.body.domain)),
  );

  r.get(
    '/domains/project/:projectId',
    {
      schema: {
        tags,
        summary: "Domains of the project (it must be the caller's project)",
        params: projectParams,
        response: replies({ 200: z.array(domainOut) }),
      },
    },
    async (req) => svc.listDomains(deps, projectOf(req), req.params.projectId),
  );

  r.get(
    '/domains/:id/verify',
    {
      schema: {
        tags,
        summary: "Check the domain's DNS records now and answer its state",
        params: idParams,
        response: replies({ 200: domainOut }),
      },
    },
    async (req) => svc.verifyDomain(deps, projectOf(req), req.params.id),
  );

  r.delete(
    '/domains/:id',
    {
      schema: {
        tags,
        summary: 'Remove a sender domain and its DKIM key',
        params: idParams,
        response: replies({ 204: noContent }),
      },
    },
    async (req, reply) => {
      await svc.deleteDomain(deps, projectOf(req), req.params.id);
      return reply.code(204).send();
    },
  );
}
