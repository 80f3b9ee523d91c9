import { hmac, safeEqual } from '../../lib/crypto.js';
import { isUuid } from '../../lib/ids.js';
import type { TrackedLink } from './links.js';

/**
 * Signed tokens for tracking and subscription links. A token is
 * `<payload base64url>.<signature>`; the signature is HMAC-SHA256 over a purpose prefix and the payload,
 * cut to 128 bits, so a token of one purpose is never valid for another and nobody without the secret
 * can forge or enumerate them. Ids travel as 16 raw bytes to keep links short.
 */
export type TokenPurpose = 'open' | 'click' | 'unsubscribe';

const SIG_LEN = 22; // 22 base64url characters = 132 bits of the HMAC

const uuidToBytes = (id: string): Buffer => Buffer.from(id.replace(/-/g, ''), 'hex');
function bytesToUuid(b: Buffer): string {
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

function sign(secret: string, purpose: TokenPurpose, payload: string): string {
  return hmac(secret, `${purpose}:${payload}`).slice(0, SIG_LEN);
}

function seal(secret: string, purpose: TokenPurpose, payload: Buffer): string {
  const p = payload.toString('base64url');
  return `${p}.${sign(secret, purpose, p)}`;
}

/** The verified payload of `token`, or null when it is malformed or its signature is wrong. */
function open(secret: string, purpose: TokenPurpose, token: string): Buffer | null {
  if (typeof token !== 'string' || token.length > 8192) return null;
  const dot = token.lastIndexOf('.');
  if (dot <= 0) return null;
  const p = token.slice(0, dot);
  if (!/^[A-Za-z0-9_-]+$/.test(p)) return null;
  if (!safeEqual(token.slice(dot + 1), sign(secret, purpose, p))) return null;
  return Buffer.from(p, 'base64url');
}

/** Token of the open pixel of email `emailId`. */
export const openToken = (secret: string, emailId: string): string => seal(secret, 'open', uuidToBytes(emailId));

/** @returns the email id of a valid open token, else null. */
export function readOpenToken(secret: string, token: string): string | null {
  const b = open(secret, 'open', token);
  if (!b || b.length !== 16) return null;
  return bytesToUuid(b);
}

// A click token's payload is the email id (16 bytes), then, since issue 36, a version byte 0x01 and
// the link's position and link count as LEB128 varints, then the URL. Older tokens go straight on to
// the URL, whose first byte is `h` or `H` (http/https), so the two forms cannot be mistaken.
const PLACED = 0x01;

function varint(n: number): number[] {
  const out: number[] = [];
  let v = Math.max(0, Math.floor(n));
  do {
    out.push((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
    v = Math.floor(v / 128);
  } while (v > 0);
  return out;
}

/** Reads a varint of at most 4 bytes at `b[at]`: `[value, next offset]`, or null when malformed. */
function readVarint(b: Buffer, at: number): [number, number] | null {
  let v = 0;
  for (let i = 0; i < 4 && at + i < b.length; i++) {
    const byte = b[at + i];
    v += (byte & 0x7f) * 128 ** i;
    if (!(byte & 0x80)) return [v, at + i + 1];
  }
  return null;
}

/**
 * Token of one tracked link: the email id and the exact URL that was in the email, so the redirect
 * can only ever go where the email pointed (never an open redirect), and with `place` where the
 * link sits (per-link reports, machine.ts's link sweep).
 */
export const clickToken = (secret: string, emailId: string, url: string, place?: TrackedLink): string =>
  seal(
    secret,
    'click',
    Buffer.concat([
      uuidToBytes(emailId),
      place ? Buffer.from([PLACED, ...varint(place.position), ...varint(place.links)]) : Buffer.alloc(0),
      Buffer.from(url, 'utf8'),
    ]),
  );

/** A verified click token; `position` and `links` are null for tokens made before they were recorded. */
export interface ClickTokenData {
  emailId: string;
  url: string;
  position: number | null;
  links: number | null;
}

/** @returns the email id, URL and place of a valid click token, else null. */
export function readClickToken(secret: string, token: string): ClickTokenData | null {
  const b = open(secret, 'click', token);
  if (!b || b.length <= 16) return null;
  let at = 16;
  let position: number | null = null;
  let links: number | null = null;
  if (b[at] === PLACED) {
    const p = readVarint(b, at + 1);
    const n = p && readVarint(b, p[1]);
    if (!p || !n) return null;
    [position, links, at] = [p[0], n[0], n[1]];
  }
  const url = b.subarray(at).toString('utf8');
  if (!/^https?:\/\//i.test(url)) return null;
  return { emailId: bytesToUuid(b.subarray(0, 16)), url, position, links };
}

/**
 * Token of a contact's subscription pages (unsubscribe, subscribe, preference centre). With `topicId`
 * it names one topic of the contact's as well: the unsubscribe link (and RFC 8058 List-Unsubscribe
 * header) of mail sent to a topic, which leaves that topic only. The contact id makes it the
 * contact's and, through the contact, its project's.
 */
export const contactToken = (secret: string, contactId: string, topicId?: string | null): string =>
  seal(
    secret,
    'unsubscribe',
    topicId ? Buffer.concat([uuidToBytes(contactId), uuidToBytes(topicId)]) : uuidToBytes(contactId),
  );

/** @returns the contact id of a valid contact token (with or without a topic), else null. */
export function readContactToken(secret: string, token: string): string | null {
  return readSubscriptionToken(secret, token)?.contactId ?? null;
}

/** @returns the contact id and the topic id (null for a token of the whole subscription) of a valid contact token, else null. */
export function readSubscriptionToken(
  secret: string,
  token: string,
): { contactId: string; topicId: string | null } | null {
  const b = open(secret, 'unsubscribe', token);
  if (!b || (b.length !== 16 && b.length !== 32)) return null;
  const contactId = bytesToUuid(b.subarray(0, 16));
  const topicId = b.length === 32 ? bytesToUuid(b.subarray(16)) : null;
  if (!isUuid(contactId) || (topicId !== null && !isUuid(topicId))) return null;
  return { contactId, topicId };
}
