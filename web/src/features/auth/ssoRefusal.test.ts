import { describe, expect, it } from 'vitest';
import { SSO_REFUSALS } from '../../../../src/users/sign-in/sso-refusals';
import { ssoRefusalSentence } from './ssoRefusal';

describe('ssoRefusalSentence', () => {
  it('has a sentence of its own for every refusal the server sends', () => {
    const fallback = ssoRefusalSentence('not-a-code', 'Acme ID');
    const sentences = SSO_REFUSALS.map((code) => ssoRefusalSentence(code, 'Acme ID'));
    for (const s of sentences) {
      expect(s).not.toBe(fallback);
      expect(s).toMatch(/^[A-Z].*\.$/);
    }
    expect(new Set(sentences).size).toBe(SSO_REFUSALS.length);
  });

  it('names the provider, and reads well before its name is known', () => {
    expect(ssoRefusalSentence('cancelled', 'Acme ID')).toBe('The sign-in at Acme ID was cancelled. You can try again.');
    expect(ssoRefusalSentence('provider_unreachable', undefined)).toBe(
      'Your identity provider cannot be reached right now. Try again in a few minutes, or sign in with your password.',
    );
  });

  it('never repeats what a link says', () => {
    expect(ssoRefusalSentence('Call +1 555 0100 to unlock your account', 'Acme ID')).toBe(
      'Single sign-on did not complete. Start it again, or sign in with your password.',
    );
  });
});
