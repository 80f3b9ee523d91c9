import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject } from '../../test/factories.js';
import { freePort } from '../lib/net.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { createVerifiedDomain, eventually, rawHeader } from '../../test/sending-fixtures.js';

const root = path.resolve(import.meta.dirname, '../..');
const node = path.join(root, 'node_modules/.bin/node');
const N = 5000;

interface Received {
  to: string;
  subject: string;
  messageId: string;
}

/**
 * A minimal SMTP sink on net (no pipelining, no TLS): a message counts as received the moment its
 * final "\r\n.\r\n" arrives, as a real MTA queues it then, even if the client is gone before it can
 * read the 250 (smtp-server, by contrast, can drop a message whose connection closes while it is
 * still scanning the last chunk). It is light, so it keeps up with the worker on a busy machine.
 */
async function startSink() {
  const messages: Received[] = [];
  const server = createServer((socket) => {
    let buf = Buffer.alloc(0);
    let data = false;
    let rcpt: string[] = [];
    const reply = (line: string) => {
      if (!socket.destroyed) socket.write(line + '\r\n');
    };
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      for (;;) {
        if (data) {
          const end = buf.indexOf('\r\n.\r\n');
          if (end < 0) return;
          const raw = buf.subarray(0, end + 2);
          buf = buf.subarray(end + 5);
          data = false;
          messages.push({
            to: rcpt[0],
            subject: rawHeader(raw, 'Subject') ?? '',
            messageId: rawHeader(raw, 'Message-ID') ?? '',
          });
          rcpt = [];
          reply('250 2.0.0 queued');
          continue;
        }
        const nl = buf.indexOf('\r\n');
        if (nl < 0) return;
        const line = buf.subarray(0, nl).toString('latin1');
        buf = buf.subarray(nl + 2);
        const cmd = line.slice(0, 4).toUpperCase();
        if (cmd === 'EHLO' || cmd === 'HELO') reply('250 sink.test');
        else if (cmd === 'MAIL') {
          rcpt = [];
          reply('250 2.1.0 ok');
        } else if (cmd === 'RCPT') {
          rcpt.push(/<([^>]*)>/.exec(line)![1].toLowerCase());
          reply('250 2.1.5 ok');
        } else if (cmd === 'DATA') {
          data = true;
          reply('354 go ahead');
        } else if (cmd === 'QUIT') {
          reply('221 bye');
          socket.end();
        } else reply('250 ok');
      }
    });
    reply('220 sink.test ESMTP');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `smtp://127.0.0.1:${(server.address() as { port: number }).port}`;
  return { url, messages, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describe('campaign send across worker crashes', () => {
  let h: Harness;
  let sink: Awaited<ReturnType<typeof startSink>>;
  let dataDir: string;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    sink = await startSink();
    // The API runs here without a worker; the worker is the child process below, on the same database.
    h = await createHarness({ env: { SMTP_URL: sink.url } });
    dataDir = await mkdtemp(path.join(tmpdir(), 'pigeon-crash-'));
  });
  afterAll(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await h?.close();
    await sink?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  async function startWorker(
    dbUrl: string,
  ): Promise<{ child: ChildProcess; exited: Promise<unknown>; output: () => string }> {
    // The worker answers /health, /ready and /metrics on PORT: a free one, not 3000 (another worker,
    // or a Pigeon the developer runs, may hold it).
    const env: Record<string, string> = {
      ...(process.env as Record<string, string>),
      DATABASE_URL: dbUrl,
      PROCESS_ROLE: 'worker',
      SMTP_URL: sink.url,
      PORT: String(await freePort()),
      HOST: '127.0.0.1',
      // The harness's secret, as every process of one installation shares it (the DKIM keys are sealed with it).
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      JWT_SECRET: h.deps.secret,
    };
    const child = spawn(node, ['--import', 'tsx', 'src/main.ts'], {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    children.push(child);
    return { child, exited: new Promise((r) => child.on('exit', r)), output: () => out };
  }

  it('delivers each of 5,000 mails through two SIGKILLs, none lost, a rare copy only with the same Message-ID', async () => {
    const dbUrl = (h.deps.pool as unknown as { options: { connectionString: string } }).options.connectionString;
    const p = await createProject(h);
    const d = await createVerifiedDomain(h, p.id);
    await h.sql(
      `insert into contacts (id, project_id, email, data)
      select gen_random_uuid(), $1, 'crash-' || i || '@rcpt.test', jsonb_build_object('n', i) from generate_series(1, ${N}) i`,
      [p.id],
    );
    const c = await h.request('POST', '/campaigns', {
      key: p.secretKey,
      body: { name: 'Big', subject: 'Number {{n}}', body: '<p>Hello {{n}}</p>', from: `news@${d.domain}` },
    });
    const id = c.body.data.id;
    const s = await h.request('POST', `/campaigns/${id}/send`, { key: p.secretKey });
    expect(s.body.data.status).toBe('SENDING');

    // Only the campaign's mail: the sink also gets the account mail of the signup above.
    const campaignMail = () => sink.messages.filter((m) => m.to.startsWith('crash-'));
    for (const killAt of [400, 2500]) {
      const w = await startWorker(dbUrl);
      await eventually(
        async () => campaignMail().length >= killAt || undefined,
        400_000,
        () => `${killAt} mails (worker output: ${w.output()})`,
      );
      w.child.kill('SIGKILL');
      await w.exited;
      // Nothing is unlocked by hand: the next worker finds the dead one's jobs through its liveness
      // lock (src/worker/liveness.ts) and takes them over within seconds.
    }
    // The kills happened mid-send.
    expect(campaignMail().length).toBeLessThan(N);

    const last = await startWorker(dbUrl);
    await eventually(
      async () => {
        const r = await h.request('GET', `/campaigns/${id}`, { key: p.secretKey });
        return r.body.status === 'SENT' || undefined;
      },
      600_000,
      () => `campaign SENT (worker output: ${last.output()})`,
    );
    last.child.kill('SIGTERM');
    await last.exited;

    const copies = new Map<string, Received[]>();
    for (const m of campaignMail()) copies.set(m.to, [...(copies.get(m.to) ?? []), m]);
    // None lost: every recipient got the mail, and every row says it was delivered.
    const missing = await h.sql(
      `select to_email, status, error, message_id is not null as handed_off
      from emails where campaign_id = $1 and not (to_email = any($2::text[]))`,
      [id, [...copies.keys()]],
    );
    expect(missing).toEqual([]);
    expect(copies.size).toBe(N);
    const [rows] = await h.sql(
      `select count(*)::int as n, count(distinct contact_id)::int as c,
      count(*) filter (where status = 'DELIVERED')::int as delivered from emails where campaign_id = $1`,
      [id],
    );
    expect(rows).toEqual({ n: N, c: N, delivered: N });
    // A kill between the final "." of DATA and the record of the server's reply (RFC 1047) makes the
    // mail go again: only then, at most once per mail in flight (10 jobs) per kill, and each copy
    // carries the same Message-ID, so the receiving side can tell it is one message.
    const twice = [...copies.values()].filter((c) => c.length > 1);
    expect(twice.length).toBeLessThanOrEqual(20);
    for (const c of twice) expect(new Set(c.map((m) => m.messageId)).size).toBe(1);
    if (twice.length) console.log(`crash test: ${twice.length} mails sent twice (same Message-ID), 0 lost`);
    // Personalised per recipient, also for mail sent after a restart.
    expect(campaignMail().filter((m) => m.subject !== `Number ${/crash-(\d+)@/.exec(m.to)![1]}`)).toEqual([]);
  }, 1_500_000);
});
