import { createHash, createHmac, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scryptAsync = promisify(scrypt) as (pw: string, salt: Buffer, len: number, opts: object) => Promise<Buffer>;

/** SHA-256 of `value` as lowercase hex; how API keys and one-time tokens are stored. */
export const sha256 = (value: string): string => createHash('sha256').update(value).digest('hex');

/** `bytes` random bytes, base64url encoded. */
export const randomToken = (bytes = 32): string => randomBytes(bytes).toString('base64url');

/** HMAC-SHA256 of `value` under `secret`, base64url. */
export const hmac = (secret: string, value: string): string =>
  createHmac('sha256', secret).update(value).digest('base64url');

/** Constant-time string comparison. */
export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}

// scrypt with N=2^15, r=8, p=1 (OWASP's recommended minimum); stored as scrypt$N$r$p$salt$hash.
const N = 32768,
  R = 8,
  P = 1,
  KEYLEN = 64;

/** Hashes a password with scrypt (never a fast hash). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, KEYLEN, { N, r: R, p: P, maxmem: 64 * 1024 * 1024 });
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/** Checks a password against a {@link hashPassword} string; false on any malformed hash. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [alg, n, r, p, salt, hash] = stored.split('$');
  if (alg !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await scryptAsync(password, Buffer.from(salt, 'base64url'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: 64 * 1024 * 1024,
  });
  return timingSafeEqual(key, expected);
}
