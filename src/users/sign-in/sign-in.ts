import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SignInMethod } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import { sessionCookieName, sessionCookieOptions, signSession } from '../../http/session.js';
import { setDeviceCookie } from '../device.js';
import { openSession } from '../sessions.js';

/** Sets the session cookie naming session `sessionId` of `userId`. */
export async function setSessionCookie(deps: Deps, reply: FastifyReply, userId: string, sessionId: string) {
  const token = await signSession(deps.secret, userId, sessionId, deps.clock.now());
  reply.setCookie(sessionCookieName(deps.config.PUBLIC_URL), token, sessionCookieOptions(deps.config.PUBLIC_URL));
}

/**
 * Completes a sign-in: opens a session of `userId` signed in by `method`, recording the browser and
 * the client address (`req.ip`, as TRUST_PROXY resolves it), and sets the session and device cookies.
 */
export async function completeSignIn(
  deps: Deps,
  req: FastifyRequest,
  reply: FastifyReply,
  userId: string,
  method: SignInMethod,
): Promise<void> {
  const sessionId = await openSession(deps.db, userId, deps.clock.now(), req.headers['user-agent'], {
    method,
    ip: req.ip || null,
  });
  await setSessionCookie(deps, reply, userId, sessionId);
  await setDeviceCookie(deps, reply, userId);
}
