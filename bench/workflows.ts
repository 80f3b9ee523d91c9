/**
 * Workflows under load: N contacts (default 10,000) enter a 3-step workflow
 * (SEND_EMAIL → DELAY 1 day → SEND_EMAIL) from events tracked over HTTP with `POST /v1/track`.
 * Reports the track rate, executions started per second and the time until every contact's first
 * mail was accepted by the SMTP sink, over a fresh database on the given server. Set up as
 * bench/campaign.ts is, so the two rates compare: the worker is the entry point in its own process
 * (`PROCESS_ROLE=worker`, as `npm start` runs it from dist/; worker concurrency 10, SMTP pool 5, DKIM),
 * delivering to a local SMTP sink that accepts and counts; the API runs in this process.
 * BENCH_OUTBOX=1 runs the worker in this process instead, writing the mail to an outbox directory
 * (what this bench did before 2026-11-26: DKIM signing then runs on the API's thread).
 * Run: npx tsx bench/workflows.ts   (DATABASE_URL default postgres://postgres@127.0.0.1:5432/postgres;
 *      BENCH_CONTACTS, BENCH_CONNECTIONS (default 50), BENCH_CONCURRENCY (in-process worker, default 10))
 */
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { SMTPServer } from 'smtp-server';
import { buildApp } from '../src/app.js';
import { freePort } from '../src/lib/net.js';
import { cpuSeconds, spawnPigeon } from './pigeon-process.js';
import { loadConfig } from '../src/config.js';
import type { Deps } from '../src/deps.js';
import { outboxTransport } from '../src/emails/delivery/transport.js';
import { systemClock } from '../src/lib/clock.js';
import { startWorker } from '../src/worker/runner.js';
import { createMetrics } from '../src/ops/metrics.js';
import { benchDatabase } from './bench-db.js';

const N = Number(process.env.BENCH_CONTACTS ?? 10_000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 10);
const OUTBOX = !!process.env.BENCH_OUTBOX;
const bench = await benchDatabase('pigeon_bench_wf');
const { pool, db } = bench;
// A sink that accepts and counts, as bench/campaign.ts's.
let received = 0;
const sink = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  size: 10 * 1024 * 1024,
  onData(stream, _session, cb) {
    stream.on('data', () => undefined);
    stream.on('end', () => {
      received++;
      cb();
    });
  },
});
await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
const smtpUrl = `smtp://127.0.0.1:${(sink.server.address() as { port: number }).port}?pool=5`;
const dataDir = await mkdtemp(path.join(tmpdir(), 'pigeon-bench-wf-'));
const config = loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: dataDir, PORT: '0', RATE_LIMIT_PER_MINUTE: '0' });
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

// Setup through the API where it exists; the verified domain and the template as rows.
const signup = await call('POST', '/auth/signup', {
  email: `bench-${randomUUID().slice(0, 8)}@example.test`,
  password: 'correct horse battery',
});
const cookie = /session=[^;]+/.exec(signup.headers.get('set-cookie') ?? '')![0];
const project = (await call('POST', '/users/@me/projects', { name: 'bench' }, { cookie })).json;
const sk = { authorization: `Bearer ${project.secret}` };
const domain = 'bench.example.test';
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
await pool.query(
  `insert into domains (id, project_id, domain, dkim_selector, dkim_private_key, dkim_public_key, verified, records, verified_at)
  values ($1, $2, $3, 'pigeon1', $4, $5, true, '[]', now())`,
  [
    randomUUID(),
    project.id,
    domain,
    privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
  ],
);
const templates = [randomUUID(), randomUUID()];
for (const [i, id] of templates.entries()) {
  await pool.query(
    `insert into templates (id, project_id, name, subject, body, "from", type) values ($1, $2, $3, $4, $5, $6, 'TRANSACTIONAL')`,
    [id, project.id, `t${i}`, i ? 'Day two' : 'Welcome {{name}}', '<p>Hello {{name}}</p>', `hi@${domain}`],
  );
}
const wf = (await call('POST', '/workflows', { name: 'Welcome', eventName: 'signup' }, sk)).json;
const step = async (type: string, config: unknown) =>
  (await call('POST', `/workflows/${wf.id}/steps`, { type, name: type, config }, sk)).json.id;
const send = await step('SEND_EMAIL', { templateId: templates[0] });
const delay = await step('DELAY', { amount: 1, unit: 'days' });
const later = await step('SEND_EMAIL', { templateId: templates[1] });
for (const [from, to] of [
  [wf.steps[0].id, send],
  [send, delay],
  [delay, later],
]) {
  await call('POST', `/workflows/${wf.id}/transitions`, { fromStepId: from, toStepId: to }, sk);
}
await fetch(`${base}/workflows/${wf.id}`, {
  method: 'PATCH',
  headers: { 'content-type': 'application/json', ...sk },
  body: JSON.stringify({ enabled: true }),
});

