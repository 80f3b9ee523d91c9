import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Deps } from '../deps.js';
import { replies } from '../http/responses.js';
import { sessionCookieName, sessionCookieOptions, signSession } from '../http/session.js';
import { credentialsBody, requestResetBody, resetPasswordBody, tokenBody, userOut } from './users.schema.js';
import * as users from './users.service.js';

const okOut = z.object({ success: z.literal(true) });

/** `/auth/*` and `GET /users/@me`: accounts and the dashboard session. */
export async function usersRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const setSession = async (reply: import('fastify').FastifyReply, user: { id: string; sessionVersion: number }) => {
    const token = await signSession(deps.secret, user.id, user.sessionVersion, deps.clock.now());
    reply.setCookie(sessionCookieName(deps.config.PUBLIC_URL), token, sessionCookieOptions(deps.config.PUBLIC_URL));
  };

  r.post('/auth/signup', {
    config: { auth: 'none', throttle: 'account' },
    schema: { tags: ['auth'], summary: 'Create an account and sign in', body: credentialsBody, response: replies({ 201: userOut }) },
  }, async (req, reply) => {
    const user = await users.signup(deps, req.body.email, req.body.password);
    await setSession(reply, user);
    return reply.code(201).send(users.toUserOut(user));
  });

  r.post('/auth/login', {
    config: { auth: 'none', throttle: 'account' },
    schema: { tags: ['auth'], summary: 'Sign in (sets the session cookie)', body: credentialsBody, response: replies({ 200: userOut }) },
  }, async (req, reply) => {
    const user = await users.login(deps, req.body.email, req.body.password);
    await setSession(reply, user);
    return users.toUserOut(user);
  });

  r.get('/auth/logout', {
    // A GET that changes state: a foreign page's <img src> must not sign the user out.
    config: { auth: 'none', crossSite: 'same-site' },
    schema: { tags: ['auth'], summary: 'Sign out (clears the session cookie)', response: replies({ 200: okOut }) },
  }, async (_req, reply) => {
    reply.clearCookie(sessionCookieName(deps.config.PUBLIC_URL), { path: '/' });
    return { success: true as const };
  });

  r.post('/auth/logout-all', {
    config: { auth: 'session' },
    schema: { tags: ['auth'], summary: 'Sign out everywhere: ends every session of the account, this one included', response: replies({ 200: okOut }) },
  }, async (req, reply) => {
    await users.revokeSessions(deps, req.auth.userId!);
    reply.clearCookie(sessionCookieName(deps.config.PUBLIC_URL), { path: '/' });
    return { success: true as const };
  });

  r.get('/auth/oauth-config', {
    config: { auth: 'none' },
    schema: { tags: ['auth'], summary: 'OAuth providers enabled on this server', response: replies({ 200: z.object({ google: z.boolean(), github: z.boolean() }) }) },
  }, async () => ({ google: false, github: false }));

  r.post('/auth/request-verification', {
    config: { auth: 'session', throttle: 'ip' },
    schema: { tags: ['auth'], summary: 'Mail a new e-mail verification link', response: replies({ 200: okOut }) },
  }, async (req) => {
    await users.requestVerification(deps, await users.me(deps, req.auth.userId!));
    return { success: true as const };
  });

  r.post('/auth/verify-email', {
    config: { auth: 'none', throttle: 'ip' },
    schema: { tags: ['auth'], summary: 'Confirm an e-mail address with the mailed token', body: tokenBody, response: replies({ 200: okOut }) },
  }, async (req) => {
    await users.verifyEmail(deps, req.body.token);
    return { success: true as const };
  });

  r.post('/auth/request-password-reset', {
    config: { auth: 'none', throttle: 'account' },
    schema: { tags: ['auth'], summary: 'Mail a password reset link (answers the same, in the same time, for unknown emails; the mail is sent by the worker)', body: requestResetBody, response: replies({ 200: okOut }) },
  }, async (req) => {
    await users.requestPasswordReset(deps, req.body.email);
    return { success: true as const };
  });

  r.post('/auth/reset-password', {
    config: { auth: 'none', throttle: 'ip' },
    schema: { tags: ['auth'], summary: 'Set a new password with the mailed token; ends every existing session', body: resetPasswordBody, response: replies({ 200: okOut }) },
  }, async (req) => {
    await users.resetPassword(deps, req.body.token, req.body.password);
    return { success: true as const };
  });

  r.get('/users/@me', {
    config: { auth: 'session' },
    schema: { tags: ['users'], summary: 'The signed-in user', response: replies({ 200: userOut }) },
  }, async (req) => users.toUserOut(await users.me(deps, req.auth.userId!)));
}
