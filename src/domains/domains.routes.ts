import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { auditChanges } from '../audit/audit.js';
import { audited } from '../audit/audited.js';
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
    async (req, reply) => {
      const out = await audited(deps, req, projectOf(req), async (d, audit) => {
        const dom = await svc.createDomain(d, projectOf(req), req.body.domain);
        await audit('domain.create', { type: 'domain', id: dom.id }, { domain: [null, dom.domain] });
        return dom;
      });
      return reply.code(201).send(out);
    },
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
    // A check that changes the domain's state is recorded (`domain.verify`); one that finds it as it was is not.
    async (req) =>
      svc.verifyDomain(deps, projectOf(req), req.params.id, (store, before) =>
        audited(deps, req, projectOf(req), async (d, audit) => {
          const after = await store(d);
          const changes = auditChanges(before, after, ['verified']);
          if (Object.keys(changes).length) await audit('domain.verify', { type: 'domain', id: after.id }, changes);
          return after;
        }),
      ),
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
      await audited(deps, req, projectOf(req), async (d, audit) => {
        const before = await svc.loadDomain(d, projectOf(req), req.params.id);
        await svc.deleteDomain(d, projectOf(req), req.params.id);
        await audit('domain.delete', { type: 'domain', id: before.id }, { domain: [before.domain, null] });
      });
      return reply.code(204).send();
    },
  );
}
