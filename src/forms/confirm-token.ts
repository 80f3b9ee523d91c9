import { hmac, safeEqual } from '../lib/crypto.js';
import { isUuid } from '../lib/ids.js';

/**
 * The signed link of a double opt-in confirmation mail, `GET /confirm/:token`. A token is
 * `<payload base64url>.<signature>`: the payload is the sign-up's id (16 bytes) and the link's expiry
 * (seconds since 1970, 6 bytes big-endian), the signature HMAC-SHA256 under the deployment's secret
 * over the purpose prefix `form-confirm:` and the payload, cut to 132 bits (as emails/render/tokens.ts
 * does; the prefix keeps a token of one purpose from being valid for another). The expiry is inside
 * the signed payload, so a link cannot be made to live longer.
 */

const PURPOSE = 'form-confirm';
const SIG_LEN = 22;

const sign = (secret: string, payload: string) => hmac(secret, `${PURPOSE}:${payload}`).slice(0, SIG_LEN);

/** The token of sign-up `signupId` (a UUID) whose link works until `expiresAt` (whole seconds). */
export function confirmToken(secret: string, signupId: string, expiresAt: Date): string {
  const b = Buffer.alloc(22);
  Buffer.from(signupId.replace(/-/g, ''), 'hex').copy(b, 0);
  b.writeUIntBE(Math.floor(expiresAt.getTime() / 1000), 16, 6);
  const p = b.toString('base64url');
  return `${p}.${sign(secret, p)}`;
}

/**
 * What a genuine token says: the sign-up's id and when the link expires (not checked here: an expired
 * link gets its own page). @returns null for anything that is not a token this secret signed.
 */
export function readConfirmToken(secret: string, token: string): { signupId: string; expiresAt: Date } | null {
  if (typeof token !== 'string' || token.length > 200) return null;
  const dot = token.lastIndexOf('.');
  if (dot <= 0) return null;
  const p = token.slice(0, dot);
  if (!/^[A-Za-z0-9_-]+$/.test(p) || !safeEqual(token.slice(dot + 1), sign(secret, p))) return null;
  const b = Buffer.from(p, 'base64url');
  if (b.length !== 22) return null;
  const h = b.subarray(0, 16).toString('hex');
  const signupId = `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
  if (!isUuid(signupId)) return null;
  return { signupId, expiresAt: new Date(b.readUIntBE(16, 6) * 1000) };
}
