/**
 * A campaign to BENCH_RECIPIENTS contacts (default 100,000) delivered to a local SMTP sink with DKIM
 * signing and open/click tracking on, end to end: from `POST /campaigns/:id/send`'s service call to the
 * campaign reaching SENT, with the worker in its own process (`PROCESS_ROLE=worker`, the real entry
 * point) so that its peak RSS (VmHWM) is its own. Beside it, a bare nodemailer pool (same number of
 * connections, DKIM on) sends one pre-rendered message the same number of times to the same sink.
 * Transactional latency: 10 `/v1/send` service calls before the campaign, then one every 250 ms while
 * it sends, alternately from the campaign's project and from another project, each timed until the
 * sink has the mail (p50 idle, and p50 and worst of each during the campaign).
 * The worker's RSS is sampled every second through the send (with the mails sent so far) and written
 * to bench/results/campaign-rss-<N>-<time>.csv, and summarised as a table, so that a flat curve (the same
 * peak at 20,000 and 1,000,000 recipients) can be seen.
 * Run: npx tsx bench/campaign.ts   (DATABASE_URL: a server where the bench may create a database,
 * default postgres://postgres@127.0.0.1:5432/postgres; BENCH_RECIPIENTS, default 100000;
 * BENCH_BARE_RECIPIENTS, mails the bare pool sends, default the same up to 100,000 (its rate does not
 * depend on N, and at 1,000,000 it would add half an hour); BENCH_POOL SMTP connections, default 5;
 * BENCH_BARE_KEYOBJECT=1 gives the bare pool a parsed DKIM key; BENCH_ROUTED=1 sends through a project
 * transport and a routing rule with a fallback, to measure what routing and the breaker cost;
 * BENCH_FORMAT=html|mjml|mjml-html, default html: the campaign's format (issue 38). `html` sends BODY;
 * `mjml` saves MJML_BODY, the same mail in MJML (heading, paragraph, two buttons), which is compiled
 * once at save into the HTML that is stored and sent; `mjml-html` saves the HTML that MJML_BODY
 * compiles to as an `html` campaign, so that a difference between `html` and `mjml` can be told apart
 * as compilation (there should be none) or message size. The bare pool sends the same stored body,
 * rendered once, so each run's ratio compares Pigeon with the bare pool on the same message.)
 */
import { createHash, createPrivateKey, randomUUID } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';
import pino from 'pino';
import { SMTPServer } from 'smtp-server';
import { createCampaign, sendCampaign } from '../src/campaigns/campaigns.service.js';
import { compileContent } from '../src/content/format.js';
import { sendBody } from '../src/emails/api/send.schema.js';
import { sendEmails } from '../src/emails/api/send.service.js';
import { loadConfig } from '../src/config.js';
import { outboxTransport } from '../src/emails/delivery/transport.js';
import { freePort } from '../src/lib/net.js';
import { renderMessage } from '../src/emails/render/render.js';
import { systemClock } from '../src/lib/clock.js';
import { createMetrics } from '../src/ops/metrics.js';
import { benchDatabase } from './bench-db.js';
import { cpuSeconds, insertVerifiedDomain, seedContacts, spawnPigeon } from './pigeon-process.js';
import { report } from './report.js';

const N = Number(process.env.BENCH_RECIPIENTS ?? 100_000);
const POOL = Number(process.env.BENCH_POOL ?? 5);
const BARE_N = Number(process.env.BENCH_BARE_RECIPIENTS ?? Math.min(N, 100_000));
const BODY =
  "<html><body><h1>Hello {{firstName ?? 'there'}}</h1><p>Our spring collection is here.</p>" +
  '<p><a href="https://example.com/spring">See it</a> or <a href="https://example.com/sale?ref=mail">the sale</a>.</p></body></html>';
