import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Deps } from '../deps.js';
import { SESSION_COOKIE, sessionCookieOptions, signSession } from '../http/session.js';
import { credentialsBody, requestResetBody, resetPasswordBody, tokenBody, userOut } from './users.schema.js';
import * as users from './users.service.js';

const okOut = z.object({ success: z.literal(true) });

/** `/auth/*` and `GET /users/@me` (api.md §4.3 user management; decisions.md: dashboard authentication). */
export async function usersRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const setSession = async (reply: import('fastify').FastifyReply, userId: string) => {
    reply.setCookie(SESSION_COOKIE, await signSession(deps.secret, userId, deps.clock.now()), sessionCookieOptions(deps.config.PUBLIC_URL));
  };

  r.post('/auth/signup', {
    config: { auth: 'none' },
    schema: { tags: ['auth'], summary: 'Create an account and sign in', body: credentialsBody, response: { 201: userOut } },
  }, async (req, reply) => {
    const user = await users.signup(deps, req.body.email, req.body.password);
    await setSession(reply, user.id);
    return reply.code(201).send(users.toUserOut(user));
  });

  r.post('/auth/login', {
    config: { auth: 'none' },
    schema: { tags: ['auth'], summary: 'Sign in (sets the session cookie)', body: credentialsBody, response: { 200: userOut } },
  }, async (req, reply) => {
    const user = await users.login(deps, req.body.email, req.body.password);
    await setSession(reply, user.id);
    return users.toUserOut(user);
  });

  r.get('/auth/logout', {
    config: { auth: 'none' },
    schema: { tags: ['auth'], summary: 'Sign out (clears the session cookie)', response: { 200: okOut } },
  }, async (_req, reply) => {
    reply.clearCookie(SESSION_COOKIE, { path: '/' });
    return { success: true as const };
  });

  r.get('/auth/oauth-config', {
    config: { auth: 'none' },
    schema: { tags: ['auth'], summary: 'OAuth providers enabled on this server', response: { 200: z.object({ google: z.boolean(), github: z.boolean() }) } },
  }, async () => ({ google: false, github: false }));

  r.post('/auth/request-verification', {
    config: { auth: 'session' },
    schema: { tags: ['auth'], summary: 'Mail a new e-mail verification link', response: { 200: okOut } },
  }, async (req) => {
    await users.requestVerification(deps, await users.me(deps, req.auth.userId!));
    return { success: true as const };
  });

  r.post('/auth/verify-email', {
    config: { auth: 'none' },
    schema: { tags: ['auth'], summary: 'Confirm an e-mail address with the mailed token', body: tokenBody, response: { 200: okOut } },
  }, async (req) => {
    await users.verifyEmail(deps, req.body.token);
    return { success: true as const };
  });

  r.post('/auth/request-password-reset', {
    config: { auth: 'none' },
    schema: { tags: ['auth'], summary: 'Mail a password reset link (answers the same for unknown emails)', body: requestResetBody, response: { 200: okOut } },
  }, async (req) => {
    await users.requestPasswordReset(deps, req.body.email);
    return { success: true as const };
  });

  r.post('/auth/reset-password', {
    config: { auth: 'none' },
    schema: { tags: ['auth'], summary: 'Set a new password with the mailed token', body: resetPasswordBody, response: { 200: okOut } },
  }, async (req) => {
    await users.resetPassword(deps, req.body.token, req.body.password);
    return { success: true as const };
  });

  r.get('/users/@me', {
    config: { auth: 'session' },
    schema: { tags: ['users'], summary: 'The signed-in user', response: { 200: userOut } },
  }, async (req) => users.toUserOut(await users.me(deps, req.auth.userId!)));
}
