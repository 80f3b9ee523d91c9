import { randomToken, sha256 } from '../lib/crypto.js';

/** A fresh key pair: the full keys (shown once) and what is stored (hashes and last-four hints). */
export interface KeyPair {
  public: string;
  secret: string;
  stored: { publicKeyHash: string; secretKeyHash: string; publicKeyHint: string; secretKeyHint: string };
}

/** Masked form of a key for listings: `sk_…last4`. */
export const maskKey = (prefix: 'pk_' | 'sk_', hint: string): string => `${prefix}…${hint}`;

/** `pk_`/`sk_` + 32 random bytes base64url; stored as SHA-256 with the last four characters as hint. */
export function generateKeyPair(): KeyPair {
  const pub = `pk_${randomToken(32)}`;
  const sec = `sk_${randomToken(32)}`;
  return {
    public: pub,
    secret: sec,
    stored: {
      publicKeyHash: sha256(pub),
      secretKeyHash: sha256(sec),
      publicKeyHint: pub.slice(-4),
      secretKeyHint: sec.slice(-4),
    },
  };
}
