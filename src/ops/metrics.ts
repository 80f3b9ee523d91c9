import type pg from 'pg';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { jobStatsByTask } from '../worker/graphile.js';

/**
 * The process's Prometheus metrics (`GET /metrics`, prom-client). One registry per process (tests
 * build several apps in one process, so never prom-client's global registry). Metrics are either
 * counted where things happen (HTTP requests, SMTP sends, email transitions, jobs) or read when
 * scraped (database pools; the job queue and the live email queue, read from PostgreSQL, so any
 * process reports the whole cluster's queue).
 *
 * Names follow Prometheus conventions: base units (seconds), `_total` for counters, `pigeon_` prefix.
 */
export interface Metrics {
  registry: Registry;
  /** `pigeon_http_request_duration_seconds{method, route, status}`: `route` is the route's pattern. */
  httpDuration: Histogram<'method' | 'route' | 'status'>;
  /** `pigeon_smtp_send_duration_seconds{outcome}`: one mail handed to the transport, build excluded. */
  smtpDuration: Histogram<'outcome'>;
  /** `pigeon_email_transitions_total{to}`: emails moved into a status by this process. */
  emailTransitions: Counter<'to'>;
  /** `pigeon_job_duration_seconds{task, outcome}`: Graphile Worker jobs run by this process. */
  jobDuration: Histogram<'task' | 'outcome'>;
  /**
   * `pigeon_transport_sends_total{transport, outcome}`: mails a transport took (`sent`), deferred as too
   * fast (`throttled`, transports/rate.ts), refused for the mail's own sake (`refused`: a recipient's 4xx/5xx, a permanent refusal) or failed on (`failed`,
   * a transport failure, transports/failures.ts), by this process; `transport` is `default` or a
   * project transport's id (transports/registry.ts).
   */
  transportSends: Counter<'transport' | 'outcome'>;
  /** `pigeon_transport_rate{transport}`: a transport's adaptive rate in this process after its last change, mails a second (-1 unlimited). */
  transportRate: Gauge<'transport'>;
  /** `pigeon_transport_breaker_state{transport}`: 0 closed, 1 half-open, 2 open, as this process last saw it. */
  transportBreaker: Gauge<'transport'>;
  /** Reports a pool's connections as `pigeon_db_pool_connections{pool, state}` (total, idle, waiting). */
  addPool(name: string, pool: pg.Pool): void;
  /** Reads the job and email queues from the database at each scrape through `pool`. */
  setQueueSource(pool: pg.Pool): void;
}

/** Outcomes of {@link Metrics.smtpDuration}. */
export type SendOutcome = 'delivered' | 'bounced' | 'deferred' | 'failed';

/** A new registry with Node's process metrics and Pigeon's own. */
export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'pigeon_' });
  const pools = new Map<string, pg.Pool>();
  let queuePool: pg.Pool | undefined;

  const httpDuration = new Histogram({
    name: 'pigeon_http_request_duration_seconds',
    help: 'HTTP requests by route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  });
  const smtpDuration = new Histogram({
    name: 'pigeon_smtp_send_duration_seconds',
    help: 'Time to hand one mail to the SMTP server, by outcome',
    labelNames: ['outcome'] as const,
    registers: [registry],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15, 60],
  });
  const emailTransitions = new Counter({
    name: 'pigeon_email_transitions_total',
    help: 'Emails moved into a status by this process',
    labelNames: ['to'] as const,
    registers: [registry],
  });
  const jobDuration = new Histogram({
    name: 'pigeon_job_duration_seconds',
    help: 'Background jobs run by this process, by task and outcome',
    labelNames: ['task', 'outcome'] as const,
    registers: [registry],
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  });

  const transportSends = new Counter({
    name: 'pigeon_transport_sends_total',
    help: 'Mails by transport and outcome (sent, refused for the mail, failed as a transport)',
    labelNames: ['transport', 'outcome'] as const,
    registers: [registry],
  });
  const transportRate = new Gauge({
    name: 'pigeon_transport_rate',
    help: "Transports' adaptive rates in this process after their last change, mails a second (-1: unlimited)",
    labelNames: ['transport'] as const,
    registers: [registry],
  });
  const transportBreaker = new Gauge({
    name: 'pigeon_transport_breaker_state',
    help: "Transports' circuit breakers as this process last saw them: 0 closed, 1 half-open, 2 open",
    labelNames: ['transport'] as const,
    registers: [registry],
  });

  new Gauge({
    name: 'pigeon_db_pool_connections',
    help: 'PostgreSQL pool connections by pool and state',
    labelNames: ['pool', 'state'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [name, p] of pools) {
        this.set({ pool: name, state: 'total' }, p.totalCount);
        this.set({ pool: name, state: 'idle' }, p.idleCount);
        this.set({ pool: name, state: 'waiting' }, p.waitingCount);
      }
    },
  });

  // The three queue gauges are filled by one pair of queries, run by whichever of them is collected
  // first in a scrape (prom-client collects them concurrently).
  let scrape: Promise<void> | undefined;
  const collectQueues = async () => {
    scrape ??= readQueues().finally(() => setImmediate(() => (scrape = undefined)));
    await scrape;
  };
  const jobs = new Gauge({
    name: 'pigeon_jobs',
    help: 'Jobs in the queue by task and state (ready, scheduled, running, failed)',
    labelNames: ['task', 'state'] as const,
    registers: [registry],
    collect: collectQueues,
  });
  const oldest = new Gauge({
    name: 'pigeon_job_oldest_ready_age_seconds',
    help: 'Age of the oldest job that is due and not running, by task',
    labelNames: ['task'] as const,
    registers: [registry],
    collect: collectQueues,
  });
  const emails = new Gauge({
    name: 'pigeon_emails_in_flight',
    help: 'Emails queued or being handed over, by status',
    labelNames: ['status'] as const,
    registers: [registry],
    collect: collectQueues,
  });
  async function readQueues(): Promise<void> {
    jobs.reset();
    oldest.reset();
    emails.reset();
    if (!queuePool) return;
    const rows = await jobStatsByTask(queuePool);
    for (const r of rows) {
      for (const state of ['ready', 'scheduled', 'running', 'failed'] as const)
        jobs.set({ task: r.task, state }, r[state]);
      oldest.set({ task: r.task }, r.oldest ?? 0);
    }
    const live = await queuePool.query<{ status: string; n: number }>(
      `select status, count(*)::int as n from emails where status in ('PENDING', 'SENDING') group by status`,
    );
    for (const status of ['PENDING', 'SENDING'])
      emails.set({ status }, live.rows.find((r) => r.status === status)?.n ?? 0);
  }

  return {
    registry,
    httpDuration,
    smtpDuration,
    emailTransitions,
    jobDuration,
    transportSends,
    transportBreaker,
    transportRate,
    addPool: (name, pool) => void pools.set(name, pool),
    setQueueSource: (pool) => {
      queuePool = pool;
    },
  };
}
