import { z } from 'zod';
import { emailField } from '../users/users.schema.js';
import { BRAND_COLOR_PATTERN } from '../web/public-page.js';
import { canonicalTimeZone, isTimeZone } from './time-zone.js';
import { retentionOut, retentionPatch } from '../retention/retention.schema.js';

export const projectIdParams = z.object({ id: z.uuid({ message: 'Invalid project id' }) });
export const memberParams = z.object({ id: z.uuid(), userId: z.uuid() });

export const trackingMode = z.enum(['ENABLED', 'DISABLED', 'MARKETING_ONLY']);
export const createProjectBody = z.object({ name: z.string().trim().min(1).max(100) });
export const updateProjectBody = z.object({
  name: z.string().trim().min(1).max(100).optional(),
  tracking: trackingMode.optional(),
  brandColor: z
    .string()
    .regex(BRAND_COLOR_PATTERN, { message: 'A brand colour is written #rrggbb, for example #1f4fd1' })
    .nullable()
    .optional()
    .meta({
      description:
        "The accent of the project's public pages (preference centre, unsubscribe pages, hosted forms), `#rrggbb`; null for the default",
    }),
  timeZone: z
    .string()
    .trim()
    .max(64)
    .refine(isTimeZone, { message: 'An IANA time zone name, for example Europe/Paris or UTC' })
    .transform(canonicalTimeZone)
    .optional()
    .meta({ description: 'IANA time zone name (default UTC) that workflow schedule triggers read their cron in' }),
  retention: retentionPatch.optional().meta({
    description: 'Data retention in days per kind (1–3650; null keeps forever); OWNER or ADMIN, as every field here',
  }),
  require2fa: z.boolean().optional().meta({
    description:
      "Members must sign in with a second factor (TOTP, a passkey) or SSO; password-only sessions get 403 TWO_FACTOR_REQUIRED. Turning it on needs the caller's own session to be two-factor",
  }),
});

/** 201 of `POST /users/@me/projects`: the project with its full keys, shown this once. */
export const createdProjectOut = z.object({
  id: z.string(),
  name: z.string(),
  public: z.string(),
  secret: z.string(),
  createdAt: z.string(),
});
export const keysOut = z.object({ id: z.string(), public: z.string(), secret: z.string() });

/** Body of `POST /users/@me/projects/:id/regenerate-key`: which key to replace. */
export const regenerateKeyBody = z.object({
  key: z.enum(['public', 'secret']).meta({
    description:
      '`public` breaks what sends /v1/track events (browser and app snippets); `secret` breaks every server call (/v1/send, contacts, templates…)',
  }),
});
/** 200 of `regenerate-key`: the new key in full (for the secret key, shown this once). */
export const regeneratedKeyOut = z.object({
  id: z.string(),
  key: z.enum(['public', 'secret']),
  value: z.string().meta({ description: 'The new key (`pk_…` or `sk_…`); the old one no longer works' }),
});
export const projectListItem = z.object({
  id: z.string(),
  name: z.string(),
  role: z.enum(['OWNER', 'ADMIN', 'MEMBER']),
  public: z.string().meta({ description: 'The public key, masked (`pk_…last4`)' }),
  publicKey: z.string().nullable().meta({
    description:
      'The full public key (safe to show: it only sends /v1/track events); null for a key made before Pigeon kept it, until it is rotated',
  }),
  secret: z.string(),
  tracking: trackingMode,
  brandColor: z.string().nullable(),
  timeZone: z.string(),
  disabled: z.boolean(),
  retention: retentionOut,
  require2fa: z.boolean(),
  createdAt: z.string(),
});

export const addMemberBody = z.object({ email: emailField, role: z.enum(['ADMIN', 'MEMBER']) });
export const updateMemberBody = z.object({ role: z.enum(['OWNER', 'ADMIN', 'MEMBER']) });
export const memberOut = z.object({
  userId: z.string(),
  email: z.string(),
  role: z.enum(['OWNER', 'ADMIN', 'MEMBER']),
  createdAt: z.string(),
});

/** `PATCH /users/@me/projects/:id`: the project's settings. */
export const projectOut = z.object({
  id: z.string(),
  name: z.string(),
  tracking: trackingMode,
  brandColor: z.string().nullable(),
  timeZone: z.string().meta({ description: 'IANA time zone name that workflow schedule triggers read their cron in' }),
  disabled: z.boolean(),
  retention: retentionOut,
  require2fa: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const setupStateOut = z.object({
  hasDomain: z.boolean(),
  hasVerifiedDomain: z.boolean(),
  hasTemplate: z.boolean(),
  hasContact: z.boolean(),
  hasSentEmail: z.boolean(),
  hasTrackedEvent: z.boolean(),
  hasCampaign: z.boolean(),
  hasWorkflow: z.boolean(),
  completed: z.boolean(),
});

const healthLevel = z.enum(['healthy', 'warning', 'critical']);
const windowHealthOut = z.object({
  days: z.number().int(),
  sent: z.number().int(),
  bounced: z.number().int(),
  complained: z.number().int(),
  bounceRate: z.number().meta({ description: 'bounced / sent, a fraction (0.05 = 5 %)' }),
  complaintRate: z.number().meta({ description: 'complained / sent, a fraction (0.001 = 0.1 %)' }),
  bounceLevel: healthLevel,
  complaintLevel: healthLevel,
  level: healthLevel,
});
const lines = z.object({ warning: z.number(), critical: z.number() });

/** Bounce and complaint rates of the last 7 and 30 days and the pause of bulk mail (projects/health.ts). */
export const senderHealthOut = z.object({
  level: healthLevel,
  last7Days: windowHealthOut,
  last30Days: windowHealthOut,
  paused: z
    .boolean()
    .meta({ description: 'Campaign and MARKETING workflow mail is paused until an OWNER or ADMIN acknowledges' }),
  acknowledgedAt: z.string().nullable(),
  acknowledgedBy: z.string().nullable(),
  thresholds: z.object({ bounce: lines, complaint: lines }),
  minimumSent: z.number().int().meta({ description: 'Below this many sent mails in a window its level stays healthy' }),
});

export const securityOut = z.object({
  id: z.string(),
  publicKey: z.string(),
  secretKey: z.string(),
  keysStoredAs: z.literal('sha256'),
  tracking: trackingMode,
  disabled: z.boolean(),
  members: z.object({ owners: z.number(), admins: z.number(), members: z.number() }),
  verifiedDomains: z.array(z.string()),
  senderHealth: senderHealthOut,
});
