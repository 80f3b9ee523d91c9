/**
 * Event webhooks under load: N tracked events (default 10,000, `POST /v1/track`) fanned out to 3
 * endpoints subscribed to the event's name, on a receiver on 127.0.0.1 answering 200. One process
 * runs the API and the worker (PROCESS_ROLE=all, worker concurrency `BENCH_CONCURRENCY`, default 10)
 * over a fresh database on the given server. Reports the track rate, deliveries per second (first
 * event to last delivery) and the lag of each delivery (arrival at the receiver minus the event's
 * timestamp) at p50 and p99. Each endpoint is a Graphile queue of its own, so at most 3 deliveries
 * run at once here: the figure is per-endpoint ordered throughput.
 * Run: npx tsx bench/webhooks.ts   (DATABASE_URL default postgres://postgres@127.0.0.1:5432/postgres;
 *      BENCH_EVENTS, BENCH_CONNECTIONS (track calls in flight, default 20), BENCH_CONCURRENCY)
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import type { Deps } from '../src/deps.js';
import { outboxTransport } from '../src/emails/delivery/transport.js';
import { systemClock } from '../src/lib/clock.js';
import { createMetrics } from '../src/ops/metrics.js';
import { startReceiver } from '../test/webhook-receiver.js';
import { startWorker } from '../src/worker/runner.js';
import { benchDatabase } from './bench-db.js';

const N = Number(process.env.BENCH_EVENTS ?? 10_000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 10);
const ENDPOINTS = 3;

const bench = await benchDatabase('pigeon_bench_wh');
const { pool, db } = bench;
const dataDir = await mkdtemp(path.join(tmpdir(), 'pigeon-bench-wh-'));
const config = loadConfig({
  LOG_LEVEL: 'silent',
  DATA_DIR: dataDir,
  PORT: '0',
  RATE_LIMIT_PER_MINUTE: '0',
  WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true',
});
const deps: Deps = {
  config,
  db,
  pool,
  clock: systemClock,
  log: pino({ level: 'silent' }),
  transport: outboxTransport(path.join(dataDir, 'outbox')),
  secret: 'bench-secret-bench-secret-bench-secret-0123',
  metrics: createMetrics(),
};
const rx = await startReceiver();
const app = await buildApp(deps);
await app.listen({ port: 0, host: '127.0.0.1' });
const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
const call = async (method: string, p: string, body: unknown, headers: Record<string, string> = {}) => {
  const res = await fetch(base + p, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${text}`);
  return { json: text ? JSON.parse(text) : undefined, headers: res.headers };
};

const signup = await call('POST', '/auth/signup', {
  email: `bench-${randomUUID().slice(0, 8)}@example.test`,
  password: 'correct horse battery',
});
const cookie = /session=[^;]+/.exec(signup.headers.get('set-cookie') ?? '')![0];
const project = (await call('POST', '/users/@me/projects', { name: 'bench' }, { cookie })).json;
for (let i = 0; i < ENDPOINTS; i++) {
  await call(
    'POST',
    '/webhook-endpoints',
    { url: `${rx.base}/hook${i}`, events: ['bench.event'] },
    { authorization: `Bearer ${project.secret}` },
  );
}
// Contacts exist beforehand, so each track call writes exactly one event (no contact.created).
await pool.query(
  `insert into contacts (id, project_id, email, subscribed, data)
  select gen_random_uuid(), $1, 'c' || i || '@bench.test', true, '{}' from generate_series(1, 100) i`,
  [project.id],
);

const worker = await startWorker(deps, CONCURRENCY);
const t0 = performance.now();
let next = 0;
await Promise.all(
  Array.from({ length: CONNECTIONS }, async () => {
    for (let i = next++; i < N; i = next++) {
      await call(
        'POST',
        '/v1/track',
        { email: `c${(i % 100) + 1}@bench.test`, event: 'bench.event', data: { i } },
        { authorization: `Bearer ${project.public}` },
      );
    }
  }),
);
const trackedMs = performance.now() - t0;
const want = N * ENDPOINTS;
for (let last = -1, still = 0; rx.received.length < want;) {
  await new Promise((r) => setTimeout(r, 200));
  still = rx.received.length === last ? still + 1 : 0;
  last = rx.received.length;
  if (still > 150) throw new Error(`stalled at ${last} of ${want} deliveries`);
}
const doneMs = performance.now() - t0;
const lags = rx.received.map((r) => r.at - Date.parse(JSON.parse(r.body).timestamp)).sort((a, b) => a - b);
const pct = (q: number) => lags[Math.min(lags.length - 1, Math.floor(q * lags.length))];
const [{ ok }] = (
  await pool.query(`select count(*) filter (where status = 'SUCCEEDED')::int as ok from webhook_deliveries`)
).rows;

console.log(
  `events: ${N} tracked in ${(trackedMs / 1000).toFixed(1)} s (${Math.round(N / (trackedMs / 1000))}/s, ${CONNECTIONS} in flight)`,
);
console.log(
  `deliveries: ${rx.received.length} received (${ok} SUCCEEDED rows) in ${(doneMs / 1000).toFixed(1)} s: ${Math.round(want / (doneMs / 1000))} deliveries/s`,
);
console.log(
  `lag (event timestamp → receiver): p50 ${pct(0.5)} ms, p99 ${pct(0.99)} ms, max ${lags[lags.length - 1]} ms`,
);

await worker.stop();
await app.close();
await rx.close();
await deps.transport.close();
await bench.drop();
await rm(dataDir, { recursive: true, force: true });
