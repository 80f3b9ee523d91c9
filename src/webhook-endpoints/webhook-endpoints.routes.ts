import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { audited, auditedCreate, auditedUpdate } from '../audit/audited.js';
import type { Deps } from '../deps.js';
import { projectOf } from '../http/auth.js';
import { noContent, replies } from '../http/responses.js';
import {
  createEndpointBody,
  deliveryListQuery,
  deliveryOut,
  deliveryPageOut,
  endpointOut,
  endpointWithSecretOut,
  testOut,
  updateEndpointBody,
} from './webhook-endpoints.schema.js';
import * as svc from './webhook-endpoints.service.js';

// Path ids are plain strings: a malformed id is 404 like an unknown one.
const idParams = z.object({ id: z.string() });
const deliveryParams = z.object({ id: z.string(), deliveryId: z.string() });

/** The fields of an endpoint an entry compares; never `secret` (the signing secret). */
const ENDPOINT_FIELDS = ['url', 'events', 'description', 'enabled', 'concurrency'];

/**
 * Outbound event webhook endpoints (`/webhook-endpoints`; `/webhooks/*` is for inbound provider
 * calls). Dashboard authentication (secret key, or session + `X-Project-Id`); reading is open to every
 * member, changing (create, update, delete, rotate, test, retry) needs OWNER or ADMIN (the secret key
 * counts as ADMIN), checked before the body is read.
 */
export async function webhookEndpointsRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  // Changing them needs OWNER or ADMIN (the secret key counts as ADMIN, http/auth.ts).
  const admins = { roles: ['OWNER' as const, 'ADMIN' as const] };
  const tags = ['webhook-endpoints'];
  // Runs after the app's authentication hook (hooks of a parent scope run first).
  r.post(
    '/webhook-endpoints',
    {
      config: admins,
      schema: {
        tags,
        summary: 'Add an endpoint; answers its signing secret (whsec_…), shown only here and on rotate-secret',
        body: createEndpointBody,
        response: replies({ 201: endpointWithSecretOut }),
      },
    },
    async (req, reply) => {
      const out = await auditedCreate(deps, req, 'webhook_endpoint', {
        change: (d) => svc.createEndpoint(d, projectOf(req), req.body),
        fields: ENDPOINT_FIELDS,
      });
      return reply.code(201).send(out);
    },
  );

  r.get(
    '/webhook-endpoints',
    {
      schema: {
        tags,
        summary: 'Endpoints of the project, newest first',
        response: replies({ 200: z.array(endpointOut) }),
      },
    },
    async (req) => svc.listEndpoints(deps, projectOf(req)),
  );

  r.get(
    '/webhook-endpoints/:id',
    {
      schema: { tags, summary: 'One endpoint', params: idParams, response: replies({ 200: endpointOut }) },
    },
    async (req) => svc.getEndpoint(deps, projectOf(req), req.params.id),
  );

  r.patch(
    '/webhook-endpoints/:id',
    {
      config: admins,
      schema: {
        tags,
        summary: 'Change url, events, description, or enable/disable',
        params: idParams,
        body: updateEndpointBody,
        response: replies({ 200: endpointOut }),
      },
    },
    async (req) =>
      auditedUpdate(deps, req, 'webhook_endpoint', {
        load: (d) => svc.getEndpoint(d, projectOf(req), req.params.id),
        change: (d) => svc.updateEndpoint(d, projectOf(req), req.params.id, req.body),
        fields: ENDPOINT_FIELDS,
      }),
  );

  r.delete(
    '/webhook-endpoints/:id',
    {
      config: admins,
      schema: {
        tags,
        summary: 'Delete an endpoint and its delivery log',
        params: idParams,
        response: replies({ 204: noContent }),
      },
    },
    async (req, reply) => {
      await audited(deps, req, projectOf(req), async (d, audit) => {
        const before = await svc.getEndpoint(d, projectOf(req), req.params.id);
        await svc.deleteEndpoint(d, projectOf(req), req.params.id);
        await audit(
          'webhook_endpoint.delete',
          { type: 'webhook_endpoint', id: before.id },
          { url: [before.url, null] },
        );
      });
      return reply.code(204).send();
    },
  );

  r.post(
    '/webhook-endpoints/:id/rotate-secret',
    {
      config: admins,
      schema: {
        tags,
        summary: 'Replace the signing secret at once; answers the new one',
        params: idParams,
        response: replies({ 200: endpointWithSecretOut }),
      },
    },
    async (req) =>
      audited(deps, req, projectOf(req), async (d, audit) => {
        const out = await svc.rotateSecret(d, projectOf(req), req.params.id);
        await audit(
          'webhook_endpoint.rotate_secret',
          { type: 'webhook_endpoint', id: out.id },
          { secret: ['[secret]', '[secret]'] },
        );
        return out;
      }),
  );

  r.post(
    '/webhook-endpoints/:id/test',
    {
      config: admins,
      schema: {
        tags,
        summary: 'Send a signed webhook.test event now (one attempt, 10 s timeout); answers the logged delivery',
        params: idParams,
        response: replies({ 200: testOut }),
      },
    },
    async (req) => svc.testEndpoint(deps, projectOf(req), req.params.id),
  );

  r.get(
    '/webhook-endpoints/:id/deliveries',
    {
      schema: {
        tags,
        summary: 'Delivery log, newest first: status, attempts, response code and body (cut), latency, payload',
        params: idParams,
        querystring: deliveryListQuery,
        response: replies({ 200: deliveryPageOut }),
      },
    },
    async (req) => svc.listDeliveries(deps, projectOf(req), req.params.id, req.query),
  );

  r.post(
    '/webhook-endpoints/:id/deliveries/:deliveryId/retry',
    {
      config: admins,
      schema: {
        tags,
        summary: 'Attempt a delivery again now',
        params: deliveryParams,
        response: replies({ 200: deliveryOut }),
      },
    },
    async (req) => svc.retryDelivery(deps, projectOf(req), req.params.id, req.params.deliveryId),
  );
}
