import { bigint, boolean, index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { projects, ts, users } from './accounts.js';

/**
 * Trust and compliance (issue 39, migration 0035): sign-in factors, scoped API keys, the audit log and
 * data exports.
 */

/** One-time recovery codes of a user's two-factor sign-in; only their SHA-256 is stored. */
export const recoveryCodes = pgTable(
  'recovery_codes',
  {
    id: uuid('id').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    codeHash: text('code_hash').notNull(),
    usedAt: ts('used_at'),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [index('recovery_codes_user_idx').on(t.userId)],
);

/** WebAuthn credentials (passkeys) of a user; `credentialId` and `publicKey` base64url. */
export const passkeys = pgTable(
  'passkeys',
  {
    id: uuid('id').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    credentialId: text('credential_id').notNull().unique(),
    publicKey: text('public_key').notNull(),
    counter: bigint('counter', { mode: 'number' }).notNull().default(0),
    transports: text('transports').array(),
    name: text('name').notNull(),
    deviceType: text('device_type'),
    backedUp: boolean('backed_up').notNull().default(false),
    createdAt: ts('created_at').notNull().defaultNow(),
    lastUsedAt: ts('last_used_at'),
  },
  (t) => [index('passkeys_user_idx').on(t.userId)],
);

/** What a single-use challenge is for. */
export type ChallengePurpose = 'second-factor' | 'passkey-register' | 'passkey-login' | 'oidc';

/**
 * Short-lived, single-use challenges of sign-in ceremonies: the token of a sign-in's second step, a
 * WebAuthn challenge, an OIDC state/nonce/PKCE verifier. The client holds a random secret whose SHA-256
 * is `secretHash`; the row is deleted when used.
 */
export const authChallenges = pgTable(
  'auth_challenges',
  {
    id: uuid('id').primaryKey(),
    userId: uuid('user_id').references(() => users.id, { onDelete: 'cascade' }),
    purpose: text('purpose').$type<ChallengePurpose>().notNull(),
    secretHash: text('secret_hash').notNull().unique(),
    data: jsonb('data').$type<Record<string, unknown>>().notNull().default({}),
    /** Wrong answers so far (a second step is refused after a few). */
    attempts: integer('attempts').notNull().default(0),
    expiresAt: ts('expires_at').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [index('auth_challenges_expires_idx').on(t.expiresAt)],
);

/** Accounts' identities at the OpenID Connect provider (`OIDC_ISSUER`): `sub` claims. */
export const userIdentities = pgTable(
  'user_identities',
  {
    id: uuid('id').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    issuer: text('issuer').notNull(),
    subject: text('subject').notNull(),
    email: text('email'),
    createdAt: ts('created_at').notNull().defaultNow(),
    lastUsedAt: ts('last_used_at'),
  },
  (t) => [
    uniqueIndex('user_identities_subject_uq').on(t.issuer, t.subject),
    index('user_identities_user_idx').on(t.userId),
  ],
);

/** Named API keys limited to scopes, addresses and a lifetime; only their SHA-256 is stored. */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: uuid('id').primaryKey(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    keyHash: text('key_hash').notNull().unique(),
    /** The key's first characters, to tell keys apart in lists. */
    keyHint: text('key_hint').notNull(),
    scopes: text('scopes').array().notNull(),
    /** CIDRs the key may be used from; null: anywhere. */
    allowedIps: text('allowed_ips').array(),
    expiresAt: ts('expires_at'),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: ts('created_at').notNull().defaultNow(),
    lastUsedAt: ts('last_used_at'),
  },
  (t) => [index('api_keys_project_idx').on(t.projectId)],
);

/** Who made an audited change. */
export type AuditActorType = 'user' | 'key' | 'system';

/**
 * The append-only audit log (a trigger refuses updates; retention and the project's deletion remove
 * entries). `changes` maps a field to `[before, after]`; secrets are never recorded.
 */
export const auditLog = pgTable(
  'audit_log',
  {
    id: uuid('id').primaryKey(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    at: ts('at').notNull().defaultNow(),
    actorType: text('actor_type').$type<AuditActorType>().notNull(),
    actorId: text('actor_id'),
    /** The user's email or the key's name at the time. */
    actorLabel: text('actor_label'),
    ip: text('ip'),
    userAgent: text('user_agent'),
    action: text('action').notNull(),
    targetType: text('target_type').notNull(),
    targetId: text('target_id'),
    changes: jsonb('changes').$type<Record<string, [unknown, unknown]>>(),
  },
  (t) => [
    index('audit_log_project_at_idx').on(t.projectId, t.at.desc(), t.id.desc()),
    index('audit_log_target_idx').on(t.projectId, t.targetType, t.targetId),
    // Retention deletes oldest first across projects (migration 0037).
    index('audit_log_at_idx').on(t.at),
  ],
);

export type ExportKind = 'contacts' | 'events' | 'emails' | 'suppressions' | 'consent';
export type ExportState = 'queued' | 'running' | 'done' | 'failed';

/** Data exports: a worker job writes the file to storage; `rowsDone` is its progress. */
export const exportsTable = pgTable(
  'exports',
  {
    id: uuid('id').primaryKey(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    kind: text('kind').$type<ExportKind>().notNull(),
    format: text('format').$type<'csv' | 'jsonl'>().notNull(),
    filter: jsonb('filter').$type<Record<string, unknown>>(),
    state: text('state').$type<ExportState>().notNull().default('queued'),
    rowsDone: bigint('rows_done', { mode: 'number' }).notNull().default(0),
    rowsTotal: bigint('rows_total', { mode: 'number' }),
    bytes: bigint('bytes', { mode: 'number' }),
    storageKey: text('storage_key'),
    error: text('error'),
    createdBy: jsonb('created_by').$type<Record<string, unknown>>(),
    createdAt: ts('created_at').notNull().defaultNow(),
    startedAt: ts('started_at'),
    finishedAt: ts('finished_at'),
    expiresAt: ts('expires_at'),
  },
  (t) => [index('exports_project_idx').on(t.projectId, t.createdAt.desc())],
);
