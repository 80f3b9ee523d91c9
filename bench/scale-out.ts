/**
 * Scale-out on one PostgreSQL, and a worker killed mid-campaign: 2 API processes (`PROCESS_ROLE=api`)
 * and 2 worker processes (`PROCESS_ROLE=worker`) of the real entry point (`node dist/main.js`) over a
 * fresh database. A MARKETING campaign (DKIM, open/click tracking) to BENCH_RECIPIENTS contacts is
 * created and sent through the first API; meanwhile BENCH_TRACKS `POST /v1/track` requests (each a
 * new contact) are split across both APIs with autocannon. When BENCH_KILL_AT of the campaign's mail
 * has reached the SMTP sink, the first worker is SIGKILLed; nothing is unlocked by hand, the surviving
 * worker's liveness sweep (src/worker/liveness.ts) takes its jobs over. With BENCH_KILLS=k (default 1)
 * there are k kills, spread evenly from BENCH_KILL_AT to 90 % of the campaign and alternating between
 * the two worker slots; each killed worker is started again at once (a crash-looping host), so two
 * workers stay in play. Each worker slot has an SMTP sink of its own (same handler, its own port), so
 * every delivery is attributed to the slot that made it.
 * Then, once the campaign is SENT: mails at the sink, recipients missing or received twice (and whether
 * the copies share one Message-ID), email rows by status, the campaign and track rates, events stored
 * for the tracks, and per kill what the dead worker held and when it was taken over. Exits 1 if a mail
 * was lost, a copy had another Message-ID, a 2xx track was not stored, or the campaign did not reach SENT.
 * Run: npx tsx bench/scale-out.ts   (DATABASE_URL: a server where the bench may create a database,
 * default postgres://postgres@127.0.0.1:5432/postgres; BENCH_RECIPIENTS, default 20000; BENCH_TRACKS,
 * default 5000; BENCH_CONNECTIONS track connections over both APIs, default 32; BENCH_KILL_AT, fraction
 * of the campaign delivered at the first kill, default 0.3; BENCH_KILLS, default 1; BENCH_POOL SMTP connections per
 * worker, default 5; BENCH_WORKER_SRC=1 runs src/main.ts through tsx instead of dist/; BENCH_FAILOVER=1 routes
 * the campaign through a dead project transport first, so the kills land during failover, issue 37)
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { SMTPServer } from 'smtp-server';
import { freePort } from '../src/lib/net.js';
import { randomUUID } from 'node:crypto';
import { benchDatabase } from './bench-db.js';
import { insertVerifiedDomain, recipientEmail, seedContacts, spawnPigeon, waitReady } from './pigeon-process.js';

const FAILOVER = process.env.BENCH_FAILOVER === '1';
const N = Number(process.env.BENCH_RECIPIENTS ?? 20_000);
const TRACKS = Number(process.env.BENCH_TRACKS ?? 5_000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const KILL_AT = Number(process.env.BENCH_KILL_AT ?? 0.3);
const KILLS = Math.max(1, Number(process.env.BENCH_KILLS ?? 1));
/** Campaign mails at the sink at which kill i happens: evenly from KILL_AT to 90 %. */
const killPoints = Array.from({ length: KILLS }, (_, i) => Math.ceil(N * (KILL_AT + (i * (0.9 - KILL_AT)) / KILLS)));
const POOL = Number(process.env.BENCH_POOL ?? 5);
/** The advisory-lock class of the liveness locks (LIVENESS_CLASS in src/worker/liveness.ts). */
const LIVENESS_CLASS = 0x70776b72;
const DOMAIN = 'bench.example.test';
const BODY =
  "<html><body><h1>Hello {{firstName ?? 'there'}}</h1><p>Our spring collection is here.</p>" +
  '<p><a href="https://example.com/spring">See it</a> or <a href="https://example.com/sale?ref=mail">the sale</a>.</p></body></html>';
const benchStart = performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

