import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Deps } from '../../deps.js';
import { notFound } from '../../http/errors.js';
import { replies } from '../../http/responses.js';
import { recordClick, recordOpen } from '../delivery/outcomes.js';
import { readClickToken, readOpenToken } from '../render/tokens.js';
import { classifyRequest, linkSweep } from './machine.js';

// A transparent 1×1 GIF.
const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
const NO_STORE = 'no-store, no-cache, must-revalidate, private, max-age=0';

const tokenParams = z.object({ token: z.string() });

/**
 * Tracking links inside emails, served without a credential: `GET /t/o/:token` open pixel,
 * `GET /t/c/:token` click redirect (the subscription pages are subscription.routes.ts).
 * Tokens are HMAC-signed (tokens.ts); a bad token is 404, and so is the pixel or a link of an email
 * that no longer exists or whose contact was deleted (no redirect, nothing recorded). Each hit is
 * classified as a person's or a machine's (machine.ts) and recorded with that verdict; HEAD requests
 * (which Fastify answers on these GET routes) are recorded as machine activity and answered alike.
 */
export async function trackingRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const tags = ['tracking'];
  const config = { auth: 'none' as const };
  const now = () => deps.clock.now();

  app.get<{ Params: { token: string } }>(
    '/t/o/:token',
    {
      config,
      schema: {
        tags,
        summary: 'Open-tracking pixel (1×1 GIF); records email.open',
        hide: true,
        params: tokenParams,
        response: replies({
          200: {
            description: 'A transparent 1×1 GIF',
            content: { 'image/gif': { schema: z.unknown().meta({ type: 'string', format: 'binary' }) } },
          },
        }),
      },
    },
    async (req, reply) => {
      const emailId = readOpenToken(deps.secret, req.params.token);
      if (!emailId) throw notFound('Tracking pixel');
      const verdict = classifyRequest({
        kind: 'open',
        method: req.method,
        userAgent: req.headers['user-agent'],
        ip: req.ip,
      });
      if ((await deps.db.transaction((tx) => recordOpen(tx, emailId, now(), verdict))) === 'missing')
        throw notFound('Tracking pixel');
      return reply.header('Content-Type', 'image/gif').header('Cache-Control', NO_STORE).send(PIXEL);
    },
  );

  // A wildcard, not `:token`: a click token carries the whole URL and may pass the router's
  // parameter length limit.
  app.get<{ Params: { '*': string } }>(
    '/t/c/*',
    {
      config,
      schema: {
        tags,
        summary: 'Click redirect to the link that was in the email; records email.click',
        hide: true,
        params: z.object({ '*': z.string() }),
        response: replies({ 302: z.undefined().describe('Redirect to the link') }),
      },
    },
    async (req, reply) => {
      const click = readClickToken(deps.secret, req.params['*']);
      if (!click) throw notFound('Link');
      const verdict = classifyRequest({
        kind: 'click',
        method: req.method,
        userAgent: req.headers['user-agent'],
        ip: req.ip,
      });
      if ((await deps.db.transaction((tx) => recordClick(tx, click, now(), verdict, linkSweep))) === 'missing')
        throw notFound('Link');
      return reply.header('Cache-Control', NO_STORE).header('Referrer-Policy', 'no-referrer').redirect(click.url, 302);
    },
  );
}
