import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';

const PASSWORD = 'pa55-w0rd-not-in-any-answer';
const SES_SECRET = 'ses/Secret+Key-not-in-any-answer';

// The test call of a transport against a real SMTP server and a stand-in for the SES API.
// POST /transports/:id/test against a real SMTP server on 127.0.0.1 (private addresses allowed).
describe('/transports/:id/test with a real SMTP server', () => {
  let h: Harness;
  let p: TestProject;
  let server: SMTPServer;
  let port: number;
  const logins: string[] = [];

  beforeAll(async () => {
    h = await createHarness({ env: { TRANSPORT_ALLOW_PRIVATE_ADDRESSES: 'true' } });
    p = await createProject(h);
    // smtp-server's own self-signed certificate: STARTTLS with tlsRejectUnauthorized=false.
    server = new SMTPServer({
      authMethods: ['PLAIN', 'LOGIN'],
      onAuth(auth, _session, cb) {
        logins.push(`${auth.username}:${auth.password}`);
        if (auth.username === 'good' && auth.password === PASSWORD) return cb(null, { user: 'good' });
        const err = new Error('Authentication credentials invalid') as Error & { responseCode: number };
        err.responseCode = 535;
        cb(err);
      },
      logger: false,
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await h?.close();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  const test = async (url: string) => {
    const t = await h.request('POST', '/transports', {
      key: p.secretKey,
      body: { name: `T ${logins.length} ${Math.random()}`, kind: 'smtp', settings: { url } },
    });
    expect(t.status, t.text).toBe(201);
    const r = await h.request('POST', `/transports/${t.body.id}/test`, { key: p.secretKey });
    expect(r.status).toBe(200);
    return r.body;
  };

  it('connects, upgrades with STARTTLS and logs in with the sealed password', async () => {
    const r = await test(`smtp://good:${encodeURIComponent(PASSWORD)}@127.0.0.1:${port}?tlsRejectUnauthorized=false`);
    expect(r).toEqual({
      ok: true,
      message: `Connected to 127.0.0.1:${port}, STARTTLS and login accepted.`,
      durationMs: expect.any(Number),
    });
    expect(logins).toContain(`good:${PASSWORD}`);
  });

  it('says the login was refused, with the server answer', async () => {
    const r = await test(`smtp://good:wrong@127.0.0.1:${port}?tlsRejectUnauthorized=false`);
    expect(r.ok).toBe(false);
    expect(r.message).toMatch(/^The server refused the login: 535 .*Authentication credentials invalid/);
  });

  it('says the certificate was not trusted when it is checked', async () => {
    const r = await test(`smtp://good:${encodeURIComponent(PASSWORD)}@127.0.0.1:${port}`);
    expect(r.ok).toBe(false);
    expect(r.message).toContain(`127.0.0.1:${port}`);
  });

  it('says the connection was refused when nothing listens', async () => {
    // A port just freed: nothing listens there.
    const spare = new SMTPServer({ logger: false });
    await new Promise<void>((resolve) => spare.listen(0, '127.0.0.1', resolve));
    const free = (spare.server.address() as AddressInfo).port;
    await new Promise<void>((resolve) => spare.close(() => resolve()));
    const r = await test(`smtp://127.0.0.1:${free}`);
    expect(r).toMatchObject({ ok: false, message: `Could not connect to 127.0.0.1:${free}: connection refused.` });
  });
});

// POST /transports/:id/test of an SES transport against a local stand-in for the SESv2 API.
describe('/transports/:id/test with SES', () => {
  let h: Harness;
  let p: TestProject;
  let server: http.Server;
  let base: string;
  const seen: Array<{ method: string; url: string; auth: string }> = [];
  let answer: { status: number; body: unknown; type?: string } = { status: 200, body: {} };

  beforeAll(async () => {
    h = await createHarness();
    p = await createProject(h);
    server = http.createServer((req, res) => {
      seen.push({ method: req.method!, url: req.url!, auth: String(req.headers.authorization ?? '') });
      res.writeHead(answer.status, {
        'content-type': 'application/json',
        ...(answer.type ? { 'x-amzn-errortype': answer.type } : {}),
      });
      res.end(JSON.stringify(answer.body));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await h?.close();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  /** An SES transport whose calls go to the stand-in (an endpoint the API does not take, set in its row). */
  const sesTransport = async () => {
    const t = await h.request('POST', '/transports', {
      key: p.secretKey,
      body: {
        name: `SES ${seen.length} ${Math.random()}`,
        kind: 'ses',
        settings: { region: 'eu-west-1', accessKeyId: 'AKIATESTKEY', secretAccessKey: SES_SECRET },
      },
    });
    expect(t.status).toBe(201);
    await h.sql(`update transports set settings = settings || jsonb_build_object('endpoint', $1::text) where id = $2`, [
      base,
      t.body.id,
    ]);
    return t.body.id as string;
  };

  it('calls GetAccount with the stored keys and says the send quota', async () => {
    answer = {
      status: 200,
      body: {
        SendingEnabled: true,
        ProductionAccessEnabled: true,
        SendQuota: { Max24HourSend: 50000, MaxSendRate: 14, SentLast24Hours: 12 },
      },
    };
    const id = await sesTransport();
    const r = await h.request('POST', `/transports/${id}/test`, { key: p.secretKey });
    expect(r.body).toEqual({
      ok: true,
      message:
        'SES in eu-west-1 accepts sending: quota 14 per second and 50000 per 24 hours (12 sent in the last 24 hours).',
      durationMs: expect.any(Number),
    });
    const call = seen.at(-1)!;
    expect(call).toMatchObject({ method: 'GET', url: '/v2/email/account' });
    expect(call.auth).toContain('Credential=AKIATESTKEY/');
  });

  it('says what SES refused', async () => {
    answer = {
      status: 403,
      type: 'AccessDeniedException',
      body: { message: 'User is not authorized to perform ses:GetAccount' },
    };
    const id = await sesTransport();
    const r = await h.request('POST', `/transports/${id}/test`, { key: p.secretKey });
    expect(r.status).toBe(200);
    expect(r.body.ok).toBe(false);
    expect(r.body.message).toBe(
      'SES in eu-west-1 refused: AccessDeniedException: User is not authorized to perform ses:GetAccount',
    );
  });
});
