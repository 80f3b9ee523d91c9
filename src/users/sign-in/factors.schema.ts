import { z } from 'zod';

/** Request and response shapes of two-factor sign-in, passkeys and the sessions list. */

/** A six-digit TOTP code (spaces allowed, as apps show `123 456`), or a recovery code where taken. */
const codeField = z.string().trim().min(1, 'Enter the code').max(32);

export const codeBody = z.object({
  code: codeField.meta({ description: 'The current six-digit code of the authenticator app, or a recovery code' }),
});

export const totpStartOut = z.object({
  secret: z.string().meta({ description: 'The base32 shared secret, for typing into an app' }),
  uri: z.string().meta({ description: 'The otpauth:// URI (issuer Pigeon, label the email) for a QR code' }),
});

export const totpStatusOut = z.object({
  enabled: z.boolean(),
  enabledAt: z.string().nullable(),
  recoveryCodesLeft: z.number().int(),
});

export const recoveryCodesOut = z.object({
  recoveryCodes: z.array(z.string()).meta({ description: 'Ten one-time codes, shown this once' }),
});

/** A WebAuthn response as @simplewebauthn/browser returns it; checked by @simplewebauthn/server. */
const webauthnResponse = z
  .object({
    id: z.string().max(1024),
    rawId: z.string().max(1024),
    type: z.literal('public-key'),
    response: z.looseObject({ clientDataJSON: z.string().max(8192) }),
    clientExtensionResults: z.looseObject({}),
    authenticatorAttachment: z.string().optional(),
  })
  .loose();

const methodsField = z.array(z.enum(['totp', 'recovery', 'passkey']));

export const twoFactorOut = z.object({
  twoFactor: z.object({
    token: z.string().meta({ description: 'For POST /auth/login/verify only; 5 minutes, single use' }),
    expiresAt: z.string(),
    methods: methodsField,
    passkeyOptions: z
      .looseObject({})
      .optional()
      .meta({ description: 'PublicKeyCredentialRequestOptionsJSON, when `methods` has `passkey`' }),
  }),
});

export const verifyLoginBody = z
  .object({
    token: z.string().min(1).max(512),
    code: codeField.optional(),
    recoveryCode: codeField.optional(),
    passkey: webauthnResponse.optional(),
  })
  .refine((b) => [b.code, b.recoveryCode, b.passkey].filter((x) => x !== undefined).length === 1, {
    message: 'Send one of code, recoveryCode or passkey',
    path: ['code'],
  });

export const passkeyOut = z.object({
  id: z.string(),
  name: z.string(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  backedUp: z.boolean(),
});

const passkeyName = z.string().trim().min(1, 'Give the passkey a name').max(100);

export const registerPasskeyBody = z.object({ name: passkeyName, response: webauthnResponse });
export const renamePasskeyBody = z.object({ name: passkeyName });
export const idParams = z.object({ id: z.uuid() });

export const passkeyOptionsOut = z.object({
  token: z.string(),
  options: z.looseObject({}).meta({ description: 'PublicKeyCredentialRequestOptionsJSON' }),
});
export const passkeyLoginBody = z.object({ token: z.string().min(1).max(512), response: webauthnResponse });

export const sessionOut = z.object({
  id: z.string(),
  current: z.boolean(),
  createdAt: z.string(),
  lastSeenAt: z.string(),
  device: z.string().meta({ description: 'Browser and operating system read from the User-Agent' }),
  ip: z.string().nullable(),
  method: z.enum(['password', 'totp', 'recovery', 'passkey', 'oidc']),
});