// BODY in MJML: the same heading, paragraph and two links (as buttons). Arial throughout, so MJML adds no
// web-font <link> and the compiled mail has the same two links as BODY.
const MJML_BODY = `<mjml>
  <mj-head>
    <mj-attributes><mj-all font-family="Arial, Helvetica, sans-serif" /></mj-attributes>
  </mj-head>
  <mj-body>
    <mj-section>
      <mj-column>
        <mj-text font-size="24px" font-weight="bold">Hello {{firstName ?? 'there'}}</mj-text>
        <mj-text>Our spring collection is here.</mj-text>
        <mj-button href="https://example.com/spring">See it</mj-button>
        <mj-button href="https://example.com/sale?ref=mail">The sale</mj-button>
      </mj-column>
    </mj-section>
  </mj-body>
</mjml>`;
const FORMAT = process.env.BENCH_FORMAT ?? 'html';
if (!['html', 'mjml', 'mjml-html'].includes(FORMAT))
  throw new Error(`BENCH_FORMAT: html, mjml or mjml-html, not ${FORMAT}`);

// A sink that accepts and counts: parsing each message would make the sink the bottleneck.
let received = 0;
let bytes = 0;
// Bytes of the campaign's and the bare pool's mails (probes left out), for the size of a message as sent.
let mailBytes = 0;
// Transactional probes: `/v1/send`'s service call → arrival at the sink, by recipient.
const probeArrived = new Map<string, number>();
const sink = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  size: 10 * 1024 * 1024,
  onData(stream, session, cb) {
    const rcpt = session.envelope.rcptTo[0]?.address ?? '';
    const probe = rcpt.startsWith('probe-');
    stream.on('data', (c: Buffer) => {
      bytes += c.length;
      if (!probe) mailBytes += c.length;
    });
    stream.on('end', () => {
      if (probe) probeArrived.set(rcpt, performance.now());
      else received++;
      cb();
    });
  },
});
await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
const smtpUrl = `smtp://127.0.0.1:${(sink.server.address() as { port: number }).port}?pool=${POOL}`;

