import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { auditChanges } from '../audit/audit.js';
import { audited, auditedCreate } from '../audit/audited.js';
import type { Deps } from '../deps.js';
import { projectOf } from '../http/auth.js';
import { noContent, replies } from '../http/responses.js';
import {
  createTransportBody,
  putRulesBody,
  rulesOut,
  testOut,
  transportListOut,
  transportOut,
  updateTransportBody,
} from './transports.schema.js';
import * as svc from './transports.service.js';

// Path ids are plain strings: a malformed id is 404 like an unknown one.
const idParams = z.object({ id: z.string() });

/** The fields of a transport an entry compares (its views hold no secret: transports.service.ts). */
const TRANSPORT_FIELDS = ['name', 'kind', 'settings', 'credentials', 'maxPerSecond', 'maxConnections', 'enabled'];

/**
 * A project's own transports (SMTP relays, SES accounts) and its routing rules (issue 37). Dashboard
 * authentication (secret key, or session + `X-Project-Id`); reading is open to every member, changing
 * and testing needs OWNER or ADMIN (the secret key counts as ADMIN), checked before the body is read.
 */
export async function transportsRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const admins = { roles: ['OWNER' as const, 'ADMIN' as const] };
  const tags = ['transports'];

  // The rules first, so that "rules" is never taken for a transport id.
  r.get(
    '/transports/rules',
    {
      schema: {
        tags,
        summary: 'Routing rules in order: the first whose match fits a mail picks its transports',
        response: replies({ 200: rulesOut }),
      },
    },
    async (req) => svc.listRules(deps, projectOf(req)),
  );

  r.put(
    '/transports/rules',
    {
      config: admins,
      schema: {
        tags,
        summary:
          'Replace every routing rule at once (at most 50; 1-5 transports each, ids of the project or "default")',
        body: putRulesBody,
        response: replies({ 200: rulesOut }),
      },
    },
    async (req) =>
      audited(deps, req, projectOf(req), async (d, audit) => {
        const before = await svc.listRules(d, projectOf(req));
        const after = await svc.putRules(d, projectOf(req), req.body);
        await audit('transport_rules.update', { type: 'transport_rules', id: null }, auditChanges(before, after));
        return after;
      }),
  );

  r.post(
    '/transports',
    {
      config: admins,
      schema: {
        tags,
        summary: 'Add an SMTP or SES transport; its password or secret key is stored sealed and never shown',
        body: createTransportBody,
        response: replies({ 201: transportOut }),
      },
    },
    async (req, reply) => {
      const out = await auditedCreate(deps, req, 'transport', {
        change: (d) => svc.createTransport(d, projectOf(req), req.body),
        fields: TRANSPORT_FIELDS,
      });
      return reply.code(201).send(out);
    },
  );

  r.get(
    '/transports',
    {
      schema: {
        tags,
        summary: "The project's transports with their health, and the instance's default transport",
        response: replies({ 200: transportListOut }),
      },
    },
    async (req) => svc.listTransports(deps, projectOf(req)),
  );

  r.get(
    '/transports/:id',
    { schema: { tags, summary: 'One transport', params: idParams, response: replies({ 200: transportOut }) } },
    async (req) => svc.getTransport(deps, projectOf(req), req.params.id),
  );

  r.patch(
    '/transports/:id',
    {
      config: admins,
      schema: {
        tags,
        summary: 'Change any field; settings without a password keep the stored one, clearCredentials removes it',
        params: idParams,
        body: updateTransportBody,
        response: replies({ 200: transportOut }),
      },
    },
    async (req) =>
      audited(deps, req, projectOf(req), async (d, audit) => {
        const before = await svc.getTransport(d, projectOf(req), req.params.id);
        const after = await svc.updateTransport(d, projectOf(req), req.params.id, req.body);
        const changes = auditChanges(before, after, TRANSPORT_FIELDS);
        // A new password alone changes no field shown: still say that the credentials were replaced.
        if (req.body.settings && !changes.credentials) changes.credentials = ['[secret]', '[secret]'];
        await audit('transport.update', { type: 'transport', id: after.id }, changes);
        return after;
      }),
  );

  r.delete(
    '/transports/:id',
    {
      config: admins,
      schema: {
        tags,
        summary: 'Delete a transport; refused (409) while a routing rule lists it',
        params: idParams,
        response: replies({ 204: noContent }),
      },
    },
    async (req, reply) => {
      await audited(deps, req, projectOf(req), async (d, audit) => {
        const before = await svc.getTransport(d, projectOf(req), req.params.id);
        await svc.deleteTransport(d, projectOf(req), req.params.id);
        await audit('transport.delete', { type: 'transport', id: before.id }, { name: [before.name, null] });
      });
      return reply.code(204).send();
    },
  );

  r.post(
    '/transports/:id/test',
    {
      config: admins,
      schema: {
        tags,
        summary: 'Open a connection now (SMTP session with login, or SES GetAccount; 10 s) and say what happened',
        params: idParams,
        response: replies({ 200: testOut }),
      },
    },
    async (req) => svc.testTransportById(deps, projectOf(req), req.params.id),
  );
}
