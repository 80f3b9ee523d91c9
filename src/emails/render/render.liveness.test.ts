import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../../test/factories.js';
import { createHarness, type Harness } from '../../../test/harness.js';
import { createVerifiedDomain, eventually, type TestDomain } from '../../../test/sending-fixtures.js';
import { startSmtpSink, type SmtpSink } from '../../../test/smtp-sink.js';
import { compileTemplate, renderTemplate } from './liquid.js';

// The process keeps answering while templates render (issue: one /v1/send froze the worker, and the
// API with it in PROCESS_ROLE=all, for minutes, 10 times over). Here the API and the worker share
// this process, as with PROCESS_ROLE=all.
describe('rendering never freezes the process', () => {
  let h: Harness;
  let sink: SmtpSink;
  let p: TestProject;
  let d: TestDomain;

  beforeAll(async () => {
    sink = await startSmtpSink();
    h = await createHarness({ env: { SMTP_URL: sink.url }, worker: true });
    p = await createProject(h);
    d = await createVerifiedDomain(h, p.id);
  });
  afterAll(async () => {
    await h?.close();
    await sink?.close();
  });

  // A loop inside the memory limit that runs until the render time limit stops it.
  const LONG_LOOP = '{% for i in (1..3000) %}{% for j in (1..3000) %}{% assign k = j %}{% endfor %}{% endfor %}';

  it('answers GET /health while a long render runs in the same process', async () => {
    let settled = false;
    const render = renderTemplate(compileTemplate('html', LONG_LOOP), {})
      .then(
        () => 'rendered',
        (e: { reason?: string }) => e.reason,
      )
      .finally(() => {
        settled = true;
      });
    let answeredDuring = 0;
    while (!settled) {
      const res = await h.request('GET', '/health');
      expect(res.status).toBe(200);
      if (!settled) answeredDuring++;
    }
    expect(await render).toBe('template render limit exceeded');
    expect(answeredDuring).toBeGreaterThan(0);
  });

  /** Polls /health and the email's status until it leaves PENDING/SENDING; counts answers while SENDING. */
  async function watch(emailId: string) {
    let whileSending = 0;
    for (;;) {
      const health = await h.request('GET', '/health');
      expect(health.status).toBe(200);
      const [row] = await h.sql('select status, attempts, error from emails where id = $1', [emailId]);
      if (row.status === 'SENDING') whileSending++;
      else if (row.status !== 'PENDING') return { ...row, whileSending };
    }
  }

  it('fails a stored template of the issue at once, without retries, while the process keeps answering', async () => {
    // Saved before templates were checked on save; now refused with a 422, so written directly.
    const tpl = async (body: string) => {
      const id = randomUUID();
      await h.sql(
        `insert into templates (id, project_id, name, subject, body, "from", type) values ($1, $2, 'old', 'Hi {{name}}', $3, $4, 'TRANSACTIONAL')`,
        [id, p.id, body, `hi@${d.domain}`],
      );
      return id;
    };
    const send = async (template: string, to: string) => {
      const res = await h.request('POST', '/v1/send', { key: p.secretKey, body: { to, template } });
      expect(res.status).toBe(200);
      return res.body.data.emails[0].email as string;
    };
    const cubic = await send(await tpl('{{a ??' + ' '.repeat(10_000) + 'x'), 'cubic@example.test');
    const quadratic = await send(await tpl('<p>' + '<a'.repeat(20_000) + '</p>'), 'quadratic@example.test');

    expect(await watch(cubic)).toMatchObject({
      status: 'FAILED',
      attempts: 1,
      error: expect.stringMatching(
        /^Rendering failed: the body template failed at line 1, column 1: output .* not closed$/,
      ),
    });
    expect(await watch(quadratic)).toMatchObject({ status: 'DELIVERED', attempts: 1 });
    const mail = await eventually(async () => sink.to('quadratic@example.test')[0], 15_000, 'mail');
    expect(String(mail.parsed.html)).toContain('<a'.repeat(100));
  });

  it('stops a template that renders too long after one attempt, answering /health throughout', async () => {
    const tpl = await h.request('POST', '/templates', {
      key: p.secretKey,
      body: { name: 'Loop', subject: 'Loop', body: LONG_LOOP, from: `hi@${d.domain}`, type: 'TRANSACTIONAL' },
    });
    expect(tpl.status).toBe(201);
    const res = await h.request('POST', '/v1/send', {
      key: p.secretKey,
      body: { to: 'loop@example.test', template: tpl.body.id },
    });
    expect(res.status).toBe(200);
    const outcome = await watch(res.body.data.emails[0].email);
    expect(outcome).toMatchObject({
      status: 'FAILED',
      attempts: 1,
      error: 'Rendering failed: the body template failed at line 1, column 25: template render limit exceeded',
    });
    // The render lasts a second of work, handing the event loop back every 10 ms: many answers came
    // while it ran. Held in one piece, only the few before the render starts could.
    expect(outcome.whileSending).toBeGreaterThanOrEqual(10);
    expect(sink.to('loop@example.test')).toEqual([]);
  });
});
