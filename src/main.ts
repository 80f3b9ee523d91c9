import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import pino from 'pino';
import { ConfigError, loadConfig, redactValue, scrubSecrets, type Config } from './config.js';
import { startEmbedded, type EmbeddedDatabase } from './db/embedded.js';
import { migrateDatabase } from './db/migrate.js';
import { createApiDb, createDb, createWorkerDb } from './db/pool.js';
import type { Deps } from './deps.js';
import { keepsMailLocal } from './domains/verified.js';
import { mimeBuilder } from './emails/delivery/mime-builder.js';
import { startLine } from './start-line.js';
import { outboxTransport, smtpTransport, type Transport } from './emails/delivery/transport.js';
import { systemClock } from './lib/clock.js';
import { closeTransports } from './transports/registry.js';
import { randomToken } from './lib/crypto.js';
import { createMetrics } from './ops/metrics.js';
import type { TlsMaterial } from './submission/tls.js';

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

/**
 * The transport of the configuration: Amazon SES with SES_REGION (it wins over SMTP_URL), an SMTP pool
 * with SMTP_URL, else the outbox in DATA_DIR. The AWS SDK is loaded only with SES_REGION.
 */
export async function transportFor(config: Config): Promise<Transport> {
  if (config.SES_REGION) {
    const { sesTransport } = await import('./emails/delivery/ses-transport.js');
    return sesTransport({
      region: config.SES_REGION,
      configurationSet: config.SES_CONFIGURATION_SET,
      endpoint: config.SES_ENDPOINT,
      mime: mimeBuilder(config.MIME_THREADS),
    });
  }
  return config.SMTP_URL
    ? smtpTransport(config.SMTP_URL, mimeBuilder(config.MIME_THREADS))
    : outboxTransport(path.join(config.DATA_DIR, 'outbox'));
}

