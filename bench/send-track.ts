/**
 * `POST /v1/track` and `POST /v1/send` requests per second and p99, in one run, on a dedicated
 * database that is dropped at the end: Pigeon's full request path (request id, key auth, rate-limit
 * and idempotency hooks, zod validation, the service, the envelope) beside a bare Fastify route that
 * runs the same SQL (key look-up, the same upsert/insert functions, the job insert) with none of the
 * framework around it. Every request names a different contact, as real traffic does.
 * The outbox transport is configured and the worker is not started: this measures the API, whose
 * work for a send ends when the email row and its job are committed.
 * Run: npx tsx bench/send-track.ts   (DATABASE_URL: a server where the bench may create a database;
 * default postgres://postgres@127.0.0.1:5432/postgres; BENCH_SECONDS per target, default 10;
 * BENCH_CONNECTIONS, default 32; BENCH_SEND_RECIPIENTS, recipients of the many-recipient send, default 50)
 */
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import pino from 'pino';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { splitData } from '../src/contacts/contact-data.js';
import { upsertContact } from '../src/contacts/contacts.upsert.js';
import { projects } from '../src/db/schema.js';
import { sendEmailJob } from '../src/emails/emails.jobs.js';
import { getSenderChecks } from '../src/emails/emails.repo.js';
import { queueEmailSql } from '../src/emails/queue/queue.js';
import { outboxTransport } from '../src/emails/delivery/transport.js';
import { recordEvent } from '../src/events/emit.js';
import { systemClock } from '../src/lib/clock.js';
import { sha256 } from '../src/lib/crypto.js';
import { newId } from '../src/lib/ids.js';
import { createMetrics } from '../src/ops/metrics.js';
import { benchDatabase, BENCH_SERVER } from './bench-db.js';
import { report } from './report.js';

const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const MANY = Number(process.env.BENCH_SEND_RECIPIENTS ?? 50);
const bench = await benchDatabase('pigeon_bench_send');
const { pool, db } = bench;
const dataDir = `/tmp/${bench.name}`;

async function measure(url: string, key: string, body: (i: number) => unknown) {
  let i = 0;
  const r = await autocannon({
    url,
    method: 'POST',
    connections: CONNECTIONS,
    duration: DURATION,
    pipelining: 1,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    requests: [{ setupRequest: (req) => ({ ...req, body: JSON.stringify(body(i++)) }) }],
  });
  return { rps: r.requests.average, p99: r.latency.p99, errors: r.errors + r.non2xx };
}

