import type { BlocksStyle } from '../../content/blocks.schema.js';
import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** Dashboard users. */
export const users = pgTable('users', {
  id: uuid('id').primaryKey(),
  email: text('email').notNull().unique(),
  passwordHash: text('password_hash').notNull(),
  emailVerified: boolean('email_verified').notNull().default(false),
  /** The TOTP shared secret (RFC 6238), sealed (lib/secrets.ts); set at enrolment, before it is confirmed. */
  totpSecret: text('totp_secret'),
  /** When two-factor sign-in by TOTP was confirmed; null: not enrolled. */
  totpEnabledAt: ts('totp_enabled_at'),
  /** The last accepted TOTP time step: a code at or before it is refused (one use per code, RFC 6238 §5.2). */
  totpLastStep: bigint('totp_last_step', { mode: 'number' }),
  createdAt: ts('created_at').notNull().defaultNow(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});

/**
 * Dashboard sessions (src/users/sessions.ts). The session cookie's JWT carries the row's id; a request
 * is signed in only while its row is not revoked (log out, log out everywhere, password reset), not
 * past `expiresAt` (7 days) and used within the idle timeout (`SESSION_IDLE_TIMEOUT_HOURS`).
 */
export const sessions = pgTable(
  'sessions',
  {
    id: uuid('id').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: ts('created_at').notNull().defaultNow(),
    /** Moved forward at most every few minutes while the session is used (not on every request). */
    lastSeenAt: ts('last_seen_at').notNull().defaultNow(),
    expiresAt: ts('expires_at').notNull(),
    revokedAt: ts('revoked_at'),
    /** The browser's User-Agent at sign-in, cut to 300 characters, for a list of one's sessions. */
    userAgent: text('user_agent'),
    /** How the session signed in (a project requiring two factors accepts all but `password`). */
    method: text('method').$type<SignInMethod>().notNull().default('password'),
    /** The client address at sign-in. */
    ip: text('ip'),
  },
  (t) => [index('sessions_user_idx').on(t.userId)],
);

/** How a session signed in: password alone, password + TOTP or recovery code, a passkey, single sign-on. */
export type SignInMethod = 'password' | 'totp' | 'recovery' | 'passkey' | 'oidc';

/**
 * What a one-time token does: confirm the address, reset the password, or move the account to a new
 * address (that token carries the address itself, see users/email-change.ts).
 */
export type TokenKind = 'verify_email' | 'reset_password' | 'change_email';

/** One-time tokens for e-mail verification, password reset and address change; only their SHA-256 is stored. */
export const userTokens = pgTable(
  'user_tokens',
  {
    id: uuid('id').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    kind: text('kind').$type<TokenKind>().notNull(),
    tokenHash: text('token_hash').notNull().unique(),
    expiresAt: ts('expires_at').notNull(),
    usedAt: ts('used_at'),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [index('user_tokens_user_idx').on(t.userId, t.kind)],
);

/** Days after which events, email contents (body, subject) and email rows are deleted; absent: kept. */
export type RetentionSettings = { eventsDays?: number; emailContentsDays?: number; emailsDays?: number };

/** Monthly caps per source; null = no cap. */
export type BillingLimits = { transactional: number | null; campaigns: number | null; workflows: number | null };

/** Projects own everything else; keys are stored as SHA-256 hashes. */
export const projects = pgTable('projects', {
  id: uuid('id').primaryKey(),
  name: text('name').notNull(),
  publicKeyHash: text('public_key_hash').notNull().unique(),
  secretKeyHash: text('secret_key_hash').notNull().unique(),
  publicKeyHint: text('public_key_hint').notNull(),
  /**
   * The full public key: it only sends `/v1/track` events and ships in browsers anyway, so the dashboard
   * shows it (the secret key stays hashed only). Sealed like every secret at rest (lib/secrets.ts), so a
   * dump of the database alone holds no key. Null for a project whose public key was made before Pigeon
   * kept it, until that key is rotated.
   */
  publicKey: text('public_key'),
  secretKeyHint: text('secret_key_hint').notNull(),
  tracking: text('tracking').$type<'ENABLED' | 'DISABLED' | 'MARKETING_ONLY'>().notNull().default('ENABLED'),
  disabled: boolean('disabled').notNull().default(false),
  /** The global style new visual-editor documents start from (migration 0034, `GET/PUT /email-style`); null: the defaults. */
  emailStyle: jsonb('email_style').$type<BlocksStyle>(),
  billingLimits: jsonb('billing_limits')
    .$type<BillingLimits>()
    .notNull()
    .default({ transactional: null, campaigns: null, workflows: null }),
  /**
   * When an OWNER/ADMIN acknowledged a critical sender health (src/projects/health.ts), and who:
   * marketing sends are paused at critical, and only mail queued after this moment counts towards
   * pausing them again.
   */
  healthAcknowledgedAt: ts('health_acknowledged_at'),
  /** The accent of the project's public pages (`#rrggbb`, web/public-page.ts); null for Pigeon's default. */
  brandColor: text('brand_color'),
  /** IANA time zone name (`Europe/Paris`) that workflow schedule triggers read their cron in (workflows/schedule.ts). */
  timeZone: text('time_zone').notNull().default('UTC'),
  healthAcknowledgedBy: uuid('health_acknowledged_by'),
  /** Members must sign in with a second factor or single sign-on to reach the project (issue 39). */
  require2fa: boolean('require_2fa').notNull().default(false),
  /** How long the project keeps what it collects, in days; a missing key: forever (applied nightly). */
  retention: jsonb('retention').$type<RetentionSettings>().notNull().default({}),
  createdAt: ts('created_at').notNull().defaultNow(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});

export const memberships = pgTable(
  'memberships',
  {
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: text('role').$type<'OWNER' | 'ADMIN' | 'MEMBER'>().notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.userId] }), index('memberships_user_idx').on(t.userId)],
);

