import type { FastifyRequest } from 'fastify';
import type { ConsentOrigin, ConsentSource } from './consent.js';

/**
 * The origin of a change asked for by an authenticated caller of the API: `dashboard` for a session
 * (a person in the dashboard), `api` for an API key (http/auth.ts `RequestAuth.via`).
 */
export function callerOrigin(req: FastifyRequest): ConsentOrigin & { source: 'api' | 'dashboard' } {
  return { source: req.auth?.via === 'session' ? 'dashboard' : 'api' };
}

/**
 * The origin of a change asked for by a public request (a link or form in a mail, RFC 8058
 * one-click): `source`, the client address as `TRUST_PROXY` resolves it (Fastify's `req.ip`) and the
 * User-Agent header (consent.ts cuts it to 512 characters).
 */
export function publicOrigin(req: FastifyRequest, source: ConsentSource): ConsentOrigin {
  const ua = req.headers['user-agent'];
  return { source, ip: req.ip || null, userAgent: typeof ua === 'string' && ua ? ua : null };
}
