import { randomToken, sha256 } from '../lib/crypto.js';

/** Which of a project's two keys: `public` (`pk_`, `/v1/track` only) or `secret` (`sk_`, the rest). */
export type KeyKind = 'public' | 'secret';

/**
 * The stored columns of a project's public key: the full key is kept, sealed (lib/secrets.ts, place
 * `projects.public_key:<id>`), as it is safe to show; look-ups use the SHA-256.
 */
export interface StoredPublicKey {
  publicKey: string;
  publicKeyHash: string;
  publicKeyHint: string;
}

/** The stored columns of a project's secret key: only its SHA-256 and last four characters. */
export interface StoredSecretKey {
  secretKeyHash: string;
  secretKeyHint: string;
}

/** A fresh key pair: the full keys (the secret one shown once) and what is stored. */
export interface KeyPair {
  public: string;
  secret: string;
  stored: StoredPublicKey & StoredSecretKey;
}

/** A fresh key of one kind: the full key and the columns to store for it. */
export type FreshKey =
  | { kind: 'public'; value: string; stored: StoredPublicKey }
  | { kind: 'secret'; value: string; stored: StoredSecretKey };

/** Masked form of a key for listings: `sk_…last4`. */
export const maskKey = (prefix: 'pk_' | 'sk_', hint: string): string => `${prefix}…${hint}`;

/** Seals a project's public key for `projects.public_key` (lib/secret-places.ts `projectPublicKey`). */
export type SealPublicKey = (plain: string) => string;

/**
 * A fresh public key: `pk_` + 32 random bytes base64url, stored in full (sealed by `seal`), as SHA-256
 * and last-four hint.
 */
export function generatePublicKey(seal: SealPublicKey): { value: string; stored: StoredPublicKey } {
  const value = `pk_${randomToken(32)}`;
  return { value, stored: { publicKey: seal(value), publicKeyHash: sha256(value), publicKeyHint: value.slice(-4) } };
}

/** A fresh secret key: `sk_` + 32 random bytes base64url, stored only as SHA-256 and last-four hint. */
export function generateSecretKey(): { value: string; stored: StoredSecretKey } {
  const value = `sk_${randomToken(32)}`;
  return { value, stored: { secretKeyHash: sha256(value), secretKeyHint: value.slice(-4) } };
}

/** A fresh key of `kind` (the look-up of http/auth.ts is by SHA-256), with the columns to store. */
export function generateKey(kind: KeyKind, seal: SealPublicKey): FreshKey {
  return kind === 'public' ? { kind, ...generatePublicKey(seal) } : { kind, ...generateSecretKey() };
}

/** Both keys of a new project (or of rotating both). */
export function generateKeyPair(seal: SealPublicKey): KeyPair {
  const pub = generatePublicKey(seal);
  const sec = generateSecretKey();
  return { public: pub.value, secret: sec.value, stored: { ...pub.stored, ...sec.stored } };
}
