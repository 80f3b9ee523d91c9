import { hmac, safeEqual } from '../lib/crypto.js';

/** How long a download link works: 24 hours. */
export const LINK_TTL_MS = 24 * 60 * 60 * 1000;

const mac = (secret: string, id: string, exp: number) => hmac(`pigeon-export:${secret}`, `${id}.${exp}`);

/**
 * The token of an export's download link: `<expiry in unix seconds>.<HMAC-SHA256 of id and expiry under
 * a key derived from the server secret>` (base64url), valid until `now + ttl`.
 */
export function downloadToken(secret: string, id: string, now: Date, ttlMs = LINK_TTL_MS): string {
  const exp = Math.floor((now.getTime() + ttlMs) / 1000);
  return `${exp}.${mac(secret, id, exp)}`;
}

/** Whether `token` is a {@link downloadToken} of export `id` not expired at `now` (constant-time compare). */
export function checkDownloadToken(secret: string, id: string, token: string, now: Date): boolean {
  const m = /^(\d{1,12})\.([\w-]{20,100})$/.exec(token);
  if (!m) return false;
  const exp = Number(m[1]);
  if (exp * 1000 <= now.getTime()) return false;
  return safeEqual(m[2], mac(secret, id, exp));
}