try {
  const config = loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: dataDir, PORT: '0', RATE_LIMIT_PER_MINUTE: '0' });
  const deps = {
    config,
    db,
    pool,
    clock: systemClock,
    log: pino({ level: 'silent' }),
    transport: outboxTransport(`${dataDir}/outbox`),
    secret: 'x'.repeat(40),
    metrics: createMetrics(),
  };
  const app = await buildApp(deps);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;

  const signup = await fetch(`${base}/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'bench@example.test', password: 'correct horse battery' }),
  });
  const cookie = /session=[^;]+/.exec(signup.headers.get('set-cookie') ?? '')![0];
  const project = (await (
    await fetch(`${base}/users/@me/projects`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify({ name: 'bench' }),
    })
  ).json()) as { id: string; public: string; secret: string };
  const domain = 'bench.example.test';
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  await pool.query(
    `insert into domains (id, project_id, domain, dkim_selector, dkim_private_key, dkim_public_key, verified) values ($1, $2, $3, 'pigeon1', $4, $5, true)`,
    [
      randomUUID(),
      project.id,
      domain,
      privateKey.export({ type: 'pkcs8', format: 'pem' }),
      publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
    ],
  );

  // The bare routes: the same statements, no hooks, no validation, no envelope.
  const bare = Fastify();
  const projectByKey = async (req: { headers: Record<string, unknown> }, column: 'publicKeyHash' | 'secretKeyHash') => {
    const key = String(req.headers.authorization).slice('Bearer '.length);
    const [p] = await db
      .select({ id: projects.id })
      .from(projects)
      .where(eq(projects[column], sha256(key)))
      .limit(1);
    return p.id;
  };
  bare.post('/v1/track', async (req) => {
    const projectId = await projectByKey(req, 'publicKeyHash');
    const b = req.body as { email: string; event: string; data?: Record<string, unknown> };
    const data = splitData(b.data, { allowTransient: true, allowObjects: true });
    const now = new Date();
    return db.transaction(async (tx) => {
      const { contact } = await upsertContact(tx, {
        projectId,
        email: b.email,
        data,
        defaultSubscribed: true,
        origin: { source: 'track' },
        now,
      });
      const e = await recordEvent(tx, {
        projectId,
        contactId: contact.id,
        name: b.event,
        data: { ...data.set, ...data.transient },
        createdAt: now,
      });
      return { success: true, data: { contact: contact.id, event: e.id, timestamp: now.toISOString() } };
    });
  });
  bare.post('/v1/send', async (req) => {
    const projectId = await projectByKey(req, 'secretKeyHash');
    const b = req.body as { to: string; from: string; subject: string; body: string; data?: Record<string, unknown> };
    await getSenderChecks(db, projectId, [b.from]);
    const data = splitData(b.data, { allowTransient: true });
    const now = new Date();
    const id = newId();
    const { contact } = await upsertContact(
      db,
      { projectId, email: b.to, data, defaultSubscribed: false, origin: { source: 'api' }, now },
      queueEmailSql({
        id,
        projectId,
        contactId: sql`(select id from up)`,
        toEmail: sql`(select email from up)`,
        fromEmail: b.from,
        subject: b.subject,
        body: b.body,
        variables: { ...data.set, ...data.transient },
        type: 'TRANSACTIONAL',
        sourceType: 'TRANSACTIONAL',
        createdAt: now,
        updatedAt: now,
      }),
    );
    return {
      success: true,
      data: {
        emails: [{ contact: { id: contact.id, email: contact.email }, email: id }],
        timestamp: now.toISOString(),
      },
    };
  });
  // The floors: the least durable work a reply can stand for, one statement each (the contact upserted
  // and the event inserted; for a send, also the email row and its job), on a bare route with the key
  // resolved once at start.
  const floor = Fastify();
  const floorKeys = new Map([
    [project.public, project.id],
    [project.secret, project.id],
  ]);
  const floorProject = (req: { headers: Record<string, unknown> }) =>
    floorKeys.get(String(req.headers.authorization).slice('Bearer '.length))!;
  floor.post('/v1/track', async (req) => {
    const b = req.body as { email: string; event: string; data?: Record<string, unknown> };
    const r = await pool.query(
      `
      with c as (
        insert into contacts (id, project_id, email, data, subscribed) values ($1, $2, $3, $4::jsonb, true)
        on conflict (project_id, email) do update set data = contacts.data || excluded.data, updated_at = now()
        returning id)
      insert into events (id, project_id, contact_id, name, data) select $5, $2, c.id, $6, $4::jsonb from c returning contact_id`,
      [newId(), floorProject(req), b.email, JSON.stringify(b.data ?? {}), newId(), b.event],
    );
    return { success: true, data: { contact: r.rows[0].contact_id } };
  });
  floor.post('/v1/send', async (req) => {
    const b = req.body as { to: string; from: string; subject: string; body: string; data?: Record<string, unknown> };
    const id = newId();
    const r = await pool.query(
      `
      with c as (
        insert into contacts (id, project_id, email, data, subscribed) values ($1, $2, $3, '{}'::jsonb, false)
        on conflict (project_id, email) do update set updated_at = now()
        returning id, email),
      e as (
        insert into emails (id, project_id, contact_id, to_email, from_email, subject, body, variables, type, source_type)
        select $4, $2, c.id, c.email, $5, $6, $7, $8::jsonb, 'TRANSACTIONAL', 'TRANSACTIONAL' from c returning id)
      select graphile_worker.add_job($9::text, json_build_object('emailId', e.id), max_attempts => 10), (select id from c) as contact
      from e`,
      [
        newId(),
        floorProject(req),
        b.to,
        id,
        b.from,
        b.subject,
        b.body,
        JSON.stringify(b.data ?? {}),
        sendEmailJob.name,
      ],
    );
    return { success: true, data: { emails: [{ contact: { id: r.rows[0].contact }, email: id }] } };
  });
  await floor.listen({ port: 0, host: '127.0.0.1' });
  const floorBase = `http://127.0.0.1:${(floor.server.address() as { port: number }).port}`;

  await bare.listen({ port: 0, host: '127.0.0.1' });
  const bareBase = `http://127.0.0.1:${(bare.server.address() as { port: number }).port}`;

  const track = (tag: string) => (i: number) => ({
    email: `${tag}${i}@example.test`,
    event: 'bench-event',
    data: { plan: 'pro', n: i, ref: { value: 'x', persistent: false } },
  });
  const send = (tag: string) => (i: number) => ({
    to: `${tag}${i}@example.test`,
    from: `hello@${domain}`,
    subject: 'Order {{order}}',
    body: '<html><body><p>Hello {{name ?? "there"}}, your order {{order}} ships today.</p><a href="https://example.com/o">Track it</a></body></html>',
    data: { order: `A-${i}`, name: 'Bench' },
  });

  type M = Awaited<ReturnType<typeof measure>>;
  const rows: Array<[string, M, M, M]> = [];
  rows.push([
    'POST /v1/track',
    await measure(`${base}/v1/track`, project.public, track('pt')),
    await measure(`${bareBase}/v1/track`, project.public, track('bt')),
    await measure(`${floorBase}/v1/track`, project.public, track('ft')),
  ]);
  rows.push([
    'POST /v1/send',
    await measure(`${base}/v1/send`, project.secret, send('ps')),
    await measure(`${bareBase}/v1/send`, project.secret, send('bs')),
    await measure(`${floorBase}/v1/send`, project.secret, send('fs')),
  ]);

  // A request to many recipients: one row per recipient, all queued by one statement (emails/queue/queue.ts).
  const many = (tag: string) => (i: number) => ({
    ...send(tag)(i),
    to: Array.from({ length: MANY }, (_, k) => `${tag}${i}-${k}@example.test`),
  });
  const manyR = await measure(`${base}/v1/send`, project.secret, many('pm'));

  console.log(
    `${DURATION} s per target, ${CONNECTIONS} connections, PostgreSQL ${BENCH_SERVER.replace(/\/\/[^@]*@/, '//')}`,
  );
  for (const [name, pigeon, bareR, floorR] of rows) {
    console.log(name);
    console.log(`  pigeon:          ${pigeon.rps.toFixed(0)} req/s, p99 ${pigeon.p99} ms, errors ${pigeon.errors}`);
    console.log(`  bare fastify:    ${bareR.rps.toFixed(0)} req/s, p99 ${bareR.p99} ms, errors ${bareR.errors}`);
    console.log(`  one-statement:   ${floorR.rps.toFixed(0)} req/s, p99 ${floorR.p99} ms, errors ${floorR.errors}`);
    console.log(`  ratio to bare:   ${(pigeon.rps / bareR.rps).toFixed(2)}`);
    console.log(
      `  ratio to floor:  ${(pigeon.rps / floorR.rps).toFixed(2)} (p99 ${(pigeon.p99 / Math.max(floorR.p99, 1)).toFixed(1)}x)`,
    );
  }
  console.log(`POST /v1/send to ${MANY} recipients (pigeon only)`);
  console.log(
    `  pigeon:          ${manyR.rps.toFixed(0)} req/s = ${(manyR.rps * MANY).toFixed(0)} mails/s, p99 ${manyR.p99} ms, errors ${manyR.errors}`,
  );
  const [q] = (
    await pool.query(
      `select count(*)::int as emails, (select count(*)::int from graphile_worker._private_jobs) as jobs from emails`,
    )
  ).rows;
  console.log(`rows made: ${q.emails} emails, ${q.jobs} queued jobs`);
  await app.close();
  await bare.close();
  await floor.close();
  report({
    bench: 'send-track',
    rows: [
      ...rows.flatMap(([name, p, , f]) => [
        {
          name: `${name}, ${CONNECTIONS} connections${p.errors ? `, ${p.errors} errors` : ''}`,
          pigeon: { value: p.rps, unit: 'req/s' },
          baseline: { name: 'one-statement floor', value: f.rps, unit: 'req/s' },
          target: { of: 'ratio' as const, min: name.endsWith('track') ? 0.8 : 0.9 },
        },
        {
          name: `${name}, p99`,
          pigeon: { value: p.p99, unit: 'ms' },
          baseline: { name: 'one-statement floor', value: f.p99, unit: 'ms' },
        },
      ]),
      { name: `POST /v1/send to ${MANY} recipients`, pigeon: { value: manyR.rps * MANY, unit: 'mails/s' } },
    ],
  });
} finally {
  await bench.drop();
}