/** Stored states of an invitation; `expired` is derived from `expiresAt` when read. */
export type InvitationState = 'pending' | 'accepted' | 'revoked' | 'declined';

/**
 * Invitations to join a project, for addresses with no verified account yet: the invitee accepts with a
 * session whose verified email is `email`. At most one pending invitation per (project, email).
 */
export const invitations = pgTable(
  'invitations',
  {
    id: uuid('id').primaryKey(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    role: text('role').$type<'ADMIN' | 'MEMBER'>().notNull(),
    status: text('status').$type<InvitationState>().notNull().default('pending'),
    invitedBy: uuid('invited_by').references(() => users.id, { onDelete: 'set null' }),
    acceptedBy: uuid('accepted_by').references(() => users.id, { onDelete: 'set null' }),
    expiresAt: ts('expires_at').notNull(),
    lastSentAt: ts('last_sent_at'),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('invitations_pending_uq')
      .on(t.projectId, t.email)
      .where(sql`status = 'pending'`),
    index('invitations_email_idx').on(t.email),
  ],
);

/** Claimed `Idempotency-Key`s; `statusCode` null while in flight. */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    method: text('method').notNull(),
    path: text('path').notNull(),
    statusCode: integer('status_code'),
    createdAt: ts('created_at').notNull().defaultNow(),
    expiresAt: ts('expires_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.key] }), index('idempotency_keys_expires_idx').on(t.expiresAt)],
);

/** Status of queued imports and bulk actions. */
export const backgroundJobs = pgTable(
  'background_jobs',
  {
    id: uuid('id').primaryKey(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    kind: text('kind').$type<'import' | 'bulk-subscribe' | 'bulk-unsubscribe' | 'bulk-delete'>().notNull(),
    state: text('state').$type<'waiting' | 'active' | 'completed' | 'failed'>().notNull().default('waiting'),
    progress: integer('progress').notNull().default(0),
    input: jsonb('input').$type<Record<string, unknown>>().notNull().default({}),
    result: jsonb('result').$type<Record<string, unknown>>(),
    failedReason: text('failed_reason'),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [index('background_jobs_project_idx').on(t.projectId, t.kind)],
);

export { ts };
