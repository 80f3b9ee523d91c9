import { describe, expect, it } from 'vitest';
import { isSealed, keyringOf, openSecret, resealed, sealSecret, SecretKeyMissing } from './secrets.js';

const A = 'key-A-key-A-key-A-key-A-key-A-key-A-0001';
const B = 'key-B-key-B-key-B-key-B-key-B-key-B-0002';
const C = 'key-C-key-C-key-C-key-C-key-C-key-C-0003';
const PEM = '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n';

/** Envelope encryption of secrets at rest (finding 11 of "Hardening II"). */
describe('sealed secrets', () => {
  it('seals a value that shows nothing of it, and opens it at its place only', () => {
    const ring = keyringOf({}, A);
    const sealed = sealSecret(ring, PEM, 'domains.dkim_private_key:1');
    expect(isSealed(sealed)).toBe(true);
    expect(sealed).not.toContain('BEGIN');
    expect(sealSecret(ring, PEM, 'domains.dkim_private_key:1')).not.toBe(sealed); // a fresh DEK and IV each time
    expect(openSecret(ring, sealed, 'domains.dkim_private_key:1')).toBe(PEM);
    // Moved to another row, or altered, it does not open.
    expect(() => openSecret(ring, sealed, 'domains.dkim_private_key:2')).toThrow();
    const altered = sealed.slice(0, -3) + (sealed.at(-3) === 'A' ? 'B' : 'A') + sealed.slice(-2);
    expect(() => openSecret(ring, altered, 'domains.dkim_private_key:1')).toThrow();
    // Plaintext of before reads as it is.
    expect(openSecret(ring, PEM, 'domains.dkim_private_key:1')).toBe(PEM);
  });

  it('rotates: an old key still opens what it sealed, re-wrapping keeps the value, an unknown key is named', () => {
    const underA = sealSecret(keyringOf({}, A), 'whsec_abc', 'webhook_endpoints.secret:9');
    const rotated = keyringOf(
      { ENCRYPTION_KEY: B, ENCRYPTION_KEY_PREVIOUS: [A] },
      'instance-secret-not-used-here-000000',
    );
    expect(openSecret(rotated, underA, 'webhook_endpoints.secret:9')).toBe('whsec_abc');
    const rewrapped = resealed(rotated, underA, 'webhook_endpoints.secret:9')!;
    expect(rewrapped.split(':')[2]).not.toBe(underA.split(':')[2]); // another key id
    expect(rewrapped.split(':').at(-1)).toBe(underA.split(':').at(-1)); // the value itself is not re-encrypted
    expect(resealed(rotated, rewrapped, 'webhook_endpoints.secret:9')).toBeNull();
    expect(openSecret(keyringOf({ ENCRYPTION_KEY: B }, 'x'.repeat(40)), rewrapped, 'webhook_endpoints.secret:9')).toBe(
      'whsec_abc',
    );
    expect(() =>
      openSecret(keyringOf({ ENCRYPTION_KEY: C }, 'x'.repeat(40)), rewrapped, 'webhook_endpoints.secret:9'),
    ).toThrow(SecretKeyMissing);
    // Plaintext is sealed by a reseal.
    expect(isSealed(resealed(rotated, 'whsec_plain', 'webhook_endpoints.secret:9')!)).toBe(true);
  });
});
