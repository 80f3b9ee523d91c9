import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import pino from 'pino';
import type { TestProject } from 'vitest/node';
import { startEmbedded, type EmbeddedDatabase } from '../src/db/embedded.js';
import { migrateDatabase } from '../src/db/migrate.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Server URL (any database) where each test file creates its own database from the template. */
    serverUrl: string;
    /** Name of the migrated template database. */
    templateDb: string;
  }
}

const withDb = (url: string, db: string) => {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
};

/**
 * Once per `npm test`: a PostgreSQL server (DATABASE_URL, else an embedded one in a temp folder) and a
 * template database migrated once; test files clone it (test/harness.ts), so each file has its own
 * database and its own Graphile Worker queue, and files run in parallel without seeing each other.
 */
export default async function setup(project: TestProject) {
  let embedded: EmbeddedDatabase | undefined;
  let dir: string | undefined;
  let serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    dir = await mkdtemp(path.join(tmpdir(), 'pigeon-test-'));
    embedded = await startEmbedded(dir, pino({ level: 'silent' }));
    serverUrl = embedded.url;
  }
  const runId = `${Date.now().toString(36)}${process.pid}`;
  const templateDb = `pigeon_tpl_${runId}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${templateDb}`);
  const pool = new pg.Pool({ connectionString: withDb(serverUrl, templateDb), max: 2 });
  await migrateDatabase(pool);
  await pool.end();
  project.provide('serverUrl', serverUrl);
  project.provide('templateDb', templateDb);

  return async () => {
    const { rows } = await admin.query<{ datname: string }>(
      `select datname from pg_database where datname like $1 or datname = $2`,
      [`pigeon_t_${runId}%`, templateDb],
    );
    for (const { datname } of rows)
      await admin.query(`drop database if exists ${datname} with (force)`).catch(() => undefined);
    await admin.end();
    await embedded?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  };
}

export { withDb };
