import { z } from 'zod';
import { isoDateTime, uuidOut } from '../http/responses.js';

/** A transport's name: 1-100 characters, unique in its project. */
const name = z.string().trim().min(1).max(100);
/** Messages per second the transport may take, at most. */
const maxPerSecond = z.number().int().min(1).max(100_000);
/** Connections to the transport open at once, at most. */
const maxConnections = z.number().int().min(1).max(100);

/** SMTP settings: `smtp://user:password@host:587` (STARTTLS) or `smtps://…:465` (TLS); the password is sealed. */
const smtpSettings = z.strictObject({ url: z.string().trim().min(1).max(2000) });
/** SES settings: a region, an optional configuration set, and optional keys (else the default AWS chain). */
const sesSettings = z.strictObject({
  region: z.string().trim().min(1).max(40),
  configurationSet: z.string().trim().min(1).max(64).optional(),
  accessKeyId: z.string().trim().min(1).max(128).optional(),
  secretAccessKey: z.string().min(1).max(256).optional(),
});

const common = {
  name,
  maxPerSecond: maxPerSecond.nullish(),
  maxConnections: maxConnections.nullish(),
  enabled: z.boolean().optional(),
};

/** Body of `POST /transports`. */
export const createTransportBody = z.discriminatedUnion('kind', [
  z.strictObject({ ...common, kind: z.literal('smtp'), settings: smtpSettings }),
  z.strictObject({ ...common, kind: z.literal('ses'), settings: sesSettings }),
]);

/**
 * Body of `PATCH /transports/:id`: any field. `settings` are checked against `kind` (the new one, else
 * the stored one). An SMTP URL without a password keeps the stored password while the kind stays;
 * `clearCredentials: true` removes it (or the SES secret key).
 */
export const updateTransportBody = z.strictObject({
  name: name.optional(),
  kind: z.enum(['smtp', 'ses']).optional(),
  settings: z.union([smtpSettings, sesSettings]).optional(),
  maxPerSecond: maxPerSecond.nullable().optional(),
  maxConnections: maxConnections.nullable().optional(),
  enabled: z.boolean().optional(),
  clearCredentials: z.boolean().optional(),
});

/** A transport's circuit breaker as last recorded by the delivery engine (no record: closed, no failure). */
export const healthOut = z.object({
  state: z.enum(['closed', 'open', 'half_open']),
  failures: z.number().int(),
  openedAt: isoDateTime.nullable(),
  retryAt: isoDateTime.nullable(),
  lastError: z.string().nullable(),
});

/** A transport as the API shows it: never its password or secret key, only whether one is set. */
export const transportOut = z.object({
  id: uuidOut,
  name: z.string(),
  kind: z.enum(['smtp', 'ses']),
  settings: z.union([
    z.object({ url: z.string() }),
    z.object({ region: z.string(), configurationSet: z.string().optional(), accessKeyId: z.string().optional() }),
  ]),
  credentials: z.enum(['set', 'none']),
  maxPerSecond: z.number().int().nullable(),
  maxConnections: z.number().int().nullable(),
  enabled: z.boolean(),
  health: healthOut,
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
});

/** Answer of `GET /transports`: the project's transports and the instance's own (`default`). */
export const transportListOut = z.object({
  transports: z.array(transportOut),
  default: z.object({
    kind: z.enum(['smtp', 'ses', 'outbox']),
    description: z.string(),
    health: healthOut,
  }),
  fallbacks: z
    .array(
      z.object({
        id: z.string().meta({ description: '`fallback-1`, `fallback-2`, …: the name routing rules use' }),
        kind: z.enum(['smtp', 'ses']),
        description: z.string(),
        health: healthOut,
      }),
    )
    .meta({
      description: "The instance's fallbacks (FALLBACK_TRANSPORTS), tried after `default` for mail no rule routes",
    }),
});

/** Answer of `POST /transports/:id/test`: what happened, in a sentence. */
export const testOut = z.object({ ok: z.boolean(), message: z.string(), durationMs: z.number().int() });

const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
const domain = z
  .string()
  .trim()
  .toLowerCase()
  .refine((v) => DOMAIN.test(v), { message: 'Expected a domain name, e.g. example.com' });

/** What a rule matches; an absent field matches every mail. */
export const ruleMatch = z.strictObject({
  stream: z.enum(['transactional', 'marketing']).optional(),
  fromDomain: domain.optional(),
  toDomain: domain.optional(),
});

/** One routing rule: the transports tried in order (a transport id of the project, or `default`). */
export const ruleIn = z.strictObject({
  match: ruleMatch,
  transports: z
    .array(z.string().trim().min(1).max(64))
    .min(1)
    .max(5)
    .superRefine((list, ctx) =>
      list.forEach((t, i) => {
        if (list.indexOf(t) !== i)
          ctx.addIssue({ code: 'custom', message: 'A transport is listed twice in one rule', path: [i] });
      }),
    ),
});

/** Body of `PUT /transports/rules`: every rule, in order (at most 50). */
export const putRulesBody = z.strictObject({ rules: z.array(ruleIn).max(50) });

export const rulesOut = z.object({
  rules: z.array(
    z.object({
      match: z.object({
        stream: z.enum(['transactional', 'marketing']).optional(),
        fromDomain: z.string().optional(),
        toDomain: z.string().optional(),
      }),
      transports: z.array(z.string()),
    }),
  ),
});

export type CreateTransportBody = z.infer<typeof createTransportBody>;
export type UpdateTransportBody = z.infer<typeof updateTransportBody>;
export type PutRulesBody = z.infer<typeof putRulesBody>;
