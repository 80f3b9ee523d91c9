import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { createVerifiedDomain, eventually, rawHeader } from '../../test/sending-fixtures.js';

const root = path.resolve(import.meta.dirname, '../..');
const node = path.join(root, 'node_modules/.bin/node');
const N = 5000;

interface Received { to: string; subject: string }

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
          messages.push({ to: rcpt[0], subject: rawHeader(raw, 'Subject') ?? '' });
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

  function startWorker(dbUrl: string): { child: ChildProcess; exited: Promise<unknown>; output: () => string } {
    const env: Record<string, string> = {
      ...(process.env as Record<string, string>), DATABASE_URL: dbUrl, PROCESS_ROLE: 'worker', SMTP_URL: sink.url,
      DATA_DIR: dataDir, LOG_LEVEL: 'warn', JWT_SECRET: 'crash-test-secret-crash-test-secret-0123456789',
    };
    const child = spawn(node, ['--import', 'tsx', 'src/main.ts'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    children.push(child);
    return { child, exited: new Promise((r) => child.on('exit', r)), output: () => out };
  }

  it('delivers each of 5,000 mails exactly once through two SIGKILLs and ends SENT', async () => {
    const dbUrl = (h.deps.pool as unknown as { options: { connectionString: string } }).options.connectionString;
    const p = await createProject(h);
    const d = await createVerifiedDomain(h, p.id);
    await h.sql(`insert into contacts (id, project_id, email, data)
      select gen_random_uuid(), $1, 'crash-' || i || '@rcpt.test', jsonb_build_object('n', i) from generate_series(1, ${N}) i`, [p.id]);
    const c = await h.request('POST', '/campaigns', {
      key: p.secretKey,
      body: { name: 'Big', subject: 'Number {{n}}', body: '<p>Hello {{n}}</p>', from: `news@${d.domain}` },
    });
    const id = c.body.data.id;
    const s = await h.request('POST', `/campaigns/${id}/send`, { key: p.secretKey });
    expect(s.body.data.status).toBe('SENDING');

    // Only the campaign's mail: the sink also gets the account mail of the signup above.
    const campaignMail = () => sink.messages.filter((m) => m.to.startsWith('crash-'));
    const distinct = () => new Set(campaignMail().map((m) => m.to)).size;
    for (const killAt of [400, 2500]) {
      const w = startWorker(dbUrl);
      await eventually(async () => campaignMail().length >= killAt || undefined, 400_000, `${killAt} mails (worker output: ${w.output()})`);
      w.child.kill('SIGKILL');
      await w.exited;
      // Nothing is unlocked by hand: the next worker finds the dead one's jobs through its liveness
      // lock (src/worker/liveness.ts) and takes them over within seconds.
    }
    // The kills happened mid-send.
    expect(campaignMail().length).toBeLessThan(N);

    const last = startWorker(dbUrl);
    await eventually(async () => {
      const r = await h.request('GET', `/campaigns/${id}`, { key: p.secretKey });
      return r.body.status === 'SENT' || undefined;
    }, 600_000, `campaign SENT (worker output: ${last.output()})`);
    last.child.kill('SIGTERM');
    await last.exited;

    const perRecipient = new Map<string, number>();
    for (const m of campaignMail()) perRecipient.set(m.to, (perRecipient.get(m.to) ?? 0) + 1);
    // No mail twice, ever.
    expect([...perRecipient].filter(([, n]) => n > 1)).toEqual([]);
    // Every mail once. The hand-off mark (message_id) is written to PostgreSQL in the same tick as the
    // final "." of DATA, so a kill lands either before both (resent after the restart) or after both
    // (not resent): only a kill inside that one tick could leave a mail unknown, never a duplicate.
    const missing = await h.sql(`select to_email, status, error, message_id is not null as handed_off
      from emails where campaign_id = $1 and not (to_email = any($2::text[]))`, [id, [...perRecipient.keys()]]);
    expect(missing).toEqual([]);
    expect(distinct()).toBe(N);
    expect(campaignMail()).toHaveLength(N);
    const [rows] = await h.sql(`select count(*)::int as n, count(distinct contact_id)::int as c,
      count(*) filter (where status in ('PENDING', 'SENDING'))::int as open,
      count(*) filter (where status = 'DELIVERED')::int as delivered from emails where campaign_id = $1`, [id]);
    expect(rows).toEqual({ n: N, c: N, open: 0, delivered: rows.delivered });
    // Mail the server took but whose worker died before recording it is FAILED ("interrupted during the
    // hand-off"), never resent: at most one per in-flight job (10) per kill.
    expect(rows.delivered).toBeGreaterThanOrEqual(N - 20);
    // Personalised per recipient, also for mail sent after a restart.
    expect(campaignMail().filter((m) => m.subject !== `Number ${/crash-(\d+)@/.exec(m.to)![1]}`)).toEqual([]);
  }, 1_500_000);
});