/**
 * Start: config → database → migrations → API and/or worker, each over its own pool (the API's with a
 * statement timeout, the worker's without, so a long job never takes a connection a request needs);
 * SIGTERM/SIGINT drain HTTP, stop the worker, close both pools and stop the embedded PostgreSQL.
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
  // The SMTP submission and inbound servers listen in the API part; their certificate (one for both)
  // is settled before anything starts.
  const submitting = config.SMTP_SUBMISSION_PORT !== undefined && config.PROCESS_ROLE !== 'worker';
  const receiving = config.INBOUND_SMTP_PORT !== undefined && config.PROCESS_ROLE !== 'worker';
  let tls: TlsMaterial | null = null;
  if (submitting || receiving) {
    try {
      // Loaded only when used: smtp-server and its TLS code are not needed by most installs.
      const { loadTls } = await import('./submission/tls.js');
      tls = await loadTls(config, log, submitting ? 'submission' : 'inbound');
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      process.stderr.write(`Configuration error: ${err.message}\n`);
      process.exit(78);
    }
  }
  if (config.SES_REGION && config.SMTP_URL)
    log.warn('SES_REGION and SMTP_URL are both set: mail goes through Amazon SES');
  if (config.SES_REGION && !config.SNS_TOPIC_ARNS?.length)
    log.warn(
      'SES_REGION is set but SNS_TOPIC_ARNS is not: POST /webhooks/sns refuses every notification, so bounces and complaints are not recorded until you list your SNS topics',
    );
  if (config.SMTP_URL && new URL(config.SMTP_URL).searchParams.get('requireTLS') === 'false') {
    log.warn(
      { smtp: redactValue(config.SMTP_URL) },
      'SMTP_URL has ?requireTLS=false: credentials may be sent unencrypted',
    );
  }

  let embedded: EmbeddedDatabase | undefined;
  let url = config.DATABASE_URL;
  if (!url) {
    try {
      embedded = await startEmbedded(config.DATA_DIR, log);
    } catch (err) {
      process.stderr.write(`Pigeon cannot start its embedded PostgreSQL: ${(err as Error).message}\n`);
      process.exit(1);
    }
    url = embedded.url;
  }

  // Migrations may run long: on a pool of their own without the API's statement timeout (two
  // connections: the advisory lock's and Graphile Worker's migration).
  const migrator = createDb(url, 2, { applicationName: 'pigeon-migrate' });
  try {
    await migrateDatabase(migrator.pool);
  } finally {
    await migrator.pool.end();
  }
  const metrics = createMetrics();
  const transport = await transportFor(config);
  const shared = {
    config,
    log,
    clock: systemClock,
    transport,
    mailStaysLocal: keepsMailLocal(transport),
    secret: await loadSecret(config),
    metrics,
  };
  // Secrets at rest under the current key before anything reads them (plaintext of older versions,
  // values of a rotated-out ENCRYPTION_KEY), on the migrations' pool.
  const sealer = createDb(url, 2, { applicationName: 'pigeon-reseal' });
  try {
    await (await import('./system/reseal.js')).resealSecrets({ ...shared, db: sealer.db });
  } finally {
    await sealer.pool.end();
  }
  const apiDeps: Deps | undefined =
    config.PROCESS_ROLE !== 'worker' ? { ...shared, ...createApiDb(url, config) } : undefined;
  const workerDeps: Deps | undefined =
    config.PROCESS_ROLE !== 'api' ? { ...shared, ...createWorkerDb(url, config) } : undefined;
  if (apiDeps) metrics.addPool('api', apiDeps.pool);
  if (workerDeps) metrics.addPool('worker', workerDeps.pool);
  metrics.setQueueSource((apiDeps ?? workerDeps)!.pool);

  // Readiness of the worker part: started, and its Graphile runner has not ended (stopped or crashed).
  let workerRunning = false;
  const ops = workerDeps ? { workerRunning: () => workerRunning } : {};
  // Each role loads only its own code (dynamic imports): a worker-only process never loads Fastify's
  // routes and plugins (its idle RSS drops from 146 to 117 MB), an API-only process never loads the job handlers.
  const app = apiDeps ? await (await import('./app.js')).buildApp(apiDeps, { ops }) : undefined;
  const worker = workerDeps ? await (await import('./worker/runner.js')).startWorker(workerDeps) : undefined;
  if (worker) {
    workerRunning = true;
    void worker.ended.then(() => (workerRunning = false));
  }
  if (app) await app.listen({ port: config.PORT, host: config.HOST });
  const submission =
    app && submitting
      ? await (
          await import('./submission/server.js')
        ).startSubmissionServer(apiDeps!, {
          tls,
          rateCheck: (await import('./http/rate-limit.js')).projectRateCheck(app, apiDeps!),
        })
      : undefined;
  // Bounces and complaints by mail (src/feedback/mx/), loaded only when its port is set.
  const inbound =
    app && receiving
      ? await (await import('./feedback/mx/server.js')).startInboundServer(apiDeps!, { tls })
      : undefined;
  // A worker-only process serves no API, but answers /health, /ready and /metrics on its port.
  const opsServer =
    !app && workerDeps
      ? await (
          await import('./ops/ops-server.js')
        ).startOpsServer(
          { metrics, pool: workerDeps.pool, metricsToken: config.METRICS_TOKEN, ...ops },
          { port: config.PORT, host: config.HOST },
          log,
          () => new Date(),
        )
      : undefined;
  log.info(
    { role: config.PROCESS_ROLE, port: config.PORT, embedded: !!embedded, ms: Date.now() - started },
    'pigeon started',
  );
  // For the person at the terminal: the JSON log above is for machines (stdout), this line is not (stderr).
  process.stderr.write(`${startLine(config)}\n`);

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
      await submission?.close();
      await inbound?.close();
      await app?.close();
      workerRunning = false;
      await worker?.stop();
      await opsServer?.close();
      await shared.transport.close();
      if (workerDeps) await closeTransports(workerDeps);
      await apiDeps?.pool.end();
      await workerDeps?.pool.end();
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
  // A library's error may quote a connection string: never print the secrets of the environment.
  process.stderr.write(scrubSecrets(`Pigeon failed to start: ${err?.stack ?? err}\n`, process.env));
  process.exit(1);
});
