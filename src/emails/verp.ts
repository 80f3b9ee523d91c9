import { createHmac } from 'node:crypto';
import { safeEqual } from '../lib/crypto.js';

/**
 * VERP (variable envelope return path) addresses: every mail Pigeon sends with `BOUNCE_DOMAIN` set has
 * the envelope sender (SMTP `MAIL FROM`, which the receiving side keeps as `Return-Path`)
 * `bounces+<token>@BOUNCE_DOMAIN`, so a bounce names the email it is about whatever its format.
 *
 * The token is the email id (16 bytes) and an HMAC-SHA256 of it under the app's secret cut to 80 bits,
 * both in lower-case base32 (RFC 4648 alphabet, no padding): 26 + 16 = 42 characters. Base32 because
 * relays may change the case of a local part (RFC 5321 §2.4 lets them); the whole local part
 * (`bounces+` and the token, 50 characters) stays under the 64-character limit of RFC 5321
 * §4.5.3.1.1. Nobody without the secret can make a token, so a forged report cannot name a mail.
 */

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
const ID_CHARS = 26; // ceil(128 / 5)
const SIG_BYTES = 10; // 80 bits
const SIG_CHARS = 16;
/** The local part before the token. */
export const VERP_PREFIX = 'bounces+';

/** Lower-case base32 (RFC 4648 §6 alphabet), no padding. */
export function base32(bytes: Buffer): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
  return out;
}

/** Decodes {@link base32} (any case); null on a character outside the alphabet. */
export function unbase32(text: string): Buffer | null {
  const bytes: number[] = [];
  let bits = 0;
  let value = 0;
  for (const ch of text.toLowerCase()) {
    const v = ALPHABET.indexOf(ch);
    if (v < 0) return null;
    value = (value << 5) | v;
    bits += 5;
    if (bits >= 8) {
      bytes.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
    value &= (1 << bits) - 1;
  }
  return Buffer.from(bytes);
}

const signature = (secret: string, id: Buffer): string =>
  base32(createHmac('sha256', secret).update('verp:').update(id).digest().subarray(0, SIG_BYTES));

/** The VERP token of email `emailId` (a UUID). */
export function verpToken(secret: string, emailId: string): string {
  const id = Buffer.from(emailId.replace(/-/g, ''), 'hex');
  return base32(id) + signature(secret, id);
}

/** `bounces+<token>@<domain>`: the envelope sender of email `emailId`. */
export const verpAddress = (secret: string, emailId: string, domain: string): string =>
  `${VERP_PREFIX}${verpToken(secret, emailId)}@${domain.toLowerCase()}`;

/** @returns the email id a token names when its signature is right (any letter case), else null. */
export function readVerpToken(secret: string, token: string): string | null {
  if (typeof token !== 'string' || token.length !== ID_CHARS + SIG_CHARS) return null;
  const t = token.toLowerCase();
  const id = unbase32(t.slice(0, ID_CHARS));
  if (!id || id.length !== 16 || !/^[a-z2-7]+$/.test(t)) return null;
  if (!safeEqual(t.slice(ID_CHARS), signature(secret, id))) return null;
  const h = id.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * The email id of a VERP address of `domain` (the domain compared without case) with a valid token,
 * else null: another domain, another local part, a forged or damaged token.
 */
export function readVerpAddress(secret: string, address: string, domain: string): string | null {
  const at = address.lastIndexOf('@');
  if (at <= 0 || address.slice(at + 1).toLowerCase() !== domain.toLowerCase()) return null;
  const local = address.slice(0, at);
  if (local.slice(0, VERP_PREFIX.length).toLowerCase() !== VERP_PREFIX) return null;
  return readVerpToken(secret, local.slice(VERP_PREFIX.length));
}
