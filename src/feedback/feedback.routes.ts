import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Deps } from '../deps.js';
import type { Quota } from '../http/rate-limit.js';
import { replies } from '../http/responses.js';
import { handleSnsMessage } from './sns/sns.service.js';

/**
 * Posts per client address per minute: SNS delivers from a pool of addresses, each well below this
 * even for a busy configuration set; anyone else is held to it.
 */
const SNS_PER_ADDRESS: Quota = {
  name: 'sns-address',
  max: 3000,
  windowMs: 60_000,
  key: (req) => req.ip,
  what: 'notifications from this address',
};

/** SNS messages are small (SES events a few KB, 256 KB at most). */
const SNS_BODY_LIMIT = 512 * 1024;

const snsOut = z.object({
  status: z.enum(['confirmed', 'processed', 'duplicate', 'ignored']).describe('What was done with the message'),
});

/**
 * `POST /webhooks/sns`: Amazon SES feedback (bounces, complaints, deliveries) delivered by Amazon SNS.
 * Called by SNS, not by clients: no credential, the SNS signature is the authentication
 * (sns.service.ts). SNS posts JSON as `text/plain; charset=UTF-8`; it is read as JSON here.
 */
export async function feedbackRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.post(
    '/webhooks/sns',
    {
      config: { auth: 'none', crossSite: 'allow', quotas: [SNS_PER_ADDRESS] },
      bodyLimit: SNS_BODY_LIMIT,
      // SNS labels its JSON `text/plain`: read it as the JSON it is (parser and input guard alike).
      onRequest: async (req) => {
        if (/^text\/plain(\s*;.*)?$/i.test(req.headers['content-type'] ?? ''))
          req.headers['content-type'] = 'application/json; charset=utf-8';
      },
      schema: {
        tags: ['webhooks'],
        summary: 'Amazon SNS endpoint for Amazon SES feedback (signature-verified, replay-safe)',
        body: z
          .record(z.string(), z.unknown())
          .describe('An SNS message: Notification, SubscriptionConfirmation or UnsubscribeConfirmation'),
        response: replies({ 200: snsOut }),
      },
    },
    async (req) => ({ status: await handleSnsMessage(deps, req.body) }),
  );
}
