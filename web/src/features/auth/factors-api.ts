import { api, unwrap } from '../../api/client';

/** What `POST /auth/login` answers for an account with a second factor: no session yet. */
export interface SecondStepChallenge {
  token: string;
  expiresAt: string;
  methods: Array<'totp' | 'recovery' | 'passkey'>;
  passkeyOptions?: Record<string, unknown>;
}

/** `POST /auth/login/verify` with a TOTP code or a recovery code (sets the session cookie). */
export const verifyCode = (token: string, answer: { code: string } | { recoveryCode: string }) =>
  unwrap(api.POST('/auth/login/verify', { body: { token, ...answer } }));

/** The second step with a passkey: the browser's ceremony on the options of the first step. */
export async function verifyWithPasskey(challenge: SecondStepChallenge) {
  const { startAuthentication } = await import('@simplewebauthn/browser');
  const response = await startAuthentication({ optionsJSON: challenge.passkeyOptions as never });
  return unwrap(api.POST('/auth/login/verify', { body: { token: challenge.token, passkey: response as never } }));
}

/** Signs in with a passkey alone: options, the browser's ceremony, then `POST /auth/passkey`. */
export async function signInWithPasskey() {
  const { token, options } = await unwrap(api.POST('/auth/passkey/options'));
  const { startAuthentication } = await import('@simplewebauthn/browser');
  const response = await startAuthentication({ optionsJSON: options as never });
  return unwrap(api.POST('/auth/passkey', { body: { token, response: response as never } }));
}
