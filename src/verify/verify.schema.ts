import { z } from 'zod';

/**
 * Body of `POST /v1/verify`: `{email}`, required, an email address.
 * A missing or non-string `email`, and a string that is not an email address, are both 422
 * VALIDATION_ERROR with `errors[]` (422 is this endpoint's error for a bad body; the field is typed
 * `email`), rather than `valid: false`. The address is trimmed and lower-cased.
 * Beyond the pattern: at most 254 characters, a local part of at most 64, labels of at most 63 (RFC 5321).
 */
export const verifyBody = z.object({
  email: z
    .string({ message: 'email is required and must be a string' })
    .trim()
    .toLowerCase()
    .max(254, 'An email address has at most 254 characters')
    .pipe(z.email({ message: 'Invalid email' }))
    .refine(
      (v) => {
        const at = v.lastIndexOf('@');
        return (
          at <= 64 &&
          v
            .slice(at + 1)
            .split('.')
            .every((l) => l.length <= 63)
        );
      },
      { message: 'Invalid email: local part over 64 or a domain label over 63 characters' },
    ),
});

/** The verify result, with `suggestedEmail` for a likely typo. */
export const verifyResult = z.object({
  email: z.string(),
  valid: z.boolean(),
  isDisposable: z.boolean(),
  isAlias: z.boolean(),
  isTypo: z.boolean(),
  isPlusAddressed: z.boolean(),
  isPersonalEmail: z.boolean(),
  domainExists: z.boolean(),
  hasWebsite: z.boolean(),
  hasMxRecords: z.boolean(),
  reasons: z.array(z.string()),
  suggestedEmail: z.string().nullable(),
});
export type VerifyResult = z.infer<typeof verifyResult>;

export const verifyResponse = z.object({ success: z.literal(true), data: verifyResult });
