/**
 * GET /config requests per second: Pigeon (full stack: request id, auth hook, rate-limit hook, error
 * handler, zod serializer) beside a bare Fastify route answering the same JSON, in one run.
 * Run: npx tsx bench/config.ts   (needs DATABASE_URL or starts nothing else: /config reads no database)
 */
import autocannon from 'autocannon';
import Fastify from 'fastify';
import pino from 'pino';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createDb } from '../src/db/pool.js';
import { outboxTransport } from '../src/emails/delivery/transport.js';
import { createMetrics } from '../src/ops/metrics.js';
import { systemClock } from '../src/lib/clock.js';

const DURATION = Number(process.env.BENCH_SECONDS ?? 10);

async function measure(url: string) {
  const r = await autocannon({ url, connections: 50, duration: DURATION, pipelining: 1 });
  return { rps: r.requests.average, p99: r.latency.p99, errors: r.errors + r.non2xx };
}

const config = loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: '/tmp/pigeon-bench-config', PORT: '0' });
// /config touches no database; the pool is created but never used.
const { pool, db } = createDb(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres', 2);
const app = await buildApp({
  config,
  db,
  pool,
  clock: systemClock,
  log: pino({ level: 'silent' }),
  transport: outboxTransport('/tmp/pigeon-bench-config/outbox'),
  secret: 'x'.repeat(40),
  metrics: createMetrics(),
});
await app.listen({ port: 0, host: '127.0.0.1' });
const body = await (await fetch(`http://127.0.0.1:${(app.server.address() as { port: number }).port}/config`)).json();

const bare = Fastify();
bare.get('/config', async () => body);
await bare.listen({ port: 0, host: '127.0.0.1' });

const pigeon = await measure(`http://127.0.0.1:${(app.server.address() as { port: number }).port}/config`);
const baseline = await measure(`http://127.0.0.1:${(bare.server.address() as { port: number }).port}/config`);
console.log(`GET /config, ${DURATION} s, 50 connections`);
console.log(`  pigeon:        ${pigeon.rps.toFixed(0)} req/s, p99 ${pigeon.p99} ms, errors ${pigeon.errors}`);
console.log(`  bare fastify:  ${baseline.rps.toFixed(0)} req/s, p99 ${baseline.p99} ms, errors ${baseline.errors}`);
console.log(`  ratio:         ${(pigeon.rps / baseline.rps).toFixed(2)}`);
await app.close();
await bare.close();
await pool.end();