// --- The sinks: one per worker, accepting everything; a mail counts when its final "." arrived.
interface Delivery {
  t: number;
  worker: number;
  rcpt: string;
  messageId: string | null;
}
const deliveries: Delivery[] = [];
let campaignReceived = 0;
let sinkErrors = 0;
const onDelivery: Array<(d: Delivery) => void> = [];
const sinks = [0, 1].map((worker) => {
  const sink = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    size: 10 * 1024 * 1024,
    onData(stream, session, cb) {
      // Only the header block is kept, for the Message-ID.
      let head = '';
      let inHead = true;
      stream.on('data', (c: Buffer) => {
        if (!inHead) return;
        head += c.toString('latin1');
        const end = head.indexOf('\r\n\r\n');
        if (end >= 0) {
          head = head.slice(0, end);
          inHead = false;
        }
      });
      stream.on('end', () => {
        const messageId = /^message-id:\s*(<[^>]+>)/im.exec(head)?.[1] ?? null;
        for (const r of session.envelope.rcptTo) {
          const d = { t: performance.now(), worker, rcpt: r.address.toLowerCase(), messageId };
          deliveries.push(d);
          if (d.rcpt.endsWith('@rcpt.example.test')) campaignReceived++;
          for (const f of onDelivery) f(d);
        }
        cb();
      });
    },
  });
  // A killed client resets its connections: count, never crash.
  sink.on('error', () => sinkErrors++);
  return sink;
});
for (const s of sinks) await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
const sinkUrl = (i: number) => `smtp://127.0.0.1:${(sinks[i].server.address() as { port: number }).port}?pool=${POOL}`;

const bench = await benchDatabase('pigeon_bench_scale', 10);
const { pool, url: dbUrl } = bench;
const tmp = await mkdtemp(path.join(os.tmpdir(), 'pigeon-bench-scale-'));

