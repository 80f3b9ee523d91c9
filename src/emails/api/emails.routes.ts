import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Deps } from '../../deps.js';
import { projectOf } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { replies } from '../../http/responses.js';
import { sendBody, sendResult } from './send.schema.js';
import { SEND_LIMITS, sendEmails } from './send.service.js';
import { BODY_MAX_CHARS } from './content.schema.js';

/**
 * Route body limit of `/v1/send`, from the limits the service checks: 10 MB of attachments as base64
 * (4/3), a body of `BODY_MAX_CHARS` characters JSON-escaped at worst (`\uXXXX`, 6 bytes each), and
 * 2 MB for everything else (1,000 named recipients, subject, headers, data). A larger body is 413
 * PAYLOAD_TOO_LARGE by its Content-Length, before a byte is read.
 */
export const SEND_BODY_LIMIT = Math.ceil(SEND_LIMITS.attachmentBytes / 3) * 4 + 6 * BODY_MAX_CHARS + 2 * 1024 * 1024;

/** POST /v1/send. */
export async function emailsRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.post(
    '/v1/send',
    {
      bodyLimit: SEND_BODY_LIMIT,
      config: { auth: 'secret', idempotent: true },
      schema: {
        tags: ['public'],
        summary:
          'Send an email to one or more recipients (template or inline content); upserts each recipient as a contact',
        body: sendBody,
        response: replies({ 200: sendResult }),
      },
    },
    async (req) => ok(await sendEmails(deps, projectOf(req), req.body)),
  );
}
