import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../test/factories.js';
import { createHarness, type Harness, type Json } from '../../test/harness.js';
import { refusedAddress } from '../lib/safe-http.js';
import { workflowApi } from '../../test/workflows-helpers.js';

interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A local HTTP server recording every request; `/fail` answers 500, `/to-metadata` redirects to 169.254.169.254. */
async function startReceiver() {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      received.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      if (req.url === '/fail') return res.writeHead(500).end('broken');
      if (req.url === '/to-metadata')
        return res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      if (req.url === '/moved') return res.writeHead(307, { location: '/hook' }).end();
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ ok: true, pad: 'x'.repeat(5000) }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    received,
    port,
    base: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const finished = async (h: Harness, api: ReturnType<typeof workflowApi>, wfId: string, contactId: string) => {
  for (let i = 0; i < 200; i++) {
    const [e] = await h.sql(`select * from workflow_executions where workflow_id = $1 and contact_id = $2`, [
      wfId,
      contactId,
    ]);
    if (e && !['RUNNING', 'WAITING'].includes(e.status)) {
      const detail = await api.req('GET', `/workflows/${wfId}/executions/${e.id}`);
      return detail.body;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('execution did not finish');
};

describe('WEBHOOK steps with WEBHOOK_ALLOW_PRIVATE_ADDRESSES=true', () => {
  let h: Harness;
  let p: TestProject;
  let api: ReturnType<typeof workflowApi>;
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    rx = await startReceiver();
    h = await createHarness({ worker: true, env: { WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true' } });
    p = await createProject(h);
    api = workflowApi(h, p);
  });
  afterAll(async () => {
    await h?.close();
    await rx?.close();
  });

  it('posts the payload (contact, trigger data, context) with the configured headers, following a redirect, and stores the answer', async () => {
    const wf = await api.build(
      'hooked',
      {
        hook: ['WEBHOOK', { url: `${rx.base}/moved`, method: 'POST', headers: { 'x-token': 'abc' } }],
        mark: ['UPDATE_CONTACT', { updates: { hooked: true } }],
      },
      [
        ['trigger', 'hook'],
        ['hook', 'mark'],
      ],
    );
    const c = await api.track('hook@example.test', 'hooked', {
      plan: 'pro',
      order: { value: 'A-1', persistent: false },
    });
    const ex = await finished(h, api, wf.id, c);
    expect(ex.status).toBe('COMPLETED');
    const hits = rx.received.filter((r) => r.url === '/hook');
    expect(hits).toHaveLength(1);
    expect(hits[0].method).toBe('POST');
    expect(hits[0].headers['x-token']).toBe('abc');
    const payload = JSON.parse(hits[0].body);
    expect(payload).toMatchObject({
      workflowId: wf.id,
      executionId: ex.id,
      contact: { id: c, email: 'hook@example.test', data: { plan: 'pro' } },
    });
    expect(payload.event).toMatchObject({ order: 'A-1' });
    const step = ex.steps.find((s: Json) => s.stepId === wf.steps.hook);
    expect(step.status).toBe('COMPLETED');
    expect(step.output).toMatchObject({ status: 200, attempts: 1, url: `${rx.base}/hook` });
    expect(step.output.body.length).toBe(2000);
    expect((await h.sql(`select data from contacts where id = $1`, [c]))[0].data.hooked).toBe(true);
  });

  it('tries a failing receiver 3 times, then the step and the execution are FAILED', async () => {
    const before = rx.received.filter((r) => r.url === '/fail').length;
    const wf = await api.build(
      'hook-fail',
      { hook: ['WEBHOOK', { url: `${rx.base}/fail`, method: 'PUT', body: { hello: 'world' } }] },
      [['trigger', 'hook']],
    );
    const c = await api.track('fail@example.test', 'hook-fail');
    const ex = await finished(h, api, wf.id, c);
    expect(ex.status).toBe('FAILED');
    expect(ex.exitReason).toContain('HTTP 500');
    const fails = rx.received.filter((r) => r.url === '/fail').slice(before);
    expect(fails).toHaveLength(3);
    expect(JSON.parse(fails[0].body)).toEqual({ hello: 'world' });
    expect(ex.steps.find((s: Json) => s.stepId === wf.steps.hook)).toMatchObject({
      status: 'FAILED',
      attempts: 3,
      output: { status: 500, body: 'broken' },
    });
  });

  it('still refuses a redirect to the cloud metadata address', async () => {
    const wf = await api.build('hook-meta', { hook: ['WEBHOOK', { url: `${rx.base}/to-metadata`, method: 'GET' }] }, [
      ['trigger', 'hook'],
    ]);
    const c = await api.track('meta@example.test', 'hook-meta');
    const ex = await finished(h, api, wf.id, c);
    expect(ex.status).toBe('FAILED');
    expect(ex.steps.find((s: Json) => s.stepId === wf.steps.hook).error).toContain('metadata');
    expect(rx.received.filter((r) => r.url === '/to-metadata')).toHaveLength(1);
  });
});

describe('WEBHOOK steps with private addresses refused (the default)', () => {
  let h: Harness;
  let api: ReturnType<typeof workflowApi>;
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    rx = await startReceiver();
    h = await createHarness({ worker: true });
    api = workflowApi(h, await createProject(h));
  });
  afterAll(async () => {
    await h?.close();
    await rx?.close();
  });

  it('refuses loopback (also behind a host name), link-local and metadata addresses: step FAILED, no request made', async () => {
    const urls = [
      'http://169.254.169.254/latest/meta-data/',
      `${rx.base}/hook`,
      `http://localhost:${rx.port}/hook`,
      `http://[::1]:${rx.port}/hook`,
    ];
    for (const [i, url] of urls.entries()) {
      const wf = await api.build(`ssrf-${i}`, { hook: ['WEBHOOK', { url, method: 'POST' }] }, [['trigger', 'hook']]);
      const c = await api.track(`ssrf${i}@example.test`, `ssrf-${i}`);
      const ex = await finished(h, api, wf.id, c);
      expect(ex.status, url).toBe('FAILED');
      const step = ex.steps.find((s: Json) => s.stepId === wf.steps.hook);
      expect(step, url).toMatchObject({ status: 'FAILED', attempts: 0, output: { status: null } });
      expect(step.error, url).toMatch(/loopback|metadata/);
    }
    expect(rx.received).toHaveLength(0);
  });

  it('classifies addresses', () => {
    for (const a of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
    ]) {
      expect(refusedAddress(a, false), a).not.toBeNull();
    }
    for (const a of ['93.184.216.34', '2606:4700::1111', '8.8.8.8']) expect(refusedAddress(a, false), a).toBeNull();
    expect(refusedAddress('10.1.2.3', true)).toBeNull();
    expect(refusedAddress('169.254.169.254', true)).toContain('metadata');
  });
});