// --- The processes, their output read line by line: errors printed, warnings counted.
interface Proc {
  name: string;
  port: number;
  child: ChildProcess;
  exited: Promise<unknown>;
  warnings: Map<string, { n: number; first: number; times: number[] }>;
}
const procs: Proc[] = [];
const nodeWarnings = new Set<string>();
async function start(name: string, role: 'api' | 'worker', smtpUrl: string): Promise<Proc> {
  const port = await freePort();
  const child = spawnPigeon({
    role,
    dbUrl,
    smtpUrl,
    dataDir: path.join(tmp, name),
    port,
    stdio: ['ignore', 'pipe', 'pipe'],
    // One API key sends every track: no per-key rate limit, as in send-track.ts. With BENCH_FAILOVER the
    // project's first transport is a port nobody listens on: its breaker opens, probes every 2 s, fails.
    env: {
      RATE_LIMIT_PER_MINUTE: '0',
      ...(FAILOVER ? { TRANSPORT_ALLOW_PRIVATE_ADDRESSES: 'true', TRANSPORT_BREAKER_RETRY_SECONDS: '2' } : {}),
    },
  });
  const p: Proc = { name, port, child, exited: new Promise((r) => child.on('exit', r)), warnings: new Map() };
  for (const stream of [child.stdout!, child.stderr!]) {
    createInterface({ input: stream }).on('line', (line) => {
      let entry: { level?: number; msg?: string } | undefined;
      try {
        entry = JSON.parse(line);
      } catch {
        entry = undefined;
      }
      if (entry?.level !== undefined && entry.level < 50) {
        // Warnings: counted, and shown once each.
        const w = p.warnings.get(entry.msg ?? '') ?? { n: 0, first: performance.now(), times: [] };
        if (w.times.length < 1000) w.times.push(performance.now());
        if (!w.n) console.log(`[${name} +${secs(w.first - benchStart)}] ${line.slice(0, 300)}`);
        w.n++;
        p.warnings.set(entry.msg ?? '', w);
      } else if (!entry && /^\((node:\d+|Use `node)/.test(line)) {
        // Node's own warnings (deprecations): the same in every process, shown once.
        const text = line.replace(/^\(node:\d+\)/, '(node)');
        if (!nodeWarnings.has(text)) console.log(`[${name}] ${text}`);
        nodeWarnings.add(text);
      } else {
        console.log(`[${name}] ${line.slice(0, 500)}`);
      }
    });
  }
  procs.push(p);
  return p;
}

let failed = false;
const fail = (why: string) => {
  failed = true;
  console.log(`FAIL: ${why}`);
};

try {
  console.log(
    `${N} recipients, ${TRACKS} tracks over ${CONNECTIONS} connections, kill at ${KILL_AT * 100}%; load average ${load()}`,
  );
  let t = performance.now();
  const apis = [await start('api-1', 'api', sinkUrl(0)), await start('api-2', 'api', sinkUrl(0))];
  const workers = [await start('worker-1', 'worker', sinkUrl(0)), await start('worker-2', 'worker', sinkUrl(1))];
  await Promise.all(procs.map((p) => waitReady(p.port, p.child)));
  console.log(`4 processes ready in ${secs(performance.now() - t)} (api ports ${apis.map((a) => a.port).join(', ')})`);

  // --- Account, project (its keys), verified domain, audience, campaign: through the first API.
  const base = apis.map((a) => `http://127.0.0.1:${a.port}`);
  const call = async (i: number, method: string, url: string, auth: Record<string, string>, body?: unknown) => {
    const res = await fetch(base[i] + url, {
      method,
      headers: { ...auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
    return { res, body: (await res.json()) as Record<string, unknown> };
  };
  const signup = await call(
    0,
    'POST',
    '/auth/signup',
    {},
    { email: 'bench@example.test', password: 'correct horse battery' },
  );
  const cookie = /(?:__Host-)?session=[^;]+/.exec(signup.res.headers.get('set-cookie') ?? '')![0];
  const project = (await call(0, 'POST', '/users/@me/projects', { cookie }, { name: 'bench' })).body as {
    id: string;
    public: string;
    secret: string;
  };
  await insertVerifiedDomain(pool, project.id, DOMAIN);
  if (FAILOVER) {
    // Every mail's route: a dead transport first, then the worker's own sink (the instance transport).
    const dead = randomUUID();
    await pool.query(
      `insert into transports (id, project_id, name, kind, settings) values ($1, $2, 'dead relay', 'smtp', $3)`,
      [dead, project.id, JSON.stringify({ url: `smtp://127.0.0.1:${await freePort()}` })],
    );
    await pool.query(
      `insert into transport_rules (id, project_id, position, match, transports) values ($1, $2, 0, '{}', $3)`,
      [randomUUID(), project.id, [dead, 'default']],
    );
  }
  t = performance.now();
  await seedContacts(pool, project.id, N);
  console.log(`${N} contacts inserted in ${(performance.now() - t).toFixed(0)} ms`);
  const secret = { authorization: `Bearer ${project.secret}` };
  const created = await call(0, 'POST', '/campaigns', secret, {
    name: 'Spring',
    subject: "Spring is here, {{firstName ?? 'friend'}}",
    body: BODY,
    from: `news@${DOMAIN}`,
    fromName: 'Bench Shop',
    type: 'MARKETING',
    audienceType: 'ALL',
  });
  const campaignId = (created.body as { data: { id: string } }).data.id;

  // --- The kills: at each kill point the worker of slot (kill number % 2) is SIGKILLed from inside
  // the sink's handler, and a new worker is started in its slot at once.
  const slots = [...workers];
  interface Held {
    workers: number;
    jobs: Array<{ task: string }>;
    states: Array<{ status: string; handed: boolean; n: number }>;
    open: Set<string>;
  }
  interface Kill {
    slot: number;
    name: string;
    at: number;
    t: number;
    held: Promise<Held>;
  }
  const kills: Kill[] = [];
  // The liveness locks (one per Graphile worker id, held by its process's connection), by lock key.
  const liveness = async () =>
    new Set(
      (
        await pool.query<{ objid: string }>(
          `select objid::text from pg_locks where locktype = 'advisory' and objsubid = 2 and classid = $1::bigint::oid and granted`,
          [LIVENESS_CLASS],
        )
      ).rows.map((r) => r.objid),
    );
  // Refreshed every 100 ms: at a kill, the locks held just before it (the handler cannot query).
  let livenessLatest = await liveness();
  let watching = true;
  const watcher = (async () => {
    while (watching) {
      await sleep(100);
      livenessLatest = await liveness();
    }
  })();
  const restarts: Array<Promise<void>> = [];
  onDelivery.push(() => {
    if (kills.length >= KILLS || campaignReceived < killPoints[kills.length]) return;
    const slot = kills.length % 2;
    const victim = slots[slot];
    victim.child.kill('SIGKILL');
    const n = kills.length + 1;
    kills.push({ slot, name: victim.name, at: campaignReceived, t: performance.now(), held: heldBy(livenessLatest) });
    restarts.push(
      (async () => {
        const next = await start(`worker-${slot + 1}.${n}`, 'worker', sinkUrl(slot));
        await waitReady(next.port, next.child);
        slots[slot] = next;
      })(),
    );
  });

  /** The jobs a killed worker held: its worker ids are those of `before` whose liveness lock went with it. */
  async function heldBy(before: Set<string>): Promise<Held> {
    for (let i = 0; i < 200; i++) {
      const now = await liveness();
      const gone = [...before].filter((id) => !now.has(id));
      if (gone.length) {
        const { rows } = await pool.query<{ id: string; task: string; ids: string[] | null; one: string | null }>(
          `
          select j.id::text, t.identifier as task, array(select jsonb_array_elements_text(j.payload::jsonb -> 'emailIds')) as ids,
            j.payload::jsonb ->> 'emailId' as one
          from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
          where j.locked_by is not null and (hashtext(j.locked_by)::bigint & 4294967295)::text = any($1::text[])`,
          [gone],
        );
        const emailIds = rows.flatMap((r) => [...(r.ids ?? []), ...(r.one ? [r.one] : [])]);
        const states = emailIds.length
          ? (
              await pool.query<{ status: string; handed: boolean; n: number }>(
                `
          select status, message_id is not null as handed, count(*)::int as n from emails where id = any($1::uuid[]) group by 1, 2`,
                [emailIds],
              )
            ).rows
          : [];
        const open = emailIds.length
          ? (
              await pool.query<{ id: string }>(
                `select id::text from emails where id = any($1::uuid[]) and status in ('PENDING', 'SENDING')`,
                [emailIds],
              )
            ).rows.map((r) => r.id)
          : [];
        return { workers: gone.length, jobs: rows, states, open: new Set(open) };
      }
      await sleep(50);
    }
    return { workers: 0, jobs: [], states: [], open: new Set<string>() };
  }

  // --- Send, and the tracks at once.
  const t0 = performance.now();
  await call(0, 'POST', `/campaigns/${campaignId}/send`, secret, {});
  const latencies: number[] = [];
  let ok2xx = 0;
  let non2xx = 0;
  let reqErrors = 0;
  let nextTrack = 0;
  const trackStart = performance.now();
  const tracks = Promise.all(
    base.map(
      (b, i) =>
        new Promise<void>((resolve, reject) => {
          const amount = Math.floor(TRACKS / base.length) + (i < TRACKS % base.length ? 1 : 0);
          const inst = autocannon(
            {
              url: `${b}/v1/track`,
              method: 'POST',
              connections: Math.min(amount, Math.ceil(CONNECTIONS / base.length)),
              amount,
              pipelining: 1,
              timeout: 60,
              headers: { 'content-type': 'application/json', authorization: `Bearer ${project.public}` },
              requests: [
                {
                  setupRequest: (req) => ({
                    ...req,
                    body: JSON.stringify({
                      email: `t${++nextTrack}@track.example.test`,
                      event: 'bench-track',
                      data: { plan: 'pro' },
                    }),
                  }),
                },
              ],
            },
            (err) => (err ? reject(err) : resolve()),
          );
          inst.on('response', (_client, status, _bytes, ms) => {
            latencies.push(ms);
            if (status >= 200 && status < 300) ok2xx++;
            else non2xx++;
          });
          inst.on('reqError', () => reqErrors++);
        }),
    ),
  );
  const trackDone = tracks.then(() => performance.now());

  // --- Until SENT, polling both APIs in turn.
  let status = '';
  let polls = 0;
  const deadline = performance.now() + 60 * 60_000;
  while (status !== 'SENT' && performance.now() < deadline) {
    await sleep(250);
    const r = await fetch(`${base[polls++ % 2]}/campaigns/${campaignId}`, { headers: secret }).catch(() => undefined);
    if (r?.ok) status = ((await r.json()) as { status: string }).status;
  }
  const tSent = performance.now();
  if (status !== 'SENT') fail(`campaign still ${status} after an hour`);
  const trackEnd = await trackDone;
  watching = false;
  await watcher;
  await Promise.all(restarts);
  const helds = await Promise.all(kills.map((k) => k.held));
  // Mail still arriving after SENT would be a bug (a row final before its mail left): wait a moment to see it.
  await sleep(1000);

  // --- Figures.
  const byRcpt = new Map<string, Delivery[]>();
  for (const d of deliveries) byRcpt.set(d.rcpt, [...(byRcpt.get(d.rcpt) ?? []), d]);
  let missing = 0;
  for (let i = 1; i <= N; i++) if (!byRcpt.has(recipientEmail(i))) missing++;
  const campaignMail = deliveries.filter((d) => d.rcpt.endsWith('@rcpt.example.test'));
  const dups = [...byRcpt.entries()].filter(([rcpt, ds]) => rcpt.endsWith('@rcpt.example.test') && ds.length > 1);
  const dupSameId = dups.every(
    ([, ds]) => ds[0].messageId !== null && ds.every((d) => d.messageId === ds[0].messageId),
  );
  const rows = (
    await pool.query<{ status: string; n: number }>(
      `select status, count(*)::int as n from emails where campaign_id = $1 group by 1 order by 1`,
      [campaignId],
    )
  ).rows;
  const events = (
    await pool.query<{ n: number }>(
      `select count(*)::int as n from events where project_id = $1 and name = 'bench-track'`,
      [project.id],
    )
  ).rows[0].n;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? NaN;
  const perSlot = [0, 1].map((w) => campaignMail.filter((d) => d.worker === w).length);
  const emailIdOf = (d: Delivery) => /^<([0-9a-f-]{36})@/.exec(d.messageId ?? '')?.[1];
  const warningTimes = (msg: string) => procs.flatMap((p) => p.warnings.get(msg)?.times ?? []).sort((x, y) => x - y);
  const sweeps = warningTimes('unlocked the jobs of dead workers');
  const againN = procs.reduce(
    (n, p) =>
      n +
      (p.warnings.get(
        'sending again an email whose previous run died after the hand-off mark: the recipient may get it twice, with the same Message-ID',
      )?.n ?? 0),
    0,
  );

  console.log(
    `\nsink: ${campaignMail.length} campaign mails received (${perSlot[0]} from the worker-1 slot, ${perSlot[1]} from the worker-2 slot), ` +
      `${deliveries.length - campaignMail.length} other (sign-up mail); ${sinkErrors} connection errors`,
  );
  console.log(
    `recipients: ${N - missing} distinct of ${N}, missing ${missing}; received more than once: ${dups.length}` +
      (dups.length
        ? ` (${dupSameId ? 'every copy with the same Message-ID' : 'SOME COPIES WITH ANOTHER Message-ID'})`
        : ''),
  );
  console.log(`email rows: ${rows.map((r) => `${r.status} ${r.n}`).join(', ')}`);
  console.log(
    `campaign: ${N} recipients from send to SENT in ${secs(tSent - t0)} = ${(N / ((tSent - t0) / 1000)).toFixed(0)} mails/s`,
  );
  console.log(
    `tracks: ${TRACKS} requests over both APIs in ${secs(trackEnd - trackStart)} = ${(latencies.length / ((trackEnd - trackStart) / 1000)).toFixed(0)} req/s, ` +
      `p50 ${pct(0.5).toFixed(0)} ms, p99 ${pct(0.99).toFixed(0)} ms; 2xx ${ok2xx}, not 2xx ${non2xx}, errors ${reqErrors}; ` +
      `events stored ${events} (${events === ok2xx ? 'equal to the 2xx count' : 'NOT the 2xx count'})`,
  );
  for (const [i, k] of kills.entries()) {
    const held = helds[i];
    const takenOver = deliveries.filter((d) => d.t > k.t && held.open.has(emailIdOf(d) ?? ''));
    const other = deliveries.find((d) => d.t > k.t && d.worker !== k.slot);
    const sweep = sweeps.find((t) => t > k.t);
    console.log(
      `kill ${i + 1}: ${k.name} SIGKILLed after ${k.at} campaign mails (${((k.at / N) * 100).toFixed(0)} %, ${secs(k.t - t0)} after the send); ` +
        `it held ${held.jobs.length} jobs (${held.jobs
          .map((j) => j.task)
          .filter((v, j, a) => a.indexOf(v) === j)
          .join(', ')}), ` +
        `their mails then: ${held.states.map((s) => `${s.status}${s.handed ? ' (handed off)' : ''} ${s.n}`).join(', ') || 'none'}`,
    );
    console.log(
      `  take-over: the other slot's first mail after the kill +${other ? (other.t - k.t).toFixed(0) : '-'} ms; ` +
        `next sweep of dead workers' jobs +${sweep ? secs(sweep - k.t) : '-'}; ` +
        `first of its ${held.open.size} unfinished mails delivered +${takenOver.length ? secs(takenOver[0].t - k.t) : '-'}, ` +
        `all ${new Set(takenOver.map(emailIdOf)).size} by +${takenOver.length ? secs(takenOver[takenOver.length - 1].t - k.t) : '-'}`,
    );
  }
  console.log(`sent again after the hand-off mark (logged by the workers): ${againN}`);
  for (const p of procs) {
    for (const [msg, w] of p.warnings) console.log(`  [${p.name}] ${w.n}× ${msg}`);
  }
  console.log(`load average at the end: ${load()}`);

  if (missing) fail(`${missing} recipients got no mail`);
  if (!dupSameId) fail('a recipient got copies with different Message-IDs');
  if (events < ok2xx) fail(`${ok2xx - events} tracks answered 2xx were not stored`);
  if (kills.length < KILLS) fail(`${kills.length} of ${KILLS} kills happened`);
} catch (err) {
  fail(String((err as Error)?.stack ?? err));
} finally {
  for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGTERM');
  await Promise.race([Promise.all(procs.map((p) => p.exited)), sleep(30_000)]);
  for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  await Promise.all(procs.map((p) => p.exited));
  for (const s of sinks) s.close();
  await bench.drop();
  await rm(tmp, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
