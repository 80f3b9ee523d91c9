import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { projects, ts } from './accounts.js';

/** A transport's kind: an SMTP relay (URL) or Amazon SES (region). */
export type TransportKind = 'smtp' | 'ses';

/**
 * A transport's settings without its secret (transports/settings.ts): for `smtp` the relay's URL with
 * no password (`smtp://user@host:587?pool=5`), for `ses` the region, an optional configuration set and
 * an optional access key id.
 */
export type TransportSettings =
  { url: string } | { region: string; configurationSet?: string; accessKeyId?: string; endpoint?: string };

/** A project's own way out (issue 37): an SMTP relay or an SES account, used as its routing rules say. */
export const transports = pgTable(
  'transports',
  {
    id: uuid('id').primaryKey(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    kind: text('kind').$type<TransportKind>().notNull(),
    settings: jsonb('settings').$type<TransportSettings>().notNull(),
    /** The SMTP password or the SES secret access key, sealed (lib/secrets.ts); never returned. */
    secret: text('secret'),
    maxPerSecond: integer('max_per_second'),
    maxConnections: integer('max_connections'),
    enabled: boolean('enabled').notNull().default(true),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('transports_project_name_uq').on(t.projectId, t.name),
    check('transports_kind_check', sql`${t.kind} in ('smtp', 'ses')`),
  ],
);

/** What a routing rule matches; an absent field matches every mail. */
export interface TransportMatch {
  stream?: 'transactional' | 'marketing';
  fromDomain?: string;
  toDomain?: string;
}

/**
 * A project's routing rules, evaluated in `position` order, the first match wins (transports/route.ts):
 * its `transports` are tried in order, `default` naming the instance's transport. No rule: `default`.
 */
export const transportRules = pgTable(
  'transport_rules',
  {
    id: uuid('id').primaryKey(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    match: jsonb('match').$type<TransportMatch>().notNull(),
    transports: text('transports').array().notNull(),
  },
  (t) => [index('transport_rules_project_idx').on(t.projectId, t.position)],
);

/** A transport's circuit breaker state (transports/breaker.ts). */
export type BreakerState = 'closed' | 'open' | 'half_open';

/**
 * Each transport's health, shared by every worker process (transports/breaker.ts): `default` or a
 * transport id. No row is a closed breaker with no failure.
 */
export const transportHealth = pgTable('transport_health', {
  transport: text('transport').primaryKey(),
  /** The project of a project transport, for its events; null for `default`. */
  projectId: uuid('project_id'),
  state: text('state').$type<BreakerState>().notNull().default('closed'),
  /** Consecutive failures counted since `firstFailureAt` (a success or a window's end starts again). */
  failures: integer('failures').notNull().default(0),
  firstFailureAt: ts('first_failure_at'),
  openedAt: ts('opened_at'),
  /** When an open breaker lets one probe through (half-open). */
  retryAt: ts('retry_at'),
  /** How many times in a row the breaker opened without a successful probe (the back-off doubles). */
  openings: integer('openings').notNull().default(0),
  lastError: text('last_error'),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});
