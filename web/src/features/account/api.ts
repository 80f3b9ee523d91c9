import { api, unwrap } from '../../api/client';

/** `POST /users/@me/password`: a wrong `currentPassword` comes back as that field's error. */
export const changePassword = (body: { currentPassword: string; newPassword: string }) =>
  unwrap(api.POST('/users/@me/password', { body }));

/** `POST /users/@me/email`: mails a confirmation link to `newEmail`; the address changes only when it is followed. */
export const requestEmailChange = (body: { password: string; newEmail: string }) =>
  unwrap(api.POST('/users/@me/email', { body }));

/** `POST /auth/confirm-email-change` with the token of that link: answers the account's new address. */
export const confirmEmailChange = (body: { token: string }) => unwrap(api.POST('/auth/confirm-email-change', { body }));

/** `POST /auth/logout-all`: ends every session of the account, this one included. */
export const logoutEverywhere = () => unwrap(api.POST('/auth/logout-all'));
