import { jwtVerify, SignJWT } from 'jose';

/** Cookie that carries the dashboard session over plain http (development, tests). */
export const SESSION_COOKIE = 'session';
/**
 * Its name when the public URL is https: the `__Host-` prefix makes browsers refuse the cookie unless
 * it is Secure, has Path=/ and no Domain, so a sibling subdomain or a plain-http page cannot plant or
 * overwrite it (RFC 6265bis §4.1.3.2).
 */
export const SECURE_SESSION_COOKIE = '__Host-session';

/** The session cookie's name for `publicUrl`: {@link SECURE_SESSION_COOKIE} over https, else {@link SESSION_COOKIE}. */
export function sessionCookieName(publicUrl: string): string {
  return publicUrl.startsWith('https:') ? SECURE_SESSION_COOKIE : SESSION_COOKIE;
}
/** Session lifetime: 7 days, in seconds. */
export const SESSION_TTL_SECONDS = 7 * 24 * 3600;

const key = (secret: string) => new TextEncoder().encode(secret);

/** What a valid session JWT says: its user and its row in `sessions`. */
export interface SessionClaims {
  userId: string;
  /** The `sessions` row whose state decides whether the session is live (users/sessions.ts). */
  sessionId: string;
}

/**
 * Signs a session JWT (HS256) for `userId` naming its `sessions` row (claim `sid`): the row, not the
 * token, says whether the session still lives, so logging out ends it on the server.
 */
export async function signSession(secret: string, userId: string, sessionId: string, now: Date): Promise<string> {
  const iat = Math.floor(now.getTime() / 1000);
  return new SignJWT({ typ: 'session', sid: sessionId })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(userId)
    .setIssuedAt(iat)
    .setExpirationTime(iat + SESSION_TTL_SECONDS)
    .sign(key(secret));
}

/**
 * The claims of a valid session JWT, or null for anything else (expired, forged, malformed, or signed
 * before sessions had rows: without `sid` it names none, and its holder signs in again).
 */
export async function verifySession(secret: string, token: string, now: Date): Promise<SessionClaims | null> {
  try {
    const { payload } = await jwtVerify(token, key(secret), {
      algorithms: ['HS256'],
      currentDate: now,
    });
    if (payload.typ !== 'session' || typeof payload.sub !== 'string' || typeof payload.sid !== 'string') return null;
    return { userId: payload.sub, sessionId: payload.sid };
  } catch {
    return null;
  }
}

/**
 * Cookie attributes: HttpOnly, SameSite=Lax, Path=/ and no Domain (as the `__Host-` prefix wants),
 * Secure when the public URL is https.
 */
export function sessionCookieOptions(publicUrl: string) {
  return {
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: publicUrl.startsWith('https:'),
    path: '/',
    maxAge: SESSION_TTL_SECONDS,
  };
}
