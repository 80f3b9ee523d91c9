import { randomToken, sha256 } from '../lib/crypto.js';

/** Which of a project's two keys: `public` (`pk_`, `/v1/track` only) or `secret` (`sk_`, the rest). */
export type KeyKind = 'public' | 'secret';

/** The stored columns of a project's public key: the full key is kept (it is safe to show). */
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

/**
 * One fresh key: `pk_`/`sk_` + 32 random bytes base64url, stored as SHA-256 (the look-up of
 * http/auth.ts) with the last four characters as hint; a public key is also stored in full.
 */
export function generateKey(kind: KeyKind): FreshKey {
  if (kind === 'public') {
    const value = `pk_${randomToken(32)}`;
    return {
      kind,
      value,
      stored: { publicKey: value, publicKeyHash: sha256(value), publicKeyHint: value.slice(-4) },
    };
  }
  const value = `sk_${randomToken(32)}`;
  return { kind, value, stored: { secretKeyHash: sha256(value), secretKeyHint: value.slice(-4) } };
}

/** Both keys of a new project (or of rotating both), see {@link generateKey}. */
export function generateKeyPair(): KeyPair {
  const pub = generateKey('public');
  const sec = generateKey('secret');
  return { public: pub.value, secret: sec.value, stored: { ...pub.stored, ...sec.stored } };
}
