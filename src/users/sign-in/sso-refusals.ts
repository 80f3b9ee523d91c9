/**
 * Why single sign-on was refused, as the login page's `?sso=` carries it. The dashboard turns each into
 * its sentence (web/src/features/auth/ssoRefusal.ts): the page never shows text taken from a link,
 * which anyone can write.
 */
export const SSO_REFUSALS = [
  'not_configured',
  'cancelled',
  'provider_error',
  'expired',
  'state_mismatch',
  'email_unverified',
  'signup_refused',
  'race',
  'provider_unreachable',
  'exchange_failed',
] as const;
export type SsoRefusal = (typeof SSO_REFUSALS)[number];