// The worker: its own process delivering to the sink, or (BENCH_OUTBOX=1) this one writing the outbox.
// BENCH_WORKER_NODE_ARGS: extra node flags for the worker process, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
const nodeArgs = (process.env.BENCH_WORKER_NODE_ARGS ?? '').split(' ').filter(Boolean);
const workerProcess = OUTBOX
  ? null
  : spawnPigeon({ role: 'worker', dbUrl: bench.url, smtpUrl, dataDir, port: await freePort(), nodeArgs });
const worker = OUTBOX ? await startWorker(deps, CONCURRENCY) : null;
if (workerProcess) {
  // Up once its Graphile listener is connected, so its start-up is not measured.
  for (let i = 0; i < 600; i++) {
    const r = await pool.query(
      `select count(*)::int as n from pg_stat_activity where datname = $1 and pid <> pg_backend_pid() and query ilike 'listen%'`,
      [bench.name],
    );
    if (r.rows[0].n > 0) break;
    await new Promise((res) => setTimeout(res, 100));
  }
}
const count = async (q: string) => Number((await pool.query(q, [wf.id])).rows[0].n);
const cpu0 = cpuSeconds(workerProcess?.pid);
const t0 = performance.now();
let executionsAt = 0;
let mailsAt = 0;
const poll = (async () => {
  for (;;) {
    await new Promise((r) => setTimeout(r, 200));
    if (!executionsAt && (await count(`select count(*) as n from workflow_executions where workflow_id = $1`)) >= N)
      executionsAt = performance.now();
    // The sink's count while mail arrives (a join over every email each 200 ms cost the database
    // ~13 % of its time at 3,000 contacts, slowing what it measured); the rows are checked once it
    // has them all.
    if (!OUTBOX && received < N) continue;
    if (
      (await count(`select count(*) as n from emails e join workflow_executions x on x.id = e.workflow_execution_id
        where x.workflow_id = $1 and e.status in ('SENT', 'DELIVERED')`)) >= N
    ) {
      mailsAt = performance.now();
      return;
    }
  }
})();

let next = 0;
await Promise.all(
  Array.from({ length: CONNECTIONS }, async () => {
    while (next < N) {
      const i = next++;
      const res = await fetch(`${base}/v1/track`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${project.public}` },
        body: JSON.stringify({ email: `c${i}@example.test`, event: 'signup', data: { name: `C${i}` } }),
      });
      if (res.status !== 200) throw new Error(`track ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
    }
  }),
);
const trackedAt = performance.now();
await poll;
if (!executionsAt) executionsAt = performance.now();
const files = OUTBOX ? (await readdir(path.join(dataDir, 'outbox'))).length : received;
const cpuUsed = cpuSeconds(workerProcess?.pid) - cpu0;
const peakRss = workerProcess
  ? Number(/VmHWM:\s+(\d+) kB/.exec(await readFile(`/proc/${workerProcess.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024
  : 0;
const waiting = await count(
  `select count(*) as n from workflow_executions where workflow_id = $1 and status = 'WAITING' and current_step_id = '${delay}'`,
);

const s = (ms: number) => (ms / 1000).toFixed(1);
console.log(
  `${N} contacts enter SEND_EMAIL → DELAY 1 day → SEND_EMAIL from /v1/track (${CONNECTIONS} connections; ` +
    (OUTBOX
      ? `worker in this process, concurrency ${CONCURRENCY}, outbox)`
      : 'worker process as npm start runs it, SMTP sink, pool 5)'),
);
console.log(`  tracked:            ${s(trackedAt - t0)} s (${(N / ((trackedAt - t0) / 1000)).toFixed(0)} events/s)`);
console.log(
  `  executions started: all ${N} after ${s(executionsAt - t0)} s (${(N / ((executionsAt - t0) / 1000)).toFixed(0)} executions/s)`,
);
console.log(
  `  first mail sent:    all ${N} after ${s(mailsAt - t0)} s (${(N / ((mailsAt - t0) / 1000)).toFixed(0)} mails/s end to end)`,
);
// Jobs: a workflows:dispatch per batch of tracked events (a group-committed /v1/track statement's
// events share one; it starts their executions and runs SEND_EMAIL and DELAY in one transaction,
// workflows/dispatch.ts dispatchEvents), and an emails:send-batch for those executions' mails (emails:send for
// a lone one). The queue keeps no count of finished jobs, so none is printed.
console.log(
  `  ${OUTBOX ? 'outbox files' : 'mails at the sink'}: ${files}; executions waiting in the delay: ${waiting}; ` +
    `${workerProcess ? `worker peak RSS ${peakRss.toFixed(0)} MB, CPU ${cpuUsed.toFixed(1)} s (${((cpuUsed * 1000) / N).toFixed(2)} ms a contact); ` : ''}load average ${(await import('node:os')).loadavg()[0].toFixed(1)}`,
);

await worker?.stop();
if (workerProcess) {
  const exited = new Promise((r) => workerProcess.on('exit', r));
  workerProcess.kill('SIGTERM');
  await exited;
}
sink.close();
await app.close();
await bench.drop();
await rm(dataDir, { recursive: true, force: true });
