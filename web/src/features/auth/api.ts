import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';

/** Query keys of the account: the signed-in user and the server's feature flags. */
export const authKeys = {
  me: ['me'] as const,
  config: ['config'] as const,
};

/** `GET /config`: feature flags (are sign-ups open?), no credential needed. */
export function useServerConfig() {
  return useQuery({ queryKey: authKeys.config, queryFn: () => unwrap(api.GET('/config')), staleTime: 5 * 60_000 });
}

/** `GET /users/@me`: the signed-in user; a 401 means there is no session. */
export function useMe() {
  return useQuery({ queryKey: authKeys.me, queryFn: () => unwrap(api.GET('/users/@me')), staleTime: 60_000 });
}

export interface Credentials {
  email: string;
  password: string;
}

/** `POST /auth/login` (sets the session cookie). */
export const login = (body: Credentials) => unwrap(api.POST('/auth/login', { body }));
/** `POST /auth/signup` (creates the account and signs in). */
export const signup = (body: Credentials) => unwrap(api.POST('/auth/signup', { body }));
/** `POST /auth/request-password-reset`: answers the same whether the account exists or not. */
export const requestPasswordReset = (body: { email: string }) =>
  unwrap(api.POST('/auth/request-password-reset', { body }));
/** `POST /auth/reset-password` with the mailed token. */
export const resetPassword = (body: { token: string; password: string }) =>
  unwrap(api.POST('/auth/reset-password', { body }));
/**
 * `POST /auth/verify-email` with the mailed token; `password` when the server asks for one (a browser
 * not signed in to that account: field error `password_required`).
 */
export const verifyEmail = (body: { token: string; password?: string }) =>
  unwrap(api.POST('/auth/verify-email', { body }));

/** `POST /auth/request-verification`: mails a new verification link. */
export function useRequestVerification() {
  return useMutation({ mutationFn: () => unwrap(api.POST('/auth/request-verification')) });
}

/** `POST /auth/logout` (ends the session on the server), then forgets every cached answer (the next user must not see them). */
export function useLogout() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => unwrap(api.POST('/auth/logout')),
    onSuccess: () => qc.clear(),
  });
}
