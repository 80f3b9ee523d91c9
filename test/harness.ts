import { closeTransports } from '../src/transports/registry.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance, RouteOptions } from 'fastify';
import pg from 'pg';
import pino from 'pino';
import { inject } from 'vitest';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createApiDb, createWorkerDb } from '../src/db/pool.js';
import type { Deps } from '../src/deps.js';
import { keepsMailLocal } from '../src/domains/verified.js';
import { outboxTransport, smtpTransport, type Transport } from '../src/emails/delivery/transport.js';
import { startWorker, type WorkerHandle } from '../src/worker/runner.js';
import { createMetrics } from '../src/ops/metrics.js';
import { TestClock } from './clock.js';

export interface HarnessOptions {
  /** Environment variables as a user would set them (parsed by the real config schema). */
  env?: Record<string, string>;
  /** Start Graphile Worker in this process (default false). */
  worker?: boolean;
  /** Replace the transport (default: SMTP when env.SMTP_URL is given, else an outbox in a temp dir). */
  transport?: Transport;
  /**
   * Set `Deps.mailStaysLocal` from the transport as main.ts does (domains/verified.ts `keepsMailLocal`):
   * with the outbox, senders without a verified domain may then send, unsigned. Default off, even with
   * the outbox: most tests use the outbox as a stand-in for a real relay and hold mail to the strict rule.
   */
  localSenderRule?: boolean;
  /** Extra routes registered before listening (e.g. a test-only idempotent route). */
  routes?: (app: FastifyInstance, deps: Deps) => Promise<void> | void;
}

/**
 * A JSON value or a database row as a test reads it: the test's assertions say what it holds. The one
 * place tests opt out of typing, so that a test walks an API answer without a cast at every step.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above: the assertions are the type
export type Json = any;

export interface Response<T = Json> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  body?: unknown;
  /** Bearer key. */
  key?: string;
  /** Cookie header value, e.g. `session=…`. */
  cookie?: string;
  headers?: Record<string, string>;
  /** Send `body` as is (a string or Buffer) instead of JSON. */
  raw?: boolean;
}

/** A running Pigeon over its own database (cloned from the migrated template) on a free port. */
export interface Harness {
  url: string;
  /** The API's dependencies: its pool has the API's statement timeout (config API_STATEMENT_TIMEOUT_MS). */
  deps: Deps;
  /** The worker's dependencies, over a pool of its own (set when the harness runs a worker). */
  workerDeps?: Deps;
  /** Every route the app registered, as Fastify saw it (the contract suite walks them). */
  routes: RouteOptions[];
  app: FastifyInstance;
  clock: TestClock;
  worker?: WorkerHandle;
  dataDir: string;
  /** Direct SQL on this harness's database, for assertions on rows. */
  sql<T extends pg.QueryResultRow = Json>(text: string, params?: unknown[]): Promise<T[]>;
  request<T = Json>(method: string, path: string, opts?: RequestOptions): Promise<Response<T>>;
  close(): Promise<void>;
}

let fileDbCounter = 0;

/** A new database cloned from the migrated template; returns its URL. */
export async function cloneDatabase(): Promise<string> {
  const serverUrl = inject('serverUrl');
  const template = inject('templateDb');
  const name = `${template.replace('pigeon_tpl_', 'pigeon_t_')}_${process.pid}_${++fileDbCounter}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.query(`create database ${name} template ${template}`);
        break;
      } catch (err) {
        // Another file cloning at the same instant holds the template; try again shortly.
        if (attempt > 20) throw err;
        await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
      }
    }
  } finally {
    await admin.end();
  }
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Starts a harness; call `close()` in afterAll. */
export async function createHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const dbUrl = await cloneDatabase();
  const dataDir = await mkdtemp(path.join(tmpdir(), 'pigeon-h-'));
  // Every request of a test comes from 127.0.0.1 and a file signs up many users: the per-IP throttle of
  // the credential endpoints is off unless a test sets it.
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir,
    PORT: '0',
    AUTH_RATE_LIMIT_PER_IP: '0',
    ...opts.env,
  });
  // Pools as the service makes them (main.ts), smaller: many test files run at once.
  const { pool, db } = createApiDb(dbUrl, config, Math.min(10, config.API_DB_POOL_SIZE));
  const clock = new TestClock();
  const transport =
    opts.transport ??
    (config.SMTP_URL ? smtpTransport(config.SMTP_URL) : outboxTransport(path.join(dataDir, 'outbox')));
  const deps: Deps = {
    config,
    db,
    pool,
    clock,
    log: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
    transport,
    mailStaysLocal: opts.localSenderRule ? keepsMailLocal(transport) : false,
    secret: 'test-secret-test-secret-test-secret-0123456789',
    metrics: createMetrics(),
  };
  const routes: RouteOptions[] = [];
  // Strict responses: an answer its response schema would change fails the test (http/strict-serializer.ts).
  const app = await buildApp(deps, { strictResponses: true, onRoute: (r) => routes.push(r) });
  if (opts.routes) await app.register(async (scope) => opts.routes!(scope, deps));
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as { port: number }).port;
  const url = `http://127.0.0.1:${port}`;
  if (!opts.env?.PUBLIC_URL) (deps.config as { PUBLIC_URL: string }).PUBLIC_URL = url;
  const workerDeps: Deps | undefined = opts.worker
    ? { ...deps, ...createWorkerDb(dbUrl, config, Math.min(12, config.WORKER_DB_POOL_SIZE)) }
    : undefined;
  const worker = workerDeps ? await startWorker(workerDeps, 5) : undefined;

  return {
    url,
    deps,
    workerDeps,
    routes,
    app,
    clock,
    worker,
    dataDir,
    async sql(text, params) {
      return (await pool.query(text, params as unknown[])).rows;
    },
    async request(method, p, o = {}) {
      const headers: Record<string, string> = { ...o.headers };
      if (o.key) headers.authorization = `Bearer ${o.key}`;
      if (o.cookie) headers.cookie = o.cookie;
      let body: BodyInit | undefined;
      if (o.body !== undefined) {
        if (o.raw) body = o.body as BodyInit;
        else {
          body = JSON.stringify(o.body);
          headers['content-type'] ??= 'application/json';
        }
      }
      const res = await fetch(url + p, { method, headers, body, redirect: 'manual' });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        /* not JSON */
      }
      return { status: res.status, headers: res.headers, body: parsed as Json, text };
    },
    async close() {
      await worker?.stop();
      await app.close();
      await deps.transport.close();
      if (workerDeps) await closeTransports(workerDeps);
      await closeTransports(deps);
      await pool.end();
      await workerDeps?.pool.end();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
