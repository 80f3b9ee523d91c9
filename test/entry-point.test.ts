import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../src/lib/net.js';
import { JOBS } from './graphile-test.js';

const root = path.resolve(import.meta.dirname, '..');
// The Node.js of the `node` dependency, as `npm start` uses it.
const node = path.join(root, 'node_modules/.bin/node');

/** Runs the real entry point as `npm start` does (`node --import tsx src/main.ts`), with no DATABASE_URL. */
function start(env: Record<string, string>): {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
} {
  const childEnv: Record<string, string> = { ...(process.env as Record<string, string>), LOG_LEVEL: 'info', ...env };
  delete childEnv.DATABASE_URL;
  // A test that wants a given database passes it under this name, so the default stays "embedded".
  if (env.DATABASE_URL_FOR_TEST) {
    childEnv.DATABASE_URL = env.DATABASE_URL_FOR_TEST;
    delete childEnv.DATABASE_URL_FOR_TEST;
  }
  for (const k of Object.keys(env)) if (env[k] === '') delete childEnv[k];
  const child = spawn(node, ['--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

/** Polls `GET base+path` until it answers 200; throws with the process's output after `timeoutMs`. */
async function waitForOk(
  base: string,
  path: string,
  proc: { output: () => string },
  timeoutMs = 60_000,
): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    try {
      const res = await fetch(`${base}${path}`);
      if (res.status === 200) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`service did not answer GET ${path} in time:\n${proc.output()}`);
}

const waitForConfig = (base: string, proc: { output: () => string }, timeoutMs = 60_000) =>
  waitForOk(base, '/config', proc, timeoutMs);

async function json(res: Response) {
  return {
    status: res.status,
    body: await res.json(),
    cookie: /session=[^;]+/.exec(res.headers.get('set-cookie') ?? '')?.[0],
  };
}

describe('the real entry point with the embedded database', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  it('starts on an empty DATA_DIR, keeps data across a SIGTERM and a second start', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'pigeon-main-'));
    dirs.push(dataDir);
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const env = { DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1' };

    const first = start(env);
    await waitForConfig(base, first);
    const signup = await json(
      await fetch(`${base}/auth/signup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'first@example.test', password: 'a long password' }),
      }),
    );
    expect(signup.status).toBe(201);
    const project = await json(
      await fetch(`${base}/users/@me/projects`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie: signup.cookie! },
        body: JSON.stringify({ name: 'Survivor' }),
      }),
    );
    expect(project.status).toBe(201);
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    expect(first.output()).toContain('"msg":"stopped"');
    // One line for the person at the terminal: where the dashboard is and where mail goes.
    expect(first.output()).toContain(
      `Pigeon is running: open http://localhost:${port}/app/ in your browser; mail stays on this machine, in ${path.join(dataDir, 'outbox')} (no SMTP_URL).`,
    );
    // The embedded PostgreSQL was shut down, not left running.
    expect(existsSync(path.join(dataDir, 'pg', 'postmaster.pid'))).toBe(false);

    const second = start(env);
    await waitForConfig(base, second);
    const login = await json(
      await fetch(`${base}/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'first@example.test', password: 'a long password' }),
      }),
    );
    expect(login.status).toBe(200);
    const list = await json(await fetch(`${base}/users/@me/projects`, { headers: { cookie: login.cookie! } }));
    expect(list.body.map((p: { name: string }) => p.name)).toEqual(['Survivor']);
    // The secret key created before the restart still authenticates.
    const sec = await fetch(`${base}/projects/${project.body.id}/security`, {
      headers: { authorization: `Bearer ${project.body.secret}` },
    });
    expect(sec.status).toBe(200);
    second.child.kill('SIGINT');
    expect(await second.exited).toBe(0);
  }, 120_000);

  it('refuses a bad configuration value with one line naming the variable, before listening', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'pigeon-main-'));
    dirs.push(dataDir);
    const bad = start({ DATA_DIR: dataDir, PORT: 'eighty' });
    const code = await bad.exited;
    expect(code).not.toBe(0);
    expect(bad.output().trim()).toBe('Configuration error: PORT: must be a whole number (got "eighty")');
    expect(existsSync(path.join(dataDir, 'pg'))).toBe(false);
  }, 30_000);

  it('never prints a secret value in a configuration error', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'pigeon-main-'));
    dirs.push(dataDir);
    const cases: Array<[Record<string, string>, string]> = [
      [
        { JWT_SECRET: 'hunter2-short-secret' },
        'Configuration error: JWT_SECRET: must be at least 32 characters (got a value of 20 characters)',
      ],
      [
        { DATABASE_URL_FOR_TEST: 'mysql://pigeon:hunter2@db.internal/pigeon' },
        'Configuration error: DATABASE_URL: must be a URL starting with postgres:// or postgresql:// (got "mysql://***@db.internal/pigeon")',
      ],
      [
        { SMTP_URL: 'smtp://mailer:hunter2@smtp.example.com:587?requireTLS=maybe' },
        'Configuration error: SMTP_URL: requireTLS must be true or false (got "smtp://***@smtp.example.com:587?requireTLS=maybe")',
      ],
    ];
    await Promise.all(
      cases.map(async ([env, line]) => {
        const bad = start({ DATA_DIR: dataDir, ...env });
        expect(await bad.exited).toBe(78);
        expect(bad.output().trim()).toBe(line);
        expect(bad.output()).not.toContain('hunter2');
      }),
    );
    expect(existsSync(path.join(dataDir, 'pg'))).toBe(false);
  }, 90_000);
});

describe('process roles over one database (PROCESS_ROLE=api and PROCESS_ROLE=worker)', () => {
  it('serves HTTP only in the api process and runs jobs only in the worker process', async () => {
    const { cloneDatabase } = await import('./harness.js');
    const pg = (await import('pg')).default;
    const url = await cloneDatabase();
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    const dataDir = await mkdtemp(path.join(tmpdir(), 'pigeon-roles-'));
    const apiPort = await freePort();
    const workerPort = await freePort();
    const api = start({
      DATA_DIR: dataDir,
      PORT: String(apiPort),
      HOST: '127.0.0.1',
      PROCESS_ROLE: 'api',
      DATABASE_URL_FOR_TEST: url,
    });
    let worker: ReturnType<typeof start> | undefined;
    let checked = false;
    try {
      await waitForConfig(`http://127.0.0.1:${apiPort}`, api);
      await db.query(`insert into projects (id, name, public_key_hash, secret_key_hash, public_key_hint, secret_key_hint)
        values ('00000000-0000-7000-8000-000000000001', 'roles', 'a', 'b', 'c', 'd')`);
      await db.query(`insert into idempotency_keys (project_id, key, method, path, expires_at)
        values ('00000000-0000-7000-8000-000000000001', 'stale', 'POST', '/v1/send', now() - interval '1 hour')`);
      await db.query(`select graphile_worker.add_job('cleanup:idempotency-keys', '{}'::json)`);
      // A job runner (Graphile Worker) listens for new jobs on a connection of its own, opened as the
      // runner starts, before its process serves HTTP (main.ts): the sessions on this database whose
      // statement is that LISTEN are the runners there are, and their backend_start says since when.
      const runners = async () =>
        (
          await db.query<{ since: Date }>(`select backend_start as since from pg_stat_activity
        where datname = current_database() and query like 'LISTEN "jobs:insert"%'`)
        ).rows.map((r) => r.since);
      expect(await runners()).toEqual([]);
      expect((await db.query(`select attempts, locked_by from ${JOBS} j`)).rows).toEqual([
        { attempts: 0, locked_by: null },
      ]);
      expect((await db.query(`select key from idempotency_keys`)).rows).toHaveLength(1);

      // The database's clock as the worker process starts: a session opened before it is not the worker's.
      const spawned: Date = (await db.query(`select clock_timestamp() as t`)).rows[0].t;
      worker = start({
        DATA_DIR: dataDir,
        PORT: String(workerPort),
        HOST: '127.0.0.1',
        PROCESS_ROLE: 'worker',
        DATABASE_URL_FOR_TEST: url,
      });
      const until = Date.now() + 30_000;
      while (Date.now() < until && (await db.query(`select 1 from idempotency_keys`)).rows.length)
        await new Promise((r) => setTimeout(r, 200));
      expect((await db.query(`select key from idempotency_keys`)).rows).toHaveLength(0);
      // The worker's two runners (every task, and the express slots of single mails) are seen; none
      // began before it, as one of the API process would have.
      await expect.poll(async () => (await runners()).filter((t) => t > spawned).length, { timeout: 10_000 }).toBe(2);
      expect((await runners()).filter((t) => t <= spawned)).toEqual([]);
      // Its jobs may run before its port listens (the runner starts first): wait for the port.
      await waitForOk(`http://127.0.0.1:${workerPort}`, '/health', worker);
      // A worker serves no API, only its probes and metrics.
      expect((await fetch(`http://127.0.0.1:${workerPort}/config`)).status).toBe(404);
      expect((await fetch(`http://127.0.0.1:${workerPort}/health`)).status).toBe(200);
      const ready = await fetch(`http://127.0.0.1:${workerPort}/ready`);
      expect(await ready.json()).toEqual({ ready: true, checks: { database: 'ok', migrations: 'ok', worker: 'ok' } });
      expect(await (await fetch(`http://127.0.0.1:${workerPort}/metrics`)).text()).toContain(
        'pigeon_db_pool_connections{pool="worker",state="total"}',
      );
      // The API process of the same cluster reports the queue and, with no worker of its own, no worker check.
      expect(await (await fetch(`http://127.0.0.1:${apiPort}/ready`)).json()).toEqual({
        ready: true,
        checks: { database: 'ok', migrations: 'ok', worker: 'not run' },
      });
      checked = true;
    } finally {
      api.child.kill('SIGTERM');
      worker?.child.kill('SIGTERM');
      const codes = [await api.exited, worker ? await worker.exited : 0];
      // After a failed check the processes may be stopped mid-start: their exit codes say nothing
      // then, and asserting them here would replace the real failure in the report.
      if (checked) expect(codes).toEqual([0, 0]);
      await db.end();
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 90_000);
});
