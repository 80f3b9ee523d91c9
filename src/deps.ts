import type pg from 'pg';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { Db } from './db/pool.js';
import type { Transport } from './emails/delivery/transport.js';
import type { SnsFetchers } from './feedback/sns/sns.verify.js';
import type { Clock } from './lib/clock.js';
import type { Metrics } from './ops/metrics.js';

/**
 * Everything a service needs, built once in the composition root (main.ts or the test harness) and
 * passed down (services take their dependencies as one object). No module reads
 * `process.env` or a global database handle.
 */
export interface Deps {
  config: Config;
  /** drizzle over {@link pool}. */
  db: Db;
  /**
   * The pool of the part this object serves: the API's (statement timeout, http/db-errors.ts) or the
   * worker's (no timeout, its own connections); main.ts builds one Deps per part (db/pool.ts).
   */
  pool: pg.Pool;
  /** Where outgoing mail goes: the outbox, SMTP when `SMTP_URL` is set, Amazon SES when `SES_REGION` is. */
  transport: Transport;
  /**
   * True when no mail leaves this machine (the outbox transport): the sender rule then lets a sender
   * without a verified domain through, its mail unsigned and marked (domains/verified.ts
   * `senderClearance`). main.ts sets it from the transport; unset is false, the strict rule.
   */
  mailStaysLocal?: boolean;
  clock: Clock;
  log: Logger;
  /** Signs session cookies and tracking tokens (config JWT_SECRET or the one kept in DATA_DIR). */
  secret: string;
  /** The process's Prometheus metrics (one registry per process, shared by its API and worker parts). */
  metrics: Metrics;
  /**
   * How `POST /webhooks/sns` fetches SNS signing certificates and confirms subscriptions; unset (always,
   * in the service): real HTTPS requests to SNS. Tests set their own to serve a test certificate.
   */
  sns?: SnsFetchers;
}
