import { jwtVerify, SignJWT } from 'jose';

/** Cookie that carries the dashboard session (decisions.md: dashboard authentication). */
export const SESSION_COOKIE = 'session';
/** Session lifetime: 7 days, in seconds. */
export const SESSION_TTL_SECONDS = 7 * 24 * 3600;

const key = (secret: string) => new TextEncoder().encode(secret);

/** Signs a session JWT (HS256) for `userId`. */
export async function signSession(secret: string, userId: string, now: Date): Promise<string> {
  const iat = Math.floor(now.getTime() / 1000);
  return new SignJWT({ typ: 'session' })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(userId)
    .setIssuedAt(iat)
    .setExpirationTime(iat + SESSION_TTL_SECONDS)
    .sign(key(secret));
}

/** The user id of a valid session JWT, or null for anything else (expired, forged, malformed). */
export async function verifySession(secret: string, token: string, now: Date): Promise<string | null> {
  try {
    const { payload } = await jwtVerify(token, key(secret), {
      algorithms: ['HS256'],
      currentDate: now,
    });
    return payload.typ === 'session' && typeof payload.sub === 'string' ? payload.sub : null;
  } catch {
    return null;
  }
}

/** Cookie attributes: HttpOnly, SameSite=Lax, Secure when the public URL is https. */
export function sessionCookieOptions(publicUrl: string) {
  return {
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: publicUrl.startsWith('https:'),
    path: '/',
    maxAge: SESSION_TTL_SECONDS,
  };
}
