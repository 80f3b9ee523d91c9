import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import type { Logger } from 'pino';

const exec = promisify(execFile);

/** The system user PostgreSQL runs as when Pigeon runs as root (PostgreSQL refuses to run as root). */
export interface RunAs {
  uid: number;
  gid: number;
  /**
   * Whether this user can enter `dir` (every ancestor and `dir` itself searchable), asked of the kernel
   * by running `/bin/sh` as the user, so modes, ACLs and supplementary groups all count.
   */
  canReach(dir: string): Promise<boolean>;
  /** Whether this user can execute `file`. */
  canExecute(file: string): Promise<boolean>;
}

/**
 * The `postgres` system user, created (`useradd --system`) when missing.
 * @throws Error with one line saying what to do when there is no such user and none can be made.
 */
export async function asPostgresUser(log: Logger): Promise<RunAs> {
  let ids = await lookup('postgres');
  if (!ids) {
    try {
      await exec('useradd', [
        '--system',
        '--user-group',
        '--no-create-home',
        '--home-dir',
        '/nonexistent',
        '--shell',
        '/usr/sbin/nologin',
        'postgres',
      ]);
    } catch (err) {
      throw new Error(
        `PostgreSQL cannot run as root and there is no postgres system user, nor could one be made (${oneLine(err)}): create it (useradd --system postgres), run Pigeon as an ordinary user, or set DATABASE_URL`,
        { cause: err },
      );
    }
    log.info('created the postgres system user for the embedded database');
    ids = await lookup('postgres');
    if (!ids)
      throw new Error(
        'the postgres system user was created but cannot be found: run Pigeon as an ordinary user, or set DATABASE_URL',
      );
  }
  const { uid, gid } = ids;
  const test = (expr: string, target: string) =>
    new Promise<boolean>((resolve) => {
      const child = spawn('/bin/sh', ['-c', expr, 'sh', target], { uid, gid, stdio: 'ignore' });
      child.once('error', () => resolve(false));
      child.once('close', (code) => resolve(code === 0));
    });
  return {
    uid,
    gid,
    canReach: (dir) => test('test -d "$1" && test -x "$1"', dir),
    canExecute: (file) => test('test -x "$1"', file),
  };
}

async function lookup(name: string): Promise<{ uid: number; gid: number } | null> {
  try {
    const [u, g] = await Promise.all([exec('id', ['-u', name]), exec('id', ['-g', name])]);
    return { uid: Number(u.stdout.trim()), gid: Number(g.stdout.trim()) };
  } catch {
    return null;
  }
}

const oneLine = (err: unknown) => String((err as Error)?.message ?? err).split('\n')[0];
