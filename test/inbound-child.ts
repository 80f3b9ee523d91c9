/**
 * The inbound (bounce) SMTP server alone in a process of its own, for measuring its memory from
 * outside (src/feedback/mx/limits.test.ts, bench/inbound-memory.ts). No database: the messages it is sent
 * are no reports, which are acknowledged before any query. Prints `{"port": n}` once listening.
 */
import pino from 'pino';
import { loadConfig } from '../src/config.js';
import type { Deps } from '../src/deps.js';
import { startInboundServer } from '../src/feedback/mx/server.js';

const config = loadConfig({ BOUNCE_DOMAIN: 'bounces.pigeon.test', LOG_LEVEL: 'silent' });
const deps = {
  config,
  log: pino({ level: 'silent' }),
  secret: process.env.CHILD_SECRET ?? 'child-secret-child-secret-child-secret-01',
  clock: { now: () => new Date() },
} as unknown as Deps;
const server = await startInboundServer(deps, { port: 0, host: '127.0.0.1' });
process.stdout.write(`${JSON.stringify({ port: server.port })}\n`);
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
