import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Deps } from '../deps.js';
import { projectOf } from '../http/auth.js';
import { ok } from '../http/envelope.js';
import { replies } from '../http/responses.js';
import { sendBody, sendResult } from './send.schema.js';
import { sendEmails } from './send.service.js';
import { trackingRoutes } from './tracking.routes.js';

/**
 * Route body limit of `/v1/send`: a 40 MB message whose attachments arrive base64-encoded in JSON
 * (4/3 of 10 MB) fits; anything larger is 413 PAYLOAD_TOO_LARGE before parsing.
 */
export const SEND_BODY_LIMIT = 56 * 1024 * 1024;

/** POST /v1/send, open/click tracking and unsubscribe pages. */
export async function emailsRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.post('/v1/send', {
    bodyLimit: SEND_BODY_LIMIT,
    config: { auth: 'secret', idempotent: true },
    schema: {
      tags: ['public'],
      summary: 'Send an email to one or more recipients (template or inline content); upserts each recipient as a contact',
      body: sendBody,
      response: replies({ 200: sendResult }),
    },
  }, async (req) => ok(await sendEmails(deps, projectOf(req), req.body)));

  await app.register(async (scope) => trackingRoutes(scope, deps));
}
