import { jwtVerify, SignJWT } from 'jose';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../deps.js';

/**
 * The device cookie: set at every successful sign-in, it says "this browser signed in to account X
 * before". A login from such a browser is let through the per-account throttle of failed logins
 * (http/login-throttle.ts), so that an attacker who fails logins in someone's name cannot lock the
 * owner out of the devices they use. It grants nothing else: the password is still checked.
 */

/** One year, in seconds. */
const DEVICE_TTL_SECONDS = 365 * 24 * 3600;

const key = (secret: string) => new TextEncoder().encode(secret);

/** `__Host-device` over https (RFC 6265bis §4.1.3.2), else `device`. */
export const deviceCookieName = (publicUrl: string) => (publicUrl.startsWith('https:') ? '__Host-device' : 'device');

/** Sets the device cookie of `userId` (HttpOnly, SameSite=Lax, Path=/, Secure over https). */
export async function setDeviceCookie(deps: Deps, reply: FastifyReply, userId: string): Promise<void> {
  const iat = Math.floor(deps.clock.now().getTime() / 1000);
  const token = await new SignJWT({ typ: 'device' })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(userId)
    .setIssuedAt(iat)
    .setExpirationTime(iat + DEVICE_TTL_SECONDS)
    .sign(key(deps.secret));
  reply.setCookie(deviceCookieName(deps.config.PUBLIC_URL), token, {
    httpOnly: true,
    sameSite: 'lax',
    secure: deps.config.PUBLIC_URL.startsWith('https:'),
    path: '/',
    maxAge: DEVICE_TTL_SECONDS,
  });
}

/** The account whose device cookie the request carries (valid signature, not expired), or null. */
export async function deviceUserId(deps: Deps, req: FastifyRequest): Promise<string | null> {
  const token = req.cookies?.[deviceCookieName(deps.config.PUBLIC_URL)];
  if (!token) return null;
  try {
    const { payload } = await jwtVerify(token, key(deps.secret), {
      algorithms: ['HS256'],
      currentDate: deps.clock.now(),
    });
    return payload.typ === 'device' && typeof payload.sub === 'string' ? payload.sub : null;
  } catch {
    return null;
  }
}
