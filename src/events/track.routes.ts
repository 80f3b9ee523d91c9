import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Deps } from '../deps.js';
import { projectOf } from '../http/auth.js';
import { ok } from '../http/envelope.js';
import { replies } from '../http/responses.js';
import { trackBody, trackResult } from './track.schema.js';
import { trackEvent } from './track.service.js';

/** POST /v1/track and its dashboard alias POST /events/track. */
export async function trackRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.post(
    '/v1/track',
    {
      config: { auth: 'public', idempotent: true },
      schema: {
        tags: ['public'],
        summary: 'Track an event for a contact (public key); the contact is created or updated first',
        body: trackBody,
        response: replies({ 200: trackResult }),
      },
    },
    async (req) => ok(await trackEvent(deps, projectOf(req), req.body)),
  );

  // The alias answers exactly like /v1/track, so the dashboard and SDK code can share a client.
  r.post(
    '/events/track',
    {
      config: { auth: 'dashboard', idempotent: true },
      schema: {
        tags: ['events'],
        summary: 'Track an event from the dashboard (secret key or session); same body and answer as /v1/track',
        body: trackBody,
        response: replies({ 200: trackResult }),
      },
    },
    async (req) => ok(await trackEvent(deps, projectOf(req), req.body)),
  );
}
