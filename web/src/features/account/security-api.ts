import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';

/** Query keys of the account's sign-in security: two-factor state, passkeys, sessions. */
export const securityKeys = {
  totp: ['me', 'totp'] as const,
  passkeys: ['me', 'passkeys'] as const,
  sessions: ['me', 'sessions'] as const,
};

/** `GET /users/@me/totp`: whether two-factor sign-in is on, and the recovery codes left. */
export function useTotpStatus() {
  return useQuery({ queryKey: securityKeys.totp, queryFn: () => unwrap(api.GET('/users/@me/totp')) });
}

/** `POST /users/@me/totp`: a new secret and its otpauth:// URI, in force once confirmed. */
export const startTotp = () => unwrap(api.POST('/users/@me/totp'));
/** `POST /users/@me/totp/confirm`: turns two-factor on; answers the ten recovery codes, shown once. */
export const confirmTotp = (code: string) => unwrap(api.POST('/users/@me/totp/confirm', { body: { code } }));
/** `DELETE /users/@me/totp` with a current code or a recovery code. */
export const disableTotp = (code: string) => unwrap(api.DELETE('/users/@me/totp', { body: { code } }));
/** `POST /users/@me/recovery-codes`: a new set (the old codes stop working). */
export const regenerateRecoveryCodes = (code: string) =>
  unwrap(api.POST('/users/@me/recovery-codes', { body: { code } }));

/** `GET /users/@me/passkeys`. */
export function usePasskeys() {
  return useQuery({ queryKey: securityKeys.passkeys, queryFn: () => unwrap(api.GET('/users/@me/passkeys')) });
}

/**
 * Registers a passkey: the server's options, the browser's ceremony (@simplewebauthn/browser, loaded
 * on first use), then the response with its name.
 */
export async function addPasskey(name: string) {
  const options = await unwrap(api.POST('/users/@me/passkeys/options'));
  const { startRegistration } = await import('@simplewebauthn/browser');
  const response = await startRegistration({ optionsJSON: options as never });
  return unwrap(api.POST('/users/@me/passkeys', { body: { name, response: response as never } }));
}

/** `PATCH /users/@me/passkeys/:id`. */
export const renamePasskey = (id: string, name: string) =>
  unwrap(api.PATCH('/users/@me/passkeys/{id}', { params: { path: { id } }, body: { name } }));
/** `DELETE /users/@me/passkeys/:id`. */
export const removePasskey = (id: string) =>
  unwrap(api.DELETE('/users/@me/passkeys/{id}', { params: { path: { id } } }));

/** `GET /users/@me/sessions`: live sessions, most recently used first; `current` is this browser's. */
export function useSessions() {
  return useQuery({ queryKey: securityKeys.sessions, queryFn: () => unwrap(api.GET('/users/@me/sessions')) });
}

/** `DELETE /users/@me/sessions/:id`: signs that session out. */
export const revokeSession = (id: string) =>
  unwrap(api.DELETE('/users/@me/sessions/{id}', { params: { path: { id } } }));
