/**
 * What the benchmarks that run Pigeon's real entry point in child processes share (campaign.ts,
 * scale-out.ts): the environment and the spawn of `node dist/main.js` (or `src/main.ts` through tsx
 * with BENCH_WORKER_SRC=1), a verified DKIM sender domain and a seeded audience.
 */
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type pg from 'pg';

export const root = path.resolve(import.meta.dirname, '..');

export interface PigeonProcessOptions {
  role: 'all' | 'api' | 'worker';
  dbUrl: string;
  smtpUrl: string;
  dataDir: string;
  port: number;
  /** Further variables, applied last (e.g. RATE_LIMIT_PER_MINUTE). */
  env?: Record<string, string>;
  /** Extra node flags, e.g. `--cpu-prof`. */
  nodeArgs?: string[];
  stdio?: StdioOptions;
}

/** The environment the entry point needs: this process's own, the database, the SMTP sink, a port on 127.0.0.1. */
export function pigeonEnv(o: PigeonProcessOptions): Record<string, string> {
  return {
    ...(process.env as Record<string, string>),
    DATABASE_URL: o.dbUrl,
    PROCESS_ROLE: o.role,
    SMTP_URL: o.smtpUrl,
    PORT: String(o.port),
    HOST: '127.0.0.1',
    DATA_DIR: o.dataDir,
    LOG_LEVEL: 'warn',
    JWT_SECRET: 'y'.repeat(40),
    PUBLIC_URL: 'https://pigeon.example.test',
    ...o.env,
  };
}

/**
 * The node flags of `npm start` (package.json `scripts.start`, e.g. `--max-semi-space-size=16`), so
 * a bench measures the heap settings users run with. BENCH_NODE_FLAGS replaces them (e.g. "" for none).
 */
export function startNodeFlags(): string[] {
  if (process.env.BENCH_NODE_FLAGS !== undefined) return process.env.BENCH_NODE_FLAGS.split(' ').filter(Boolean);
  const start: string = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).scripts.start;
  return start.split(/\s+/).filter((a) => a.startsWith('--'));
}

/**
 * Starts the entry point as `npm start` runs it (its node flags too): the compiled dist/ (built by npm install; `npm run
 * build:server` after changing src/), or src/ through tsx with BENCH_WORKER_SRC=1.
 */
export function spawnPigeon(o: PigeonProcessOptions): ChildProcess {
  const entry = process.env.BENCH_WORKER_SRC ? ['--import', 'tsx', 'src/main.ts'] : ['dist/main.js'];
  return spawn(path.join(root, 'node_modules/.bin/node'), [...startNodeFlags(), ...(o.nodeArgs ?? []), ...entry], {
    cwd: root,
    env: pigeonEnv(o),
    stdio: o.stdio ?? ['ignore', 'inherit', 'inherit'],
  });
}

/** Adds `domain` to the project as verified, with a fresh RSA-2048 DKIM key. @returns the private key (PEM). */
export async function insertVerifiedDomain(pool: pg.Pool, projectId: string, domain: string): Promise<string> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  await pool.query(
    `insert into domains (id, project_id, domain, dkim_selector, dkim_private_key, dkim_public_key, verified) values ($1, $2, $3, 'pigeon1', $4, $5, true)`,
    [randomUUID(), projectId, domain, pem, publicKey.export({ type: 'spki', format: 'der' }).toString('base64')],
  );
  return pem;
}

/** The address of recipient `i` (1-based) of {@link seedContacts}. */
export const recipientEmail = (i: number) => `r${i}@rcpt.example.test`;

/**
 * `n` contacts `r<i>@rcpt.example.test` (data.firstName `Reader<i>`), in one `INSERT … generate_series`,
 * created a minute ago so that a campaign started now includes them all.
 */
export async function seedContacts(pool: pg.Pool, projectId: string, n: number): Promise<void> {
  await pool.query(
    `insert into contacts (id, project_id, email, data, created_at)
    select gen_random_uuid(), $1, 'r' || i || '@rcpt.example.test', jsonb_build_object('firstName', 'Reader' || i), now() - interval '1 minute'
    from generate_series(1, $2::int) i`,
    [projectId, n],
  );
}

/** Resolves once `GET /ready` on `port` answers 200; throws after `timeoutMs` or when `child` exits. */
export async function waitReady(port: number, child: ChildProcess, timeoutMs = 120_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`process on port ${port} exited before it was ready`);
    const status = await fetch(`http://127.0.0.1:${port}/ready`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`process on port ${port} not ready after ${timeoutMs} ms`);
}

/**
 * CPU time a process has used so far (user + system, from /proc/<pid>/stat), in seconds; 0 when it
 * cannot be read. Less noisy than a rate on a shared machine: the difference over a send, divided
 * by the mails, is what a mail costs the process.
 */
export function cpuSeconds(pid: number | undefined): number {
  try {
    // The fields after the parenthesised command name; utime and stime are fields 14 and 15, in clock ticks (100 a second on Linux).
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
      .replace(/^.*\) /s, '')
      .split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}
