import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Secrets at rest: values Pigeon must read back in clear (DKIM private keys, event-webhook signing
 * secrets, WEBHOOK step header values) are stored sealed, so that a dump of the database alone signs
 * nothing and calls nobody.
 *
 * Envelope encryption, all AES-256-GCM (NIST SP 800-38D): each value is encrypted with a data key of
 * its own (DEK), and the DEK is stored beside it wrapped by a key-encryption key (KEK). The KEK is
 * derived with HKDF-SHA256 (RFC 5869) from `ENCRYPTION_KEY`, or from the instance secret when that is
 * unset. Rotating the KEK re-wraps 32-byte DEKs, never the values themselves. Each value is bound
 * to where it lives by additional authenticated data (`aad`, e.g. `domains.dkim_private_key:<id>`):
 * copied into another row, it does not open.
 *
 * Stored form: `enc:v1:<kek id>:<wrapped DEK>:<sealed value>`, the last two base64url of
 * `iv (12) | ciphertext | tag (16)`; the KEK id is the first 8 hex digits of SHA-256 of the KEK.
 * A value without the `enc:` prefix is plaintext written before this existed: it is read as it is
 * and sealed by the start-up migration (secrets.migrate.ts).
 */

const PREFIX = 'enc:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HKDF_INFO = 'pigeon secrets at rest v1';

/** A key-encryption key and its id. */
interface Kek {
  id: string;
  key: Buffer;
}

/** The current KEK (new values, re-wraps) and the earlier ones still read. */
export interface Keyring {
  current: Kek;
  previous: Kek[];
}

/** A sealed value whose KEK is not in the keyring: the setting that would open it is missing. */
export class SecretKeyMissing extends Error {
  override name = 'SecretKeyMissing';
}

function kekOf(material: string): Kek {
  const key = Buffer.from(hkdfSync('sha256', material, 'pigeon', HKDF_INFO, 32));
  return { id: createHash('sha256').update(key).digest('hex').slice(0, 8), key };
}

const rings = new Map<string, Keyring>();

/**
 * The keyring of the configuration: `ENCRYPTION_KEY` (else `instanceSecret`) as the current key,
 * `ENCRYPTION_KEY_PREVIOUS` as earlier ones. Derived once per distinct setting.
 */
export function keyringOf(
  config: { ENCRYPTION_KEY?: string; ENCRYPTION_KEY_PREVIOUS?: string[] },
  instanceSecret: string,
): Keyring {
  const current = config.ENCRYPTION_KEY ?? instanceSecret;
  const previous = config.ENCRYPTION_KEY_PREVIOUS ?? [];
  const cacheKey = JSON.stringify([current, previous]);
  let ring = rings.get(cacheKey);
  if (!ring) {
    ring = { current: kekOf(current), previous: previous.map(kekOf) };
    rings.set(cacheKey, ring);
  }
  return ring;
}

function encrypt(key: Buffer, plain: Buffer, aad: string): string {
  const iv = randomBytes(IV_BYTES);
  const c = createCipheriv('aes-256-gcm', key, iv);
  c.setAAD(Buffer.from(aad, 'utf8'));
  const body = Buffer.concat([c.update(plain), c.final()]);
  return Buffer.concat([iv, body, c.getAuthTag()]).toString('base64url');
}

/** @throws Error when the tag does not verify (wrong key, wrong place, altered). */
function decrypt(key: Buffer, sealed: string, aad: string): Buffer {
  const raw = Buffer.from(sealed, 'base64url');
  if (raw.length < IV_BYTES + TAG_BYTES) throw new Error('sealed value too short');
  const d = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
  d.setAAD(Buffer.from(aad, 'utf8'));
  d.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
  return Buffer.concat([d.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), d.final()]);
}

/** Whether `stored` is a sealed value (else plaintext of before). */
export const isSealed = (stored: string): boolean => stored.startsWith(PREFIX);

/** Seals `plain` for the place `aad` names, with a fresh DEK wrapped by the current KEK. */
export function sealSecret(ring: Keyring, plain: string, aad: string): string {
  const dek = randomBytes(32);
  return `${PREFIX}${ring.current.id}:${encrypt(ring.current.key, dek, `dek:${aad}`)}:${encrypt(dek, Buffer.from(plain, 'utf8'), aad)}`;
}

function parts(stored: string): { kekId: string; wrapped: string; value: string } {
  const [kekId, wrapped, value, extra] = stored.slice(PREFIX.length).split(':');
  if (!kekId || !wrapped || !value || extra !== undefined) throw new Error('malformed sealed value');
  return { kekId, wrapped, value };
}

function kekFor(ring: Keyring, kekId: string): Kek {
  const kek = [ring.current, ...ring.previous].find((k) => k.id === kekId);
  if (!kek) {
    throw new SecretKeyMissing(
      `sealed with key ${kekId}, which is neither ENCRYPTION_KEY (or the instance secret when it is unset) nor in ENCRYPTION_KEY_PREVIOUS`,
    );
  }
  return kek;
}

/**
 * The clear value of `stored` at the place `aad` names; plaintext (not sealed) is returned as it is.
 * @throws SecretKeyMissing when its KEK is not in the keyring; Error when it does not open (altered, or
 *   moved from another place).
 */
export function openSecret(ring: Keyring, stored: string, aad: string): string {
  if (!isSealed(stored)) return stored;
  const p = parts(stored);
  const dek = decrypt(kekFor(ring, p.kekId).key, p.wrapped, `dek:${aad}`);
  return decrypt(dek, p.value, aad).toString('utf8');
}

/**
 * What `stored` should become under the current KEK: sealed when it is plaintext, its DEK re-wrapped
 * when an earlier KEK wraps it; null when it already is as it should be.
 * @throws as {@link openSecret}.
 */
export function resealed(ring: Keyring, stored: string, aad: string): string | null {
  if (!isSealed(stored)) return sealSecret(ring, stored, aad);
  const p = parts(stored);
  if (p.kekId === ring.current.id) return null;
  const dek = decrypt(kekFor(ring, p.kekId).key, p.wrapped, `dek:${aad}`);
  return `${PREFIX}${ring.current.id}:${encrypt(ring.current.key, dek, `dek:${aad}`)}:${p.value}`;
}
