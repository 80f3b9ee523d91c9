import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Deps } from '../deps.js';
import { accountMailQuota } from '../http/rate-limit.js';
import { replies } from '../http/responses.js';
import { cookieClaims, requestSession } from '../http/auth.js';
import { sessionCookieName, sessionCookieOptions, signSession } from '../http/session.js';
import { newId } from '../lib/ids.js';
import { deviceUserId, setDeviceCookie } from './device.js';
import { openSession, revokeSession } from './sessions.js';
import {
  changeEmailBody,
  changePasswordBody,
  confirmEmailBody,
  credentialsBody,
  requestResetBody,
  resetPasswordBody,
  userOut,
  verifyEmailBody,
} from './users.schema.js';
import * as users from './users.service.js';
import { confirmEmailChange, requestEmailChange } from './email-change.js';
import { twoFactorOut } from './sign-in/factors.schema.js';
import { factorsOf, startSecondStep } from './sign-in/second-factor.js';
import { completeSignIn } from './sign-in/sign-in.js';

const okOut = z.object({ success: z.literal(true) });

/** `/auth/*` and `GET /users/@me`: accounts and the dashboard session. */
export async function usersRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  type Reply = import('fastify').FastifyReply;
  const cookieName = () => sessionCookieName(deps.config.PUBLIC_URL);
  const setCookie = async (reply: Reply, userId: string, sessionId: string) => {
    const token = await signSession(deps.secret, userId, sessionId, deps.clock.now());
    reply.setCookie(cookieName(), token, sessionCookieOptions(deps.config.PUBLIC_URL));
  };
  /** Opens a session for `userId` and sets its cookie. */
  const signIn = async (req: import('fastify').FastifyRequest, reply: Reply, userId: string) =>
    setCookie(
      reply,
      userId,
      await openSession(deps.db, userId, deps.clock.now(), req.headers['user-agent'], { ip: req.ip || null }),
    );
  /** Ends the session the request's cookie names (if any) on the server, and clears the cookie. */
  const logout = async (req: import('fastify').FastifyRequest, reply: Reply) => {
    const claims = await cookieClaims(deps, req);
    if (claims) await revokeSession(deps.db, claims.userId, claims.sessionId, deps.clock.now());
    reply.clearCookie(cookieName(), { path: '/' });
    return { success: true as const };
  };

  r.post(
    '/auth/signup',
    {
      config: { auth: 'none', throttle: 'ip', quotas: [accountMailQuota] },
      schema: {
        tags: ['auth'],
        summary: 'Create an account and sign in',
        body: credentialsBody,
        response: replies({ 201: userOut }),
      },
    },
    async (req, reply) => {
      const outcome = await users.signup(deps, req.body.email, req.body.password);
      // For an existing address the cookie names a session that does not exist: the answer's headers
      // are the same as a new account's, and the next request is simply not signed in.
      if (outcome.created) await signIn(req, reply, outcome.user.id);
      else await setCookie(reply, outcome.user.id, newId());
      await setDeviceCookie(deps, reply, outcome.user.id);
      return reply.code(201).send(users.toUserOut(outcome.user));
    },
  );

  r.post(
    '/auth/login',
    {
      config: { auth: 'none', throttle: 'ip' },
      schema: {
        tags: ['auth'],
        summary:
          'Sign in (sets the session cookie); for an account with two-factor sign-in or passkeys, answers `twoFactor` (no cookie yet) for POST /auth/login/verify',
        body: credentialsBody,
        response: replies({ 200: z.union([userOut, twoFactorOut]) }),
      },
    },
    async (req, reply) => {
      const user = await users.login(deps, req.body.email, req.body.password, {
        throttle: app.loginThrottle,
        deviceUserId: await deviceUserId(deps, req),
      });
      // An account with a second factor gets no session yet: a token for POST /auth/login/verify.
      const factors = await factorsOf(deps, user);
      if (factors.length) return { twoFactor: await startSecondStep(deps, user, factors) };
      await app.loginThrottle?.succeeded(user.email);
      await completeSignIn(deps, req, reply, user.id, 'password');
      return users.toUserOut(user);
    },
  );

  r.get(
    '/auth/logout',
    {
      // A GET that changes state: a foreign page's <img src> must not sign the user out.
      config: { auth: 'none', crossSite: 'same-site' },
      schema: {
        tags: ['auth'],
        summary: 'Sign out: ends this session on the server and clears the cookie (from the same site only)',
        response: replies({ 200: okOut }),
      },
    },
    logout,
  );

  r.post(
    '/auth/logout',
    {
      config: { auth: 'none' },
      schema: {
        tags: ['auth'],
        summary: 'Sign out: ends this session on the server and clears the cookie',
        response: replies({ 200: okOut }),
      },
    },
    logout,
  );

  r.post(
    '/auth/logout-all',
    {
      config: { auth: 'session' },
      schema: {
        tags: ['auth'],
        summary: 'Sign out everywhere: ends every session of the account, this one included',
        response: replies({ 200: okOut }),
      },
    },
    async (req, reply) => {
      await users.revokeSessions(deps, req.auth.userId!);
      reply.clearCookie(cookieName(), { path: '/' });
      return { success: true as const };
    },
  );

  r.post(
    '/auth/request-verification',
    {
      config: { auth: 'session', throttle: 'ip' },
      schema: { tags: ['auth'], summary: 'Mail a new e-mail verification link', response: replies({ 200: okOut }) },
    },
    async (req) => {
      await users.requestVerification(deps, await users.me(deps, req.auth.userId!));
      return { success: true as const };
    },
  );

  r.post(
    '/auth/verify-email',
    {
      config: { auth: 'none', throttle: 'ip' },
      schema: {
        tags: ['auth'],
        summary:
          'Confirm an e-mail address with the mailed token; from a browser not signed in to that account, also set its password (which ends its other sessions and signs this browser in)',
        body: verifyEmailBody,
        response: replies({ 200: okOut }),
      },
    },
    async (req, reply) => {
      const current = await requestSession(deps, req);
      const done = await users.verifyEmail(deps, req.body.token, {
        sessionUserId: current?.userId,
        password: req.body.password,
        userAgent: req.headers['user-agent'],
      });
      if (done.sessionId) await setCookie(reply, done.userId, done.sessionId);
      return { success: true as const };
    },
  );

  r.post(
    '/auth/request-password-reset',
    {
      config: { auth: 'none', throttle: 'ip', quotas: [accountMailQuota] },
      schema: {
        tags: ['auth'],
        summary:
          'Mail a password reset link (answers the same, in the same time, for unknown emails; the mail is sent by the worker)',
        body: requestResetBody,
        response: replies({ 200: okOut }),
      },
    },
    async (req) => {
      await users.requestPasswordReset(deps, req.body.email);
      return { success: true as const };
    },
  );

  r.post(
    '/auth/reset-password',
    {
      config: { auth: 'none', throttle: 'ip' },
      schema: {
        tags: ['auth'],
        summary: 'Set a new password with the mailed token; ends every existing session',
        body: resetPasswordBody,
        response: replies({ 200: okOut }),
      },
    },
    async (req) => {
      await users.resetPassword(deps, req.body.token, req.body.password);
      return { success: true as const };
    },
  );

  r.get(
    '/users/@me',
    {
      config: { auth: 'session' },
      schema: { tags: ['users'], summary: 'The signed-in user', response: replies({ 200: userOut }) },
    },
    async (req) => users.toUserOut(await users.me(deps, req.auth.userId!)),
  );

  r.post(
    '/users/@me/password',
    {
      config: { auth: 'session', throttle: 'ip' },
      schema: {
        tags: ['users'],
        summary:
          'Change the password, given the current one (field error `wrong_password` otherwise, nothing changed); ends every other session',
        body: changePasswordBody,
        response: replies({ 200: okOut }),
      },
    },
    async (req) => {
      await users.changePassword(
        deps,
        req.auth.userId!,
        req.auth.sessionId!,
        req.body.currentPassword,
        req.body.newPassword,
      );
      return { success: true as const };
    },
  );

  r.post(
    '/users/@me/email',
    {
      config: { auth: 'session', throttle: 'ip' },
      schema: {
        tags: ['users'],
        summary:
          'Ask to move the account to a new address, given the password: a link is mailed to the new address, and the account keeps its address until it is followed (answers the same when the address has an account, and then mails nothing)',
        body: changeEmailBody,
        response: replies({ 202: okOut }),
      },
    },
    async (req, reply) => {
      await requestEmailChange(deps, req.auth.userId!, req.body.password, req.body.newEmail);
      return reply.code(202).send({ success: true as const });
    },
  );

  r.post(
    '/auth/confirm-email-change',
    {
      // The mailed link proves the mailbox; it may be opened in another browser than the one that asked.
      config: { auth: 'none', throttle: 'ip' },
      schema: {
        tags: ['auth'],
        summary: 'Confirm an address change with the token mailed to the new address; the account takes it',
        body: confirmEmailBody,
        response: replies({ 200: z.object({ email: z.string() }) }),
      },
    },
    async (req) => ({ email: await confirmEmailChange(deps, req.body.token) }),
  );
}
