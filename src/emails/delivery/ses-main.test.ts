import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { cloneDatabase, type Harness } from '../../../test/harness.js';
import { createVerifiedDomain, eventually } from '../../../test/sending-fixtures.js';
import { startSesServer } from '../../../test/ses-server.js';
import { freePort } from '../../lib/net.js';

const root = path.resolve(import.meta.dirname, '../../..');
const node = path.join(root, 'node_modules/.bin/node');

// The real entry point with SES_REGION: the transport is chosen from the configuration and the
// credentials come from the AWS default chain (here the environment variables of the child process).
describe('Pigeon started with SES_REGION', () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
  });

  it('sends through SES with the credentials of the environment and the configuration set', async () => {
    const creds = { accessKeyId: 'AKIDPIGEONMAINTEST01', secretAccessKey: 'pigeon-main-test-secret-0123456789abcdef' };
    const ses = await startSesServer(creds);
    cleanups.push(() => ses.close());
    const dbUrl = await cloneDatabase();
    const pool = new pg.Pool({ connectionString: dbUrl, max: 2 });
    cleanups.push(() => pool.end());
    const dataDir = await mkdtemp(path.join(tmpdir(), 'pigeon-ses-main-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;

    const env: Record<string, string> = {
      ...(process.env as Record<string, string>),
      DATABASE_URL: dbUrl,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      SES_REGION: 'eu-central-1',
      SES_ENDPOINT: ses.url,
      SES_CONFIGURATION_SET: 'pigeon-feedback',
      AWS_ACCESS_KEY_ID: creds.accessKeyId,
      AWS_SECRET_ACCESS_KEY: creds.secretAccessKey,
    };
    for (const k of ['SMTP_URL', 'AWS_PROFILE', 'AWS_SESSION_TOKEN', 'AWS_CONFIG_FILE', 'AWS_SHARED_CREDENTIALS_FILE'])
      delete env[k];
    const child = spawn(node, ['--import', 'tsx', 'src/main.ts'], {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    const exited = new Promise((resolve) => child.on('exit', resolve));
    cleanups.push(async () => {
      child.kill('SIGTERM');
      await exited;
    });

    await eventually(
      async () => (await fetch(`${base}/config`).catch(() => undefined))?.ok,
      60_000,
      () => `the server to start:\n${out}`,
    );
    const post = async (p: string, body: unknown, headers: Record<string, string> = {}) => {
      const res = await fetch(base + p, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
      return {
        status: res.status,
        body: await res.json(),
        cookie: /session=[^;]+/.exec(res.headers.get('set-cookie') ?? '')?.[0],
      };
    };
    const signup = await post('/auth/signup', { email: 'ses-owner@example.test', password: 'a long password' });
    expect(signup.status).toBe(201);
    const project = await post('/users/@me/projects', { name: 'SES' }, { cookie: signup.cookie! });
    expect(project.status).toBe(201);
    const sql = async (text: string, params?: unknown[]) => (await pool.query(text, params)).rows;
    const d = await createVerifiedDomain({ sql } as unknown as Harness, project.body.id);

    const sent = await post(
      '/v1/send',
      { to: 'ses-reader@example.test', from: `hello@${d.domain}`, subject: 'Via SES', body: '<p>x</p>' },
      { authorization: `Bearer ${project.body.secret}` },
    );
    expect(sent.status).toBe(200);
    const id = sent.body.data.emails[0].email;
    const row = await eventually(
      async () =>
        (await sql(`select status, provider_message_id from emails where id = $1 and status = 'SENT'`, [id]))[0],
      30_000,
      () => `SENT:\n${out}`,
    );
    const [req] = ses.to('ses-reader@example.test');
    expect(req).toMatchObject({
      signatureValid: true,
      configurationSet: 'pigeon-feedback',
      messageId: row.provider_message_id,
    });
    expect(req.scope).toMatch(/^AKIDPIGEONMAINTEST01\/\d{8}\/eu-central-1\/ses\/aws4_request$/);
  }, 120_000);
});
