import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Deps } from '../deps.js';
import { ok } from '../http/envelope.js';
import { replies } from '../http/responses.js';
import { verifyBody, verifyResponse } from './verify.schema.js';
import { verifyEmail } from './verify.service.js';

/** POST /v1/verify. */
export async function verifyRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.post(
    '/v1/verify',
    {
      config: { auth: 'secret' },
      schema: {
        tags: ['public'],
        summary: 'Check an email address: format, domain, MX, disposable, alias, free-mail, typo suggestion',
        body: verifyBody,
        response: replies({ 200: verifyResponse }),
      },
    },
    async (req) => ok(await verifyEmail(deps, req.body.email)),
  );
}
