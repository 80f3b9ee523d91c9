import { z } from 'zod';

// A host name of at least two labels: letters, digits and inner hyphens, 1-63 characters per label,
// 253 in all; the last label is alphabetic or an IDNA A-label (xn--…).
const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const DOMAIN = new RegExp(`^(?=.{1,253}$)(?:${LABEL}\\.)+(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$`);

/** True for a syntactically valid, lower-case DNS domain name such as `mail.example.com`. */
export const isDomainName = (v: string): boolean => DOMAIN.test(v);

/**
 * Body of `POST /domains` `{domain}`. The domain is trimmed,
 * lower-cased and loses one trailing dot; anything that is not a host name is 422 VALIDATION_ERROR.
 */
export const createDomainBody = z.object({
  domain: z
    .string()
    .trim()
    .toLowerCase()
    .transform((v) => v.replace(/\.$/, ''))
    .refine(isDomainName, { message: 'Invalid domain name, expected a host name such as example.com' }),
});

/** One DNS record the user publishes, with the status of the last check. */
export const domainRecordOut = z.object({
  type: z.enum(['TXT', 'MX', 'CNAME']),
  name: z.string(),
  value: z.string(),
  status: z.enum(['pending', 'verified']),
});

/**
 * A sender domain as every domain endpoint returns it: `{id, domain, verified, records, createdAt}`,
 * plus `verifiedAt` and `lastCheckedAt` (ISO strings or null). The private key never leaves.
 */
export const domainOut = z.object({
  id: z.string(),
  domain: z.string(),
  verified: z.boolean(),
  records: z.array(domainRecordOut),
  verifiedAt: z.string().nullable(),
  lastCheckedAt: z.string().nullable(),
  createdAt: z.string(),
});
export type DomainOut = z.infer<typeof domainOut>;