const bench = await benchDatabase('pigeon_bench_campaign', 10);
const { pool, db, url: dbUrl, name: dbName } = bench;
const dataDir = `/tmp/${dbName}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

try {
  const config = loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: dataDir, PORT: '0' });
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
  const projectId = randomUUID();
  await pool.query(
    `insert into projects (id, name, public_key_hash, secret_key_hash, public_key_hint, secret_key_hint) values ($1, 'bench', $2, $3, 'p', 's')`,
    [projectId, randomUUID(), randomUUID()],
  );
  const domain = 'bench.example.test';
  const pem = await insertVerifiedDomain(pool, projectId, domain);
  // A second tenant with its own verified sender: its transactional mail must not wait behind the
  // first project's campaign (fair scheduling between projects, transactional ahead of bulk).
  const otherProjectId = randomUUID();
  await pool.query(
    `insert into projects (id, name, public_key_hash, secret_key_hash, public_key_hint, secret_key_hint) values ($1, 'other', $2, $3, 'p', 's')`,
    [otherProjectId, randomUUID(), randomUUID()],
  );
  const otherDomain = 'other.example.test';
  await insertVerifiedDomain(pool, otherProjectId, otherDomain);
  let t = Date.now();
  await seedContacts(pool, projectId, N);
  console.log(`${N} contacts inserted in ${Date.now() - t} ms`);

  // Transactional probes: one mail through the `/v1/send` service call, timed until the sink has it.
  let probes = 0;
  const probe = async (other = false): Promise<number> => {
    const to = `probe-${probes++}@rcpt.example.test`;
    const t0 = performance.now();
    await sendEmails(
      deps,
      other ? otherProjectId : projectId,
      sendBody.parse({
        to,
        from: `alerts@${other ? otherDomain : domain}`,
        subject: 'Your code',
        body: '<p>123456</p>',
      }),
    );
    for (;;) {
      const at = probeArrived.get(to);
      if (at !== undefined) return at - t0;
      await sleep(2);
    }
  };
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

  // --- Pigeon: service call → worker process → SENT.
  // mjml-html: the HTML that MJML_BODY compiles to, saved as an html campaign.
  const content =
    FORMAT === 'html'
      ? { format: 'html' as const, body: BODY }
      : FORMAT === 'mjml'
        ? { format: 'mjml' as const, body: MJML_BODY }
        : { format: 'html' as const, body: (await compileContent({ format: 'mjml', body: MJML_BODY })).html };
  t = Date.now();
  const c = await createCampaign(deps, projectId, {
    name: 'Spring',
    subject: "Spring is here, {{firstName ?? 'friend'}}",
    ...content,
    from: `news@${domain}`,
    fromName: 'Bench Shop',
    type: 'MARKETING',
    audienceType: 'ALL',
  });
  const saveMs = Date.now() - t;
  // What is stored and sent: for mjml the compiled HTML.
  const storedBody: string = (await pool.query(`select body from campaigns where id = $1`, [c.id])).rows[0].body;
  const links = (storedBody.match(/<a\s[^>]*href=/gi) ?? []).length;
  console.log(
    `format ${FORMAT}: ${content.body.length} characters saved, stored body ${Buffer.byteLength(storedBody)} bytes, ` +
      `${links} links, sha256 ${createHash('sha256').update(storedBody).digest('hex').slice(0, 12)}; save ${saveMs} ms` +
      (FORMAT === 'mjml' ? ' (MJML compiled once, at save)' : ''),
  );
  // BENCH_ROUTED=1: the campaign's project routes its mail through a transport of its own (the same sink)
  // with the instance transport as its fallback, so every mail pays the routing and breaker bookkeeping
  // (transports/registry.ts); compare its ratio to the bare pool with a run without it.
  const routed = process.env.BENCH_ROUTED === '1';
  if (routed) {
    const tid = randomUUID();
    await pool.query(
      `insert into transports (id, project_id, name, kind, settings) values ($1, $2, 'bench relay', 'smtp', $3)`,
      [tid, projectId, JSON.stringify({ url: smtpUrl })],
    );
    await pool.query(
      `insert into transport_rules (id, project_id, position, match, transports) values ($1, $2, 0, '{}', $3)`,
      [randomUUID(), projectId, [tid, 'default']],
    );
  }
  // BENCH_WORKER_NODE_ARGS: extra node flags for the worker, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
  const nodeArgs = (process.env.BENCH_WORKER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  // The worker as `npm start` runs it (dist/, or src/ through tsx with BENCH_WORKER_SRC=1).
  const worker = spawnPigeon({
    role: 'worker',
    dbUrl,
    smtpUrl,
    dataDir,
    port: await freePort(),
    nodeArgs,
    env: routed ? { TRANSPORT_ALLOW_PRIVATE_ADDRESSES: 'true' } : {},
  });
  const exited = new Promise((r) => worker.on('exit', r));
  // Wait for the worker to be up (its Graphile listener connected), so start-up is not measured.
  for (let i = 0; i < 600; i++) {
    const r = await pool.query(
      `select count(*)::int as n from pg_stat_activity where datname = $1 and pid <> pg_backend_pid() and query ilike 'listen%'`,
      [dbName],
    );
    if (r.rows[0].n > 0) break;
    await sleep(100);
  }
  const statusMb = async (field: 'VmHWM' | 'VmRSS') => {
    const s = await readFile(`/proc/${worker.pid}/status`, 'utf8').catch(() => '');
    return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(s)?.[1] ?? 0) / 1024;
  };
  const peakRss = () => statusMb('VmHWM');
  const rssBefore = await peakRss();
  const idleProbes: number[] = [];
  for (let i = 0; i < 10; i++) idleProbes.push(await probe());
  const before = received;
  const mailBytesBefore = mailBytes;
  const cpuBefore = cpuSeconds(worker.pid);
  t = Date.now();
  // The worker's RSS once a second through the send, with the mails the sink has by then.
  const curve: Array<{ s: number; sent: number; rss: number; hwm: number }> = [];
  const sample = async () =>
    curve.push({
      s: (Date.now() - t) / 1000,
      sent: received - before,
      rss: await statusMb('VmRSS'),
      hwm: await peakRss(),
    });
  const sampler = setInterval(() => void sample(), 1000);
  await sendCampaign(deps, projectId, c.id, null);
  // While the campaign sends, a transactional mail every 250 ms, each timed to the sink, alternately
  // from the campaign's own project and from the other one.
  const busyProbes: number[] = [];
  const otherProbes: number[] = [];
  let sending = true;
  const prober = (async () => {
    while (sending) {
      const started = Date.now();
      const other = (busyProbes.length + otherProbes.length) % 2 === 1;
      (other ? otherProbes : busyProbes).push(await probe(other));
      await sleep(Math.max(0, 250 - (Date.now() - started)));
    }
  })();
  for (;;) {
    const r = await pool.query(`select status from campaigns where id = $1`, [c.id]);
    if (r.rows[0].status === 'SENT') break;
    await sleep(200);
  }
  sending = false;
  clearInterval(sampler);
  await sample();
  await prober;
  const pigeonMs = Date.now() - t;
  const pigeonSent = received - before;
  const pigeonBytes = mailBytes - mailBytesBefore;
  const rssPeak = await peakRss();
  const cpuSend = cpuSeconds(worker.pid) - cpuBefore;
  worker.kill('SIGTERM');
  await exited;
  const [st] = (
    await pool.query(
      `select count(*) filter (where status = 'DELIVERED')::int as delivered, count(*)::int as rows from emails where campaign_id = $1`,
      [c.id],
    )
  ).rows;

  // --- Bare nodemailer: one pre-rendered message (the campaign's stored body), same sink, same pool size, DKIM on.
  const rendered = renderMessage({
    emailId: randomUUID(),
    subject: "Spring is here, {{firstName ?? 'friend'}}",
    body: storedBody,
    type: 'MARKETING',
    tracking: 'ENABLED',
    contactData: { firstName: 'Reader' },
    variables: {},
    contact: { id: randomUUID(), email: 'r@rcpt.example.test' },
    publicUrl: 'https://pigeon.example.test',
    secret: 'y'.repeat(40),
  });
  // The variables are filled in the compiled body too (Liquid survives MJML).
  if (!rendered.html.includes('Hello Reader'))
    throw new Error(`the rendered ${FORMAT} body does not greet the contact`);
  const bare = nodemailer.createTransport({
    pool: true,
    maxConnections: POOL,
    maxMessages: Infinity,
    host: '127.0.0.1',
    port: Number(new URL(smtpUrl).port),
    secure: false,
    // nodemailer's documented form, a PEM string (parsed again for every signature); BENCH_BARE_KEYOBJECT=1
    // hands it a parsed KeyObject instead, as Pigeon's MIME builder does.
    dkim: {
      domainName: domain,
      keySelector: 'pigeon1',
      privateKey: process.env.BENCH_BARE_KEYOBJECT ? createPrivateKey(pem) : pem,
    },
  });
  const before2 = received;
  const mailBytesBefore2 = mailBytes;
  t = Date.now();
  let next = 0;
  const one = async () => {
    while (next < BARE_N) {
      const i = next++;
      await bare.sendMail({
        from: { name: 'Bench Shop', address: `news@${domain}` },
        to: `r${i}@rcpt.example.test`,
        subject: rendered.subject,
        html: rendered.html,
        text: rendered.text,
        headers: { 'List-Unsubscribe': `<${rendered.urls.unsubscribeUrl}>`, Precedence: 'bulk' },
      });
    }
  };
  await Promise.all(Array.from({ length: 20 }, one));
  const bareMs = Date.now() - t;
  const bareSent = received - before2;
  const bareBytes = mailBytes - mailBytesBefore2;
  bare.close();

  console.log(
    `recipients ${N}, format ${FORMAT}, SMTP pool ${POOL} connections, sink bytes ${(bytes / 1e6).toFixed(1)} MB; ` +
      `a message as sent: pigeon ${(pigeonBytes / Math.max(1, pigeonSent)).toFixed(0)} bytes, bare ${(bareBytes / Math.max(1, bareSent)).toFixed(0)} bytes`,
  );
  console.log(
    `pigeon campaign, ${FORMAT}${routed ? ' (routed: project transport, fallback, breaker)' : ''}: ${pigeonSent} mails in ${(pigeonMs / 1000).toFixed(1)} s = ${(pigeonSent / (pigeonMs / 1000)).toFixed(0)} mails/s ` +
      `(rows ${st.rows}, delivered ${st.delivered}); worker peak RSS ${rssPeak.toFixed(0)} MB (${rssBefore.toFixed(0)} MB before the send); ` +
      `worker CPU ${cpuSend.toFixed(1)} s (${((cpuSend * 1000) / Math.max(1, pigeonSent)).toFixed(2)} ms a mail)`,
  );
  console.log(
    `bare nodemailer: ${bareSent} mails in ${(bareMs / 1000).toFixed(1)} s = ${(bareSent / (bareMs / 1000)).toFixed(0)} mails/s`,
  );
  console.log(`ratio: ${(pigeonSent / pigeonMs / (bareSent / bareMs)).toFixed(2)}`);
  await printCurve(curve);
  console.log(
    `transactional /v1/send → sink: p50 ${median(idleProbes).toFixed(0)} ms idle (10 mails), ` +
      `during the campaign: same project p50 ${median(busyProbes).toFixed(0)} ms, worst ${Math.max(...busyProbes).toFixed(0)} ms (${busyProbes.length} mails); ` +
      `another project p50 ${median(otherProbes).toFixed(0)} ms, worst ${Math.max(...otherProbes).toFixed(0)} ms (${otherProbes.length} mails)`,
  );
  report({
    bench: 'campaign',
    rows: [
      {
        name: `campaign, ${N.toLocaleString('en-US')} recipients${routed ? ', routed' : ''}${FORMAT === 'html' ? '' : `, ${FORMAT}`}`,
        pigeon: { value: pigeonSent / (pigeonMs / 1000), unit: 'mails/s' },
        baseline: {
          name: 'bare nodemailer pool',
          value: bareSent / (bareMs / 1000),
          unit: 'mails/s',
        },
      },
      {
        name: 'worker peak RSS in that send',
        pigeon: { value: rssPeak, unit: 'MB' },
        target: { of: 'pigeon', max: 150 },
      },
      { name: 'worker CPU a mail', pigeon: { value: (cpuSend * 1000) / Math.max(1, pigeonSent), unit: 'ms' } },
      {
        name: '/v1/send to the sink meanwhile, p50',
        pigeon: { value: median(busyProbes), unit: 'ms' },
        baseline: { name: 'idle', value: median(idleProbes), unit: 'ms' },
      },
    ],
  });
} finally {
  await bench.drop();
  sink.close();
  await rm(dataDir, { recursive: true, force: true });
}

/**
 * Writes the worker's RSS curve as CSV (seconds, mails sent, VmRSS MB, VmHWM MB) under bench/results/
 * and prints it in ten steps of the send, with the RSS range of each half: a curve flat in N has the
 * same range in both halves and the same peak whatever N.
 */
async function printCurve(curve: Array<{ s: number; sent: number; rss: number; hwm: number }>): Promise<void> {
  if (!curve.length) return;
  const dir = path.join(import.meta.dirname, 'results');
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, `campaign-rss-${N}-${new Date().toISOString().replace(/[:.]/g, '-')}.csv`);
  await writeFile(
    file,
    'seconds,sent,rss_mb,hwm_mb\n' +
      curve.map((p) => `${p.s.toFixed(1)},${p.sent},${p.rss.toFixed(1)},${p.hwm.toFixed(1)}`).join('\n') +
      '\n',
  );
  console.log(`worker RSS over the send (${curve.length} samples, ${path.relative(process.cwd(), file)}):`);
  console.log('   sent  seconds   RSS MB  peak MB');
  for (let k = 1; k <= 10; k++) {
    const p = curve[Math.min(curve.length - 1, Math.ceil((curve.length * k) / 10) - 1)];
    console.log(
      `${String(p.sent).padStart(7)} ${p.s.toFixed(0).padStart(8)} ${p.rss.toFixed(0).padStart(8)} ${p.hwm.toFixed(0).padStart(8)}`,
    );
  }
  const half = Math.floor(curve.length / 2);
  const range = (xs: typeof curve) =>
    xs.length
      ? `${Math.min(...xs.map((p) => p.rss)).toFixed(0)}–${Math.max(...xs.map((p) => p.rss)).toFixed(0)} MB`
      : '—';
  console.log(`RSS range: first half ${range(curve.slice(0, half))}, second half ${range(curve.slice(half))}`);
}
