/**
 * Event webhooks: the worker's dispatcher beside a bare loop, in one run, on a fresh database of the
 * given server, with a receiver on 127.0.0.1 that answers 200 after 20 ms (test/webhook-receiver.ts).
 *
 * 1. Rate: a backlog of BENCH_BACKLOG (default 5,000) tracked events queued for one endpoint
 *    (concurrency BENCH_ENDPOINT_CONCURRENCY, default 8) is delivered by the dispatcher; then a bare loop
 *    signs (Standard Webhooks, the same library) and POSTs the same payloads with the same concurrency,
 *    reading nothing and recording nothing. Deliveries a second and the ratio.
 * 2. Lag: BENCH_RATE (default 100) `POST /v1/track` a second for BENCH_SECONDS (default 10), open loop,
 *    to one endpoint; lag = arrival at the receiver − the event's timestamp, p50 / p99 / max.
 * 3. Isolation: the same, with a second endpoint subscribed to the same events whose receiver answers
 *    after 2 s: the first endpoint's lag should not change.
 * Run: npx tsx bench/webhooks.ts   (DATABASE_URL default postgres://postgres@127.0.0.1:5432/postgres)
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import type { Deps } from '../src/deps.js';
import { outboxTransport } from '../src/emails/delivery/transport.js';
import { systemClock } from '../src/lib/clock.js';
import { createMetrics } from '../src/ops/metrics.js';
import { WebhookDispatcher } from '../src/webhook-endpoints/dispatch/dispatcher.js';
import { startReceiver } from '../test/webhook-receiver.js';
import { benchDatabase } from './bench-db.js';
import { report } from './report.js';

const BACKLOG = Number(process.env.BENCH_BACKLOG ?? 5_000);
const RATE = Number(process.env.BENCH_RATE ?? 100);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONCURRENCY = Number(process.env.BENCH_ENDPOINT_CONCURRENCY ?? 8);
const RECEIVER_MS = 20;

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
const secretKey = { authorization: `Bearer ${project.secret}` };
const endpoint = async (p: string, event: string) =>
  (
    await call(
      'POST',
      '/webhook-endpoints',
      { url: `${rx.base}${p}`, events: [event], concurrency: CONCURRENCY },
      secretKey,
    )
  ).json as { id: string; secret: string };
// Contacts exist beforehand, so each track call writes exactly one event (no contact.created).
await pool.query(
  `insert into contacts (id, project_id, email, subscribed, data)
  select gen_random_uuid(), $1, 'c' || i || '@bench.test', true, '{}' from generate_series(1, 1000) i`,
  [project.id],
);
const track = (event: string, i: number) =>
  call(
    'POST',
    '/v1/track',
    { email: `c${(i % 1000) + 1}@bench.test`, event, data: { i } },
    {
      authorization: `Bearer ${project.public}`,
    },
  );
const waitFor = async (what: string, done: () => boolean) => {
  for (let last = -1, still = 0; !done();) {
    await new Promise((r) => setTimeout(r, 20));
    still = rx.received.length === last ? still + 1 : 0;
    last = rx.received.length;
    if (still > 1500) throw new Error(`stalled waiting for ${what}`);
  }
};
const pct = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};
const lagsOf = (p: string) => rx.at(p).map((r) => r.at - Date.parse(JSON.parse(r.body).timestamp));

// 1. Rate: the backlog, queued while no dispatcher runs.
const ratePath = `/slow-${RECEIVER_MS}/rate`;
const rateEp = await endpoint(ratePath, 'rate.event');
let next = 0;
await Promise.all(
  Array.from({ length: 20 }, async () => {
    for (let i = next++; i < BACKLOG; i = next++) await track('rate.event', i);
  }),
);
const dispatcher = new WebhookDispatcher(deps);
let t = performance.now();
await dispatcher.start();
await waitFor('the backlog', () => rx.at(ratePath).length >= BACKLOG);
const pigeonRate = BACKLOG / ((performance.now() - t) / 1000);
const [{ ok }] = (
  await pool.query(
    `select count(*) filter (where status = 'SUCCEEDED')::int as ok from webhook_deliveries where endpoint_id = $1`,
    [rateEp.id],
  )
).rows;

const rows = (
  await pool.query(`select id, payload from webhook_deliveries where endpoint_id = $1 order by id`, [rateEp.id])
).rows as Array<{ id: string; payload: { type: string; timestamp: string; data: unknown } }>;
const signer = new Webhook(rateEp.secret);
const agent = new http.Agent({ keepAlive: true });
const barePost = (id: string, body: string) =>
  new Promise<void>((resolve, reject) => {
    const now = new Date();
    const req = http.request(
      `${rx.base}/slow-${RECEIVER_MS}/bare`,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'webhook-id': id,
          'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
          'webhook-signature': signer.sign(id, now, body),
        },
      },
      (res) => {
        res.resume();
        res.on('end', resolve);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
t = performance.now();
next = 0;
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    for (let i = next++; i < rows.length; i = next++) {
      const p = rows[i].payload;
      await barePost(rows[i].id, JSON.stringify({ type: p.type, timestamp: p.timestamp, data: p.data }));
    }
  }),
);
const bareRate = rows.length / ((performance.now() - t) / 1000);

// 2 and 3. Lag at a steady rate, alone and beside a slow endpoint.
const steady = async (event: string) => {
  const n = RATE * SECONDS;
  const start = performance.now();
  const calls: Promise<unknown>[] = [];
  for (let i = 0; i < n; i++) {
    const wait = start + (i * 1000) / RATE - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    calls.push(track(event, i));
  }
  await Promise.all(calls);
  return n;
};
const lagPath = `/slow-${RECEIVER_MS}/lag`;
await endpoint(lagPath, 'lag.event');
const lagN = await steady('lag.event');
await waitFor('the lag run', () => rx.at(lagPath).length >= lagN);
const lag = lagsOf(lagPath);

const isoPath = `/slow-${RECEIVER_MS}/iso`;
const slowPath = '/slow-2000/beside';
await endpoint(isoPath, 'iso.event');
await endpoint(slowPath, 'iso.event');
const isoN = await steady('iso.event');
await waitFor('the isolation run', () => rx.at(isoPath).length >= isoN);
const iso = lagsOf(isoPath);
const slowGot = rx.at(slowPath).length;

console.log(
  `rate: ${BACKLOG} queued deliveries to one endpoint (concurrency ${CONCURRENCY}, receiver ${RECEIVER_MS} ms): Pigeon ${Math.round(pigeonRate)}/s (${ok} SUCCEEDED rows), bare sign+POST loop ${Math.round(bareRate)}/s: ${(pigeonRate / bareRate).toFixed(2)}×`,
);
console.log(
  `lag at ${RATE} events/s for ${SECONDS} s, one endpoint: p50 ${pct(lag, 0.5)} ms, p99 ${pct(lag, 0.99)} ms, max ${Math.max(...lag)} ms`,
);
console.log(
  `same beside an endpoint answering in 2 s (it got ${slowGot} of ${isoN} meanwhile): p50 ${pct(iso, 0.5)} ms, p99 ${pct(iso, 0.99)} ms, max ${Math.max(...iso)} ms`,
);

await dispatcher.stop();
await app.close();
await rx.close();
agent.destroy();
await deps.transport.close();
await bench.drop();
await rm(dataDir, { recursive: true, force: true });
report({
  bench: 'webhooks',
  rows: [
    {
      name: `${BACKLOG.toLocaleString('en-US')} queued deliveries, one endpoint`,
      pigeon: { value: pigeonRate, unit: 'deliveries/s' },
      baseline: { name: 'bare sign+POST loop', value: bareRate, unit: 'deliveries/s' },
      target: { of: 'ratio', min: 0.8 },
    },
    { name: `lag at ${RATE} events/s, p50`, pigeon: { value: pct(lag, 0.5), unit: 'ms' } },
    {
      name: `lag at ${RATE} events/s, p99`,
      pigeon: { value: pct(lag, 0.99), unit: 'ms' },
      target: { of: 'pigeon', max: 2000 },
    },
    {
      name: 'lag p99 beside a 2 s endpoint',
      pigeon: { value: pct(iso, 0.99), unit: 'ms' },
      baseline: { name: 'alone', value: pct(lag, 0.99), unit: 'ms' },
    },
  ],
});
