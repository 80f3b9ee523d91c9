import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Deps } from '../../deps.js';
import { replies } from '../../http/responses.js';
import { sessionCookieName, sessionCookieOptions, signSession } from '../../http/session.js';
import { WEB_BASE } from '../../web/web.routes.js';
import { setDeviceCookie } from '../device.js';
import { FLOW_TTL_MS, finishSignIn, safeNext, startSignIn } from './oidc.js';
import { oidcEnabled, SsoError } from './oidc-client.js';

/** The flow cookie over plain http (development, tests). */
export const FLOW_COOKIE = 'oidc_flow';
/** Its name over https: `__Host-` so that no sibling subdomain can plant one (as the session cookie). */
export const SECURE_FLOW_COOKIE = '__Host-oidc_flow';

const redirect = {
  description: 'A redirect (to the provider, or to the dashboard)',
  content: { 'text/plain': { schema: z.string() } },
};

/** `GET /auth/oauth-config`'s answer: old fields unchanged, issue 39's added. */
const oauthConfigOut = z.object({
  google: z.boolean(),
  github: z.boolean(),
  oidc: z.object({
    enabled: z.boolean(),
    /** What the login button calls the provider (`OIDC_NAME`). */
    name: z.string(),
  }),
  signup: z.enum(['open', 'invite', 'sso-only']),
});

/**
 * `GET /auth/oidc/start`, `GET /auth/oidc/callback` (single sign-on, oidc.ts) and `GET /auth/oauth-config`.
 * Both legs are browser navigations: they answer redirects, never JSON, and every refusal lands on the
 * dashboard's login page with the refusal's code in `?sso=` (sso-refusals.ts), which the
 * page turns into a sentence. Throttled per IP like the other `/auth/*` routes.
 */
export async function oidcRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const https = () => deps.config.PUBLIC_URL.startsWith('https:');
  const flowCookie = () => (https() ? SECURE_FLOW_COOKIE : FLOW_COOKIE);
  /** The login page with the failure's sentence (and the path the sign-in was for, if known). */
  const toLogin = (reply: FastifyReply, err: unknown, next?: string) => {
    if (!(err instanceof SsoError)) throw err;
    // The provider failing is the operator's business; a person's refusal is not.
    const operator = err.code === 'provider_unreachable' || err.code === 'exchange_failed';
    reply.log[operator ? 'warn' : 'info']({ reason: err.message }, 'single sign-on refused');
    const back = err.next ?? safeNext(next);
    const query = `sso=${err.code}${back ? `&next=${encodeURIComponent(back)}` : ''}`;
    return reply.header('cache-control', 'no-store').redirect(`${WEB_BASE}login?${query}`, 302);
  };

  r.get(
    '/auth/oidc/start',
    {
      config: { auth: 'none', throttle: 'ip' },
      schema: {
        tags: ['auth'],
        summary:
          'Start single sign-on: redirects to the OpenID Connect provider (or to the login page with ?sso=<refusal>)',
        querystring: z.object({
          next: z.string().max(2000).optional().meta({ description: 'In-app path to land on afterwards' }),
        }),
        response: replies({ 302: redirect }),
      },
    },
    async (req, reply) => {
      try {
        const started = await startSignIn(deps, req.query.next);
        reply.setCookie(flowCookie(), started.cookieSecret, {
          httpOnly: true,
          // Lax: sent on the provider's top-level redirect back, not on a foreign page's subrequests.
          sameSite: 'lax',
          secure: https(),
          path: '/',
          maxAge: FLOW_TTL_MS / 1000,
        });
        return reply.header('cache-control', 'no-store').redirect(started.redirectTo, 302);
      } catch (err) {
        return toLogin(reply, err, req.query.next);
      }
    },
  );

  r.get(
    '/auth/oidc/callback',
    {
      config: { auth: 'none', throttle: 'ip' },
      schema: {
        tags: ['auth'],
        summary:
          'Finish single sign-on (the redirect URI to register at the provider): signs in and redirects to the dashboard, or to the login page with ?sso=<refusal>',
        // The provider may add parameters of its own (session_state…): kept, and ignored.
        querystring: z.looseObject({
          code: z.string().max(4000).optional(),
          state: z.string().max(1000).optional(),
          iss: z.string().max(1000).optional(),
          error: z.string().max(1000).optional(),
        }),
        response: replies({ 302: redirect }),
      },
    },
    async (req, reply) => {
      const cookieSecret = req.cookies?.[flowCookie()];
      reply.clearCookie(flowCookie(), { path: '/' });
      const query = new URLSearchParams(req.url.includes('?') ? req.url.slice(req.url.indexOf('?') + 1) : '');
      try {
        const done = await finishSignIn(deps, cookieSecret, query, {
          userAgent: req.headers['user-agent'],
          ip: req.ip || null,
        });
        const token = await signSession(deps.secret, done.userId, done.sessionId, deps.clock.now());
        reply.setCookie(sessionCookieName(deps.config.PUBLIC_URL), token, sessionCookieOptions(deps.config.PUBLIC_URL));
        await setDeviceCookie(deps, reply, done.userId);
        const to = done.next ? `${WEB_BASE}${done.next.slice(1)}` : WEB_BASE;
        return reply.header('cache-control', 'no-store').redirect(to, 302);
      } catch (err) {
        return toLogin(reply, err);
      }
    },
  );

  r.get(
    '/auth/oauth-config',
    {
      config: { auth: 'none' },
      schema: {
        tags: ['auth'],
        summary: 'Sign-in options of this server: single sign-on, and who may create an account (SIGNUP)',
        response: replies({ 200: oauthConfigOut }),
      },
    },
    async () => ({
      google: false,
      github: false,
      oidc: { enabled: oidcEnabled(deps.config), name: deps.config.OIDC_NAME },
      signup: deps.config.SIGNUP,
    }),
  );
}
