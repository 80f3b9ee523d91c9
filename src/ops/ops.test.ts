import { networkInterfaces } from 'node:os';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { createVerifiedDomain, eventually } from '../../test/sending-fixtures.js';
import { startSmtpSink, type SmtpSink } from '../../test/smtp-sink.js';
import { freePort } from '../lib/net.js';
import { metricsAllowed, type OpsContext } from './checks.js';
import { startOpsServer, type OpsServer } from './ops-server.js';

/** A sample's value in Prometheus text format, or undefined: `name{labels} value`. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name + '{') && !line.startsWith(name + ' ')) continue;
    const m = /^([^{\s]+)(?:\{(.*)\})?\s+(\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(m[3]);
  }
  return undefined;
}

describe('GET /metrics', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(async () => h?.close());

  it('reports request durations by route pattern, pools, the job queue and the emails in flight', async () => {
    const p = await createProject(h);
    const contact = await h.request('POST', '/contacts', { key: p.secretKey, body: { email: 'metrics@example.test' } });
    expect(contact.status).toBe(201);
    expect((await h.request('GET', `/contacts/${contact.body.id}`, { key: p.secretKey })).status).toBe(200);
    await h.sql(
      `select graphile_worker.add_job('cleanup:idempotency-keys', '{}'::json, run_at => now() + interval '1 hour')`,
    );
    h.deps.metrics.addPool('api', h.deps.pool);
    h.deps.metrics.setQueueSource(h.deps.pool);

    const res = await h.request('GET', '/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    // The pattern, never the id: one series per route.
    expect(
      sample(res.text, 'pigeon_http_request_duration_seconds_count', {
        method: 'GET',
        route: '/contacts/:id',
        status: '200',
      }),
    ).toBe(1);
    expect(res.text).not.toContain(contact.body.id);
    expect(
      sample(res.text, 'pigeon_http_request_duration_seconds_count', {
        method: 'POST',
        route: '/contacts',
        status: '201',
      }),
    ).toBe(1);
    expect(sample(res.text, 'pigeon_db_pool_connections', { pool: 'api', state: 'total' })).toBeGreaterThan(0);
    expect(sample(res.text, 'pigeon_jobs', { task: 'cleanup:idempotency-keys', state: 'scheduled' })).toBe(1);
    expect(sample(res.text, 'pigeon_emails_in_flight', { status: 'PENDING' })).toBe(0);
    expect(sample(res.text, 'pigeon_process_resident_memory_bytes', {})).toBeGreaterThan(0);
  });
});

describe('GET /metrics of a worker that sends', () => {
  let h: Harness;
  let sink: SmtpSink;
  beforeAll(async () => {
    sink = await startSmtpSink({ onRcpt: (a) => (a.startsWith('gone') ? [550, '5.1.1 No such user'] : undefined) });
    h = await createHarness({ env: { SMTP_URL: sink.url }, worker: true });
  });
  afterAll(async () => {
    await h?.close();
    await sink?.close();
  });

  it('counts SMTP hand-offs by outcome, email transitions and jobs by task', async () => {
    const p = await createProject(h);
    const d = await createVerifiedDomain(h, p.id);
    for (const to of ['here@example.test', 'gone@example.test']) {
      const res = await h.request('POST', '/v1/send', {
        key: p.secretKey,
        body: { to, from: `hi@${d.domain}`, subject: 'Hi', body: '<p>Hi</p>' },
      });
      expect(res.status).toBe(200);
    }
    const metric = async (name: string, labels: Record<string, string>) =>
      sample((await h.request('GET', '/metrics')).text, name, labels);
    await eventually(
      async () => (await metric('pigeon_email_transitions_total', { to: 'BOUNCED' })) === 1 || undefined,
    );
    await eventually(
      async () => (await metric('pigeon_email_transitions_total', { to: 'DELIVERED' })) === 1 || undefined,
    );
    expect(await metric('pigeon_smtp_send_duration_seconds_count', { outcome: 'delivered' })).toBe(1);
    expect(await metric('pigeon_smtp_send_duration_seconds_count', { outcome: 'bounced' })).toBe(1);
    await eventually(
      async () =>
        (await metric('pigeon_job_duration_seconds_count', { task: 'emails:send', outcome: 'success' })) === 2 ||
        undefined,
    );
  });
});

describe('GET /metrics with METRICS_TOKEN', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ env: { METRICS_TOKEN: 'a-long-metrics-token-0123' } });
  });
  afterAll(async () => h?.close());

  it('wants the bearer token', async () => {
    expect((await h.request('GET', '/metrics')).status).toBe(401);
    const wrong = await h.request('GET', '/metrics', {
      headers: { authorization: 'Bearer a-long-metrics-token-0124' },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('UNAUTHORIZED');
    const right = await h.request('GET', '/metrics', {
      headers: { authorization: 'Bearer a-long-metrics-token-0123' },
    });
    expect(right.status).toBe(200);
    expect(right.text).toContain('pigeon_http_request_duration_seconds');
  });
});

describe('GET /ready', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(async () => h?.close());

  it('is ready with the database up and every migration applied; 503 naming the check that failed', async () => {
    const ok = await h.request('GET', '/ready');
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ ready: true, checks: { database: 'ok', migrations: 'ok', worker: 'not run' } });

    // A database migrated by an older version: its newest migration is missing.
    const [last] = await h.sql(
      `delete from drizzle.__drizzle_migrations where id = (select max(id) from drizzle.__drizzle_migrations) returning *`,
    );
    try {
      const stale = await h.request('GET', '/ready');
      expect(stale.status).toBe(503);
      expect(stale.body).toEqual({ ready: false, checks: { database: 'ok', migrations: 'failed', worker: 'not run' } });
    } finally {
      await h.sql(`insert into drizzle.__drizzle_migrations (id, hash, created_at) values ($1, $2, $3)`, [
        last.id,
        last.hash,
        last.created_at,
      ]);
    }
    expect((await h.request('GET', '/ready')).status).toBe(200);
  });
});

// The worker process's own server (no Fastify): the same answers as the API's routes, in the same envelope.
describe("the worker's operations server", () => {
  let h: Harness;
  let server: OpsServer;
  let base: string;
  beforeAll(async () => {
    h = await createHarness();
    server = await startOpsServer(
      {
        metrics: h.deps.metrics,
        pool: h.deps.pool,
        metricsToken: 'a-long-metrics-token-0123',
        workerRunning: () => true,
      },
      { port: 0, host: '127.0.0.1' },
      h.deps.log,
      () => new Date(),
    );
    base = `http://127.0.0.1:${server.port}`;
  });
  afterAll(async () => {
    await server?.close();
    await h?.close();
  });

  it('answers /health, /ready and /metrics (with its token), and 404 in the error envelope otherwise', async () => {
    const health = await fetch(`${base}/health`);
    expect([health.status, await health.json()]).toEqual([200, { ok: true }]);
    const ready = await fetch(`${base}/ready?probe=1`);
    expect([ready.status, await ready.json()]).toEqual([
      200,
      { ready: true, checks: { database: 'ok', migrations: 'ok', worker: 'ok' } },
    ]);

    const denied = await fetch(`${base}/metrics`, { headers: { authorization: 'Bearer a-long-metrics-token-0124' } });
    const deniedBody = await denied.json();
    expect(denied.status).toBe(401);
    expect(deniedBody).toMatchObject({ success: false, error: { code: 'UNAUTHORIZED', statusCode: 401 } });
    expect(typeof deniedBody.error.requestId).toBe('string');
    const metrics = await fetch(`${base}/metrics`, { headers: { authorization: 'Bearer a-long-metrics-token-0123' } });
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await metrics.text()).toContain('pigeon_db_pool_connections');
    const head = await fetch(`${base}/health`, { method: 'HEAD' });
    expect([head.status, await head.text()]).toEqual([200, '']);

    const missing = await fetch(`${base}/config`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({
      success: false,
      error: { code: 'RESOURCE_NOT_FOUND', message: 'Route GET /config not found' },
    });
    const post = await fetch(`${base}/ready`, { method: 'POST' });
    expect(post.status).toBe(404);
    expect(await post.json()).toMatchObject({
      success: false,
      error: { code: 'RESOURCE_NOT_FOUND', statusCode: 404, message: 'Route POST /ready not found' },
    });
  });

  it('is not ready, with 503, when the worker stopped; /health fails with 500 when the database is gone', async () => {
    // Nothing listens on that port: every query fails to connect.
    const pool = new pg.Pool({
      host: '127.0.0.1',
      port: await freePort(),
      user: 'postgres',
      connectionTimeoutMillis: 2000,
    });
    const down = await startOpsServer(
      { metrics: h.deps.metrics, pool, workerRunning: () => false },
      { port: 0, host: '127.0.0.1' },
      h.deps.log,
      () => new Date(),
    );
    try {
      const ready = await fetch(`http://127.0.0.1:${down.port}/ready`);
      expect([ready.status, await ready.json()]).toEqual([
        503,
        { ready: false, checks: { database: 'failed', migrations: 'failed', worker: 'failed' } },
      ]);
      const health = await fetch(`http://127.0.0.1:${down.port}/health`);
      expect(health.status).toBe(500);
      expect(await health.json()).toMatchObject({ success: false, error: { code: 'INTERNAL_SERVER_ERROR' } });
    } finally {
      await down.close();
      await pool.end();
    }
  });
});

/** `/metrics` without METRICS_TOKEN is for this machine only (finding 12 of "Hardening II"). */
describe('GET /metrics without METRICS_TOKEN', () => {
  let h: Harness;
  let server: OpsServer;
  beforeAll(async () => {
    h = await createHarness();
    // Listening on every address, so that the same machine can reach it from a non-loopback one.
    server = await startOpsServer(
      { metrics: h.deps.metrics, pool: h.deps.pool, workerRunning: () => true },
      { port: 0, host: '0.0.0.0' },
      h.deps.log,
      () => new Date(),
    );
  });
  afterAll(async () => {
    await server?.close();
    await h?.close();
  });

  it('answers a loopback client and refuses any other with a sentence saying what to set', async () => {
    expect((await h.request('GET', '/metrics')).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${server.port}/metrics`)).status).toBe(200);
    expect(metricsAllowed({ metricsToken: undefined } as OpsContext, undefined, '::ffff:127.0.0.1')).toBe(true);
    expect(metricsAllowed({ metricsToken: undefined } as OpsContext, undefined, '192.0.2.7')).toBe(false);
    // A real peer that is not loopback: this machine through one of its other addresses.
    const external = Object.values(networkInterfaces())
      .flat()
      .find((a) => a && !a.internal && a.family === 'IPv4');
    expect(external, 'a non-loopback IPv4 address on this machine').toBeDefined();
    const res = await fetch(`http://${external!.address}:${server.port}/metrics`);
    expect(res.status).toBe(401);
    expect((await res.json()).error.message).toMatch(/set METRICS_TOKEN/);
  });
});
