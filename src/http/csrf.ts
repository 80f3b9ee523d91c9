import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from './errors.js';
import { sessionCookieName } from './session.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * How the cross-site check treats the route: `allow` exempts it (a foreign site or a mail
     * provider must be able to POST to it: RFC 8058 one-click unsubscribe, provider webhooks);
     * `same-site` also checks a GET that changes state (`GET /auth/logout`, kept by the spec).
     */
    crossSite?: 'allow' | 'same-site';
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Origin (`scheme://host[:port]`) of `url`, or null. */
function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/**
 * Why a browser request is cross-site, or null when it is not (or is no browser's). The rule of Go's
 * `CrossOriginProtection` (Fetch Metadata, then Origin):
 * - `Sec-Fetch-Site` present: only `same-origin` and `none` (typed by the user) pass; `same-site` does
 *   not, since a sibling subdomain may be another tenant's.
 * - else `Origin` present: it must be the origin of `publicUrl` or the request's own (its Host).
 * - neither: not a browser (curl, SDKs, server-side clients), which a foreign page cannot drive.
 */
export function crossSiteReason(req: Pick<FastifyRequest, 'headers' | 'protocol'>, publicUrl: string): string | null {
  const site = req.headers['sec-fetch-site'];
  if (typeof site === 'string') {
    return site === 'same-origin' || site === 'none' ? null : `the browser says it comes from a ${site} page`;
  }
  const origin = req.headers.origin;
  if (typeof origin !== 'string') return null;
  const own = req.headers.host ? `${req.protocol}://${req.headers.host}` : null;
  if (origin === originOf(publicUrl) || (own && origin === originOf(own))) return null;
  return `it comes from ${origin.slice(0, 100)}`;
}

/**
 * Installs the `onRequest` hook that refuses cross-site requests carrying the dashboard's authority,
 * before authentication or any other work: every state-changing method (not GET, HEAD, OPTIONS) that
 * carries the session cookie, every `/auth/*` entry point (a forged login or signup would sign the
 * victim's browser into the attacker's account), and GETs declared `crossSite: 'same-site'`. Routes
 * declared `crossSite: 'allow'`, key-only routes and requests with an Authorization header are exempt. SameSite=Lax alone lets a sibling subdomain, or a
 * top-level form POST in some browsers, through.
 * @throws AppError 403 FORBIDDEN naming why the request counts as cross-site.
 */
export function registerCsrfGuard(app: FastifyInstance, publicUrl: () => string): void {
  app.addHook('onRequest', async (req) => {
    const mode = req.routeOptions.config?.crossSite;
    const auth = req.routeOptions.config?.auth;
    // Key-only routes never act on the cookie; and a browser sends an Authorization header across
    // origins only after a CORS preflight, which Pigeon never grants.
    if (mode === 'allow' || auth === 'public' || auth === 'secret' || req.headers.authorization !== undefined) return;
    if (SAFE_METHODS.has(req.method) && mode !== 'same-site') return;
    const url = publicUrl();
    const withSession = req.cookies?.[sessionCookieName(url)] !== undefined;
    if (!withSession && !req.url.startsWith('/auth/') && mode !== 'same-site') return;
    const why = crossSiteReason(req, url);
    if (why) {
      throw new AppError(
        'FORBIDDEN',
        `Cross-site request refused: ${why}. Use the dashboard itself, or an API key from your server.`,
      );
    }
  });
}
