import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { isoDateTime, uuidOut } from '../http/responses.js';
import { SCOPES } from './scopes.js';

/** A project may hold at most this many scoped keys (each is one more credential to keep track of). */
export const MAX_KEYS_PER_PROJECT = 100;
/** Allowed address ranges of one key, at most. */
export const MAX_ALLOWED_IPS = 50;

/**
 * An address or CIDR range in canonical form (`203.0.113.0/24`, `2001:db8::/32`; a bare address is
 * its own range, /32 or /128), or null when `value` is neither. IPv4-mapped IPv6 is unwrapped, as the
 * client addresses it is compared with are.
 */
export function canonicalCidr(value: string): string | null {
  const v = value.trim();
  try {
    if (v.includes('/')) {
      const [addr, bits] = ipaddr.parseCIDR(v);
      return `${addr.toString()}/${bits}`;
    }
    const addr = ipaddr.process(v);
    return `${addr.toString()}/${addr.kind() === 'ipv4' ? 32 : 128}`;
  } catch {
    return null;
  }
}

const cidr = z
  .string()
  .max(64)
  .refine((v) => canonicalCidr(v) !== null, 'Not an IP address or CIDR range (e.g. 203.0.113.0/24)')
  .transform((v) => canonicalCidr(v)!);

export const scopeField = z.enum(SCOPES);

/** Body of `POST /projects/:id/api-keys`. `expiresAt` must be in the future (checked by the service). */
export const createApiKeyBody = z.object({
  name: z.string().trim().min(1, 'Give the key a name').max(100),
  scopes: z
    .array(scopeField)
    .min(1, 'Choose at least one scope')
    .max(SCOPES.length)
    // Stored once each, in the table's order (send, track, contacts:read, …), whatever order was sent.
    .transform((s) => SCOPES.filter((x) => s.includes(x))),
  allowedIps: z.array(cidr).max(MAX_ALLOWED_IPS).nullish(),
  expiresAt: z.iso.datetime({ offset: true }).nullish(),
});
export type CreateApiKeyBody = z.infer<typeof createApiKeyBody>;

export const apiKeyParams = z.object({ id: z.uuid({ message: 'Invalid project id' }), keyId: z.uuid() });

/** A scoped key as listed: never its secret, only the hint. */
export const apiKeyOut = z.object({
  id: uuidOut,
  name: z.string(),
  /** The key's first characters (`psk_AbCdEf`), to tell keys apart. */
  hint: z.string(),
  scopes: z.array(z.string()),
  allowedIps: z.array(z.string()).nullable(),
  expiresAt: isoDateTime.nullable(),
  lastUsedAt: isoDateTime.nullable(),
  createdAt: isoDateTime,
  /** Who created it (null: the account was deleted). */
  createdBy: z.object({ id: uuidOut, email: z.string() }).nullable(),
});
export type ApiKeyOut = z.infer<typeof apiKeyOut>;

/** `POST /projects/:id/api-keys`: the key, shown this once, with its listing. */
export const createdApiKeyOut = apiKeyOut.extend({ key: z.string() });
