import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Deps } from '../deps.js';
import { projectOf } from '../http/auth.js';
import { noContent, replies } from '../http/responses.js';
import {
  contactEventsQuery,
  contactParams,
  eventListOut,
  eventNameParams,
  eventNamesOut,
  eventStatsOut,
  eventUsageOut,
  listEventsQuery,
} from './events.schema.js';
import * as svc from './events.service.js';

/** Dashboard event endpoints: list, stats, names, usage, delete. */
export async function eventsRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['events'];

  r.get(
    '/events',
    {
      schema: {
        tags,
        summary: 'Events newest first, cursor-paginated; filter by name and contactId',
        querystring: listEventsQuery,
        response: replies({ 200: eventListOut }),
      },
    },
    async (req) => svc.listEvents(deps, projectOf(req), req.query),
  );

  r.get(
    '/events/stats',
    {
      schema: {
        tags,
        summary: 'Event totals, counts per name and a daily series of the last 30 days',
        response: replies({ 200: eventStatsOut }),
      },
    },
    async (req) => svc.eventStats(deps, projectOf(req)),
  );

  r.get(
    '/events/names',
    {
      schema: {
        tags,
        summary: 'Distinct event names with counts and when each was last seen',
        response: replies({ 200: eventNamesOut }),
      },
    },
    async (req) => svc.eventNames(deps, projectOf(req)),
  );

  r.get(
    '/events/contact/:contactId',
    {
      schema: {
        tags,
        summary: 'Events of one contact, newest first',
        params: contactParams,
        querystring: contactEventsQuery,
        response: replies({ 200: eventListOut }),
      },
    },
    async (req) => svc.contactEvents(deps, projectOf(req), req.params.contactId, req.query),
  );

  r.get(
    '/events/:eventName/usage',
    {
      schema: {
        tags,
        summary: 'Workflows, segments and campaign audiences that reference an event name',
        params: eventNameParams,
        response: replies({ 200: eventUsageOut }),
      },
    },
    async (req) => svc.eventUsage(deps, projectOf(req), req.params.eventName),
  );

  r.delete(
    '/events/:eventName',
    {
      schema: {
        tags,
        summary: 'Delete every event with this name',
        params: eventNameParams,
        response: replies({ 204: noContent }),
      },
    },
    async (req, reply) => {
      await svc.deleteEventName(deps, projectOf(req), req.params.eventName);
      return reply.code(204).send();
    },
  );
}
