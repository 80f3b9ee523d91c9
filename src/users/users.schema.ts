import { z } from 'zod';

export const emailField = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.email({ message: 'Invalid email' }));

export const credentialsBody = z.object({
  email: emailField,
  password: z.string().min(8, 'Password must be at least 8 characters').max(256),
});

export const tokenBody = z.object({ token: z.string().min(1).max(512) });
/** `POST /auth/verify-email`: `password` is needed only from a browser not signed in to the account. */
export const verifyEmailBody = tokenBody.extend({
  password: z.string().min(8, 'Password must be at least 8 characters').max(256).optional(),
});
export const requestResetBody = z.object({ email: emailField });
export const resetPasswordBody = z.object({
  token: z.string().min(1).max(512),
  password: z.string().min(8, 'Password must be at least 8 characters').max(256),
});

/** A dashboard user as returned by `/auth/*` and `GET /users/@me`. */
export const userOut = z.object({
  id: z.string(),
  email: z.string(),
  emailVerified: z.boolean(),
  createdAt: z.string(),
});
export type UserOut = z.infer<typeof userOut>;

/** `POST /users/@me/password`: the current password proves it is the owner at the keyboard. */
export const changePasswordBody = z.object({
  currentPassword: z.string().min(1, 'Enter your current password').max(256),
  newPassword: z.string().min(8, 'Password must be at least 8 characters').max(256),
});

/** `POST /users/@me/email`: the password again, as the new address takes over the account. */
export const changeEmailBody = z.object({
  password: z.string().min(1, 'Enter your current password').max(256),
  newEmail: emailField,
});
/** `POST /auth/confirm-email-change`: the token of the link mailed to the new address. */
export const confirmEmailBody = tokenBody;
