/**
 * The sentence for each refusal code the server puts in the login page's `?sso=` when single sign-on
 * did not complete (src/users/sign-in/sso-refusals.ts). The page shows only these: a
 * link carries a code, never text, so nobody can make the login page say something of their own.
 * @param code the `sso` query parameter (anything: a link can hold any value).
 * @param provider the provider's display name (`OIDC_NAME`), or undefined before the options load.
 */
export function ssoRefusalSentence(code: string, provider: string | undefined): string {
  const at = provider ?? 'Your identity provider';
  switch (code) {
    case 'not_configured':
      return 'Single sign-on is not set up on this server. Sign in with your password.';
    case 'cancelled':
      return `The sign-in at ${at} was cancelled. You can try again.`;
    case 'provider_error':
      return `${at} could not sign you in. Try again, or sign in with your password.`;
    case 'expired':
      return 'This sign-in was started in another browser, or took longer than 10 minutes. Start it again.';
    case 'state_mismatch':
      return 'This sign-in link does not belong to this browser. Start the sign-in again.';
    case 'email_unverified':
      return `${at} has not verified the email address of your account there, so Pigeon cannot tell which account is yours. Verify it there, then sign in again.`;
    case 'signup_refused':
      return "There is no Pigeon account for the address you signed in with, and this server makes accounts only for invited addresses. Ask a project's administrator to invite you, then sign in again.";
    case 'race':
      return 'Your account was being set up in another tab. Sign in again.';
    case 'provider_unreachable':
      return `${at} cannot be reached right now. Try again in a few minutes, or sign in with your password.`;
    case 'exchange_failed':
      return `${at} did not confirm who you are. Try again, or sign in with your password.`;
    default:
      return 'Single sign-on did not complete. Start it again, or sign in with your password.';
  }
}
