import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { createVerifiedDomain, eventually, type TestDomain } from '../../test/sending-fixtures.js';
import { startSmtpSink, type SmtpSink } from '../../test/smtp-sink.js';

// Issue 38's formats end to end: MJML and blocks compiled once at save, sent as that HTML.
let h: Harness;
let sink: SmtpSink;
let p: TestProject;
let d: TestDomain;

beforeAll(async () => {
  sink = await startSmtpSink();
  h = await createHarness({ env: { SMTP_URL: sink.url }, worker: true });
  p = await createProject(h);
  d = await createVerifiedDomain(h, p.id);
  // Tracking off, so the sent HTML can be compared with the preview byte for byte.
  await h.sql(`update projects set tracking = 'DISABLED' where id = $1`, [p.id]);
});
afterAll(async () => {
  await h.close();
  await sink.close();
});

const MJML = `<mjml>
  <mj-body>
    <mj-section>
      <mj-column>
        <mj-text>Hello {{ name ?? 'friend' }}, welcome aboard.</mj-text>
        <mj-button href="https://example.com/start?u={{ email }}">Get started</mj-button>
      </mj-column>
    </mj-section>
  </mj-body>
</mjml>`;

const template = (body: Record<string, unknown>) =>
  h.request('POST', '/templates', {
    key: p.secretKey,
    body: {
      name: 'T',
      subject: 'Welcome {{ name ?? "friend" }}',
      from: `hi@${d.domain}`,
      type: 'TRANSACTIONAL',
      ...body,
    },
  });
const mailTo = (to: string) => eventually(async () => sink.to(to)[0], 20_000, `mail to ${to}`);
const unix = (s: string) => s.replace(/\r\n/g, '\n');

const DOC = {
  version: 1,
  preheader: 'Your account is ready',
  blocks: [
    { id: 'h1', type: 'heading', text: "Hi {{ name ?? 'there' }}" },
    { id: 't1', type: 'text', html: '<p>Thanks for joining <b>Acme</b>.</p>' },
    {
      id: 'c1',
      type: 'columns',
      columns: [
        { blocks: [{ id: 'i1', type: 'image', src: 'https://example.com/a.png', alt: 'A chart' }] },
        { blocks: [{ id: 'b1', type: 'button', label: 'Open', href: 'https://example.com/open' }] },
      ],
    },
    { id: 'f1', type: 'footer', html: '<p>Acme Inc., 1 Main St</p>' },
  ],
};

describe('format mjml', () => {
  it('compiles at save, keeps the MJML as the body, and /v1/send delivers the compiled HTML with variables and a text part', async () => {
    const t = await template({ format: 'mjml', body: MJML });
    expect(t.status).toBe(201);
    expect(t.body).toMatchObject({ format: 'mjml', body: MJML, blocks: null });
    expect(t.body.html).toMatch(/^<!doctype html>/i);
    expect(t.body.html).toContain('mj-column-per-100');
    expect(t.body.html).toContain("Hello {{ name ?? 'friend' }}");
    const [row] = await h.sql('select format, source, body from templates where id = $1', [t.body.id]);
    expect(row).toMatchObject({ format: 'mjml', source: MJML, body: t.body.html });

    const to = 'mjml-send@rcpt.test';
    const sent = await h.request('POST', '/v1/send', {
      key: p.secretKey,
      body: { to, template: t.body.id, data: { name: 'Ada' } },
    });
    expect(sent.status).toBe(200);
    const m = await mailTo(to);
    expect(m.parsed.subject).toBe('Welcome Ada');
    expect(m.parsed.html).toContain('Hello Ada, welcome aboard.');
    expect(m.parsed.html).toContain(`href="https://example.com/start?u=${to}"`);
    // Responsive: MJML's media query and Outlook conditionals came through.
    expect(m.parsed.html).toContain('@media only screen and (min-width:480px)');
    expect(m.parsed.html).toContain('<!--[if mso | IE]>');
    expect(m.parsed.text).toContain('Hello Ada, welcome aboard.');
    expect(m.parsed.text).toContain('Get started');
  });

  it('answers 422 invalid_template naming the line of invalid MJML, and writes nothing', async () => {
    const bad = MJML.replace('<mj-button', '<mj-buton').replace('</mj-button>', '</mj-buton>');
    const res = await template({ name: 'bad-mjml', format: 'mjml', body: bad });
    expect(res.status).toBe(422);
    expect(res.body.error.errors[0]).toMatchObject({ field: 'body', code: 'invalid_template' });
    expect(res.body.error.errors[0].message).toMatch(/line 6.*mj-buton/);
    expect(res.body.error.details).toMatchObject({ field: 'body', line: 6 });
    const notMjml = await template({ name: 'bad-mjml', format: 'mjml', body: '<p>just html</p>' });
    expect(notMjml.status).toBe(422);
    expect(notMjml.body.error.errors[0].code).toBe('invalid_template');
    const liquid = await template({
      name: 'bad-mjml',
      format: 'mjml',
      body: MJML.replace("{{ name ?? 'friend' }}", '{{ name'),
    });
    expect(liquid.status).toBe(422);
    expect(liquid.body.error.details).toMatchObject({ field: 'body', line: 5 });
    expect(await h.sql(`select 1 from templates where project_id = $1 and name = 'bad-mjml'`, [p.id])).toHaveLength(0);
  });

  it('never reads a file of the server through mj-include', async () => {
    const file = path.join(tmpdir(), `pigeon-include-${process.pid}.html`);
    writeFileSync(file, '<p>SERVER-SECRET-CONTENT</p>');
    const res = await template({
      format: 'mjml',
      body: `<mjml><mj-body><mj-include path="${file}" type="html" /><mj-section><mj-column><mj-text>x</mj-text></mj-column></mj-section></mj-body></mjml>`,
    });
    expect(res.status).toBe(201);
    expect(res.body.html).not.toContain('SERVER-SECRET-CONTENT');
  });

  it('changing the format keeps what is sent: mjml → html keeps the compiled HTML', async () => {
    const t = await template({ format: 'mjml', body: MJML });
    const res = await h.request('PATCH', `/templates/${t.body.id}`, { key: p.secretKey, body: { format: 'html' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ format: 'html', body: t.body.html, html: t.body.html, blocks: null });
    const back = await h.request('PATCH', `/templates/${t.body.id}`, { key: p.secretKey, body: { format: 'mjml' } });
    expect(back.status).toBe(422);
    expect(back.body.error.errors[0]).toMatchObject({ field: 'body', code: 'required' });
  });
});

describe('format blocks', () => {
  it('renders a document to the same HTML in the preview and in the sent mail', async () => {
    const t = await template({ format: 'blocks', blocks: DOC });
    expect(t.status).toBe(201);
    expect(t.body.format).toBe('blocks');
    expect(t.body.blocks.blocks).toHaveLength(4);
    expect(t.body.body).toMatch(/^<mjml lang="en">/);
    expect(t.body.html).toContain('Hi {{ name ?? &#39;there&#39; }}'.replace(/&#39;/g, "'"));

    const to = 'blocks-send@rcpt.test';
    const c = await h.request('POST', '/contacts', { key: p.secretKey, body: { email: to, data: { name: 'Grace' } } });
    expect(c.status).toBeLessThan(300);
    const preview = await h.request('POST', '/templates/preview', {
      cookie: p.owner.cookie,
      headers: { 'x-project-id': p.id },
      body: {
        subject: 'Welcome {{ name ?? "friend" }}',
        body: '',
        format: 'blocks',
        blocks: DOC,
        type: 'TRANSACTIONAL',
        contactId: c.body.id,
      },
    });
    expect(preview.status).toBe(200);
    expect(preview.body.checks).toEqual([]);
    expect(preview.body.mjml).toBe(t.body.body);
    expect(preview.body.text).toContain('Thanks for joining ACME.'.replace('ACME', 'Acme'));

    const sent = await h.request('POST', '/v1/send', { key: p.secretKey, body: { to, template: t.body.id } });
    expect(sent.status).toBe(200);
    const m = await mailTo(to);
    expect(m.parsed.html).toContain('Hi Grace');
    expect(unix(String(m.parsed.html))).toBe(unix(preview.body.html));
  });

  it('refuses to save an image without alt text, which the preview lists as an error of its block', async () => {
    const noAlt = structuredClone(DOC);
    (noAlt.blocks[2] as { columns: Array<{ blocks: Array<Record<string, unknown>> }> }).columns[0].blocks[0].alt = '';
    const res = await template({ name: 'no-alt', format: 'blocks', blocks: noAlt });
    expect(res.status).toBe(422);
    expect(res.body.error.errors[0]).toMatchObject({ field: 'blocks', code: 'missing_alt' });
    expect(res.body.error.details).toEqual({ blockIds: ['i1'] });
    const preview = await h.request('POST', '/templates/preview', {
      cookie: p.owner.cookie,
      headers: { 'x-project-id': p.id },
      body: { subject: 'x', body: '', format: 'blocks', blocks: noAlt, type: 'TRANSACTIONAL' },
    });
    expect(preview.status).toBe(200);
    expect(preview.body.checks).toEqual([
      expect.objectContaining({ code: 'missing_alt', severity: 'error', blockId: 'i1' }),
    ]);
  });

  it('names the block of a Liquid error, and refuses unknown block types', async () => {
    const broken = structuredClone(DOC);
    (broken.blocks[1] as { html: string }).html = '<p>{% if x %}open</p>';
    const res = await template({ format: 'blocks', blocks: broken });
    expect(res.status).toBe(422);
    expect(res.body.error.errors[0]).toMatchObject({ field: 'blocks.1.html', code: 'invalid_template' });
    expect(res.body.error.details).toMatchObject({ blockId: 't1', line: 1 });
    const unknown = await template({ format: 'blocks', blocks: { version: 1, blocks: [{ id: 'x', type: 'video' }] } });
    expect(unknown.status).toBe(422);
    const twice = await template({
      format: 'blocks',
      blocks: {
        version: 1,
        blocks: [
          { id: 'x', type: 'spacer' },
          { id: 'x', type: 'divider' },
        ],
      },
    });
    expect(twice.status).toBe(422);
    expect(JSON.stringify(twice.body.error.errors)).toContain('used twice');
  });

  it('strips script and event handlers from rich text written through the API', async () => {
    const doc = {
      version: 1,
      blocks: [
        {
          id: 't',
          type: 'text',
          html: '<p onclick="x()">Hi<script>alert(1)</script> <a href="javascript:alert(1)">l</a></p>',
        },
      ],
    };
    const t = await template({ format: 'blocks', blocks: doc });
    expect(t.status).toBe(201);
    expect(t.body.html).not.toMatch(/<script|onclick|javascript:/);
    expect(t.body.html).toContain('<p>Hi <a>l</a></p>');
  });
});

describe('the check list', () => {
  const preview = (body: Record<string, unknown>) =>
    h.request('POST', '/templates/preview', {
      cookie: p.owner.cookie,
      headers: { 'x-project-id': p.id },
      body: { subject: 'Hi', body: '', ...body },
    });

  it('warns of http links and images, a missing unsubscribe link in marketing mail, long subjects and large uploads', async () => {
    await h.sql(
      `insert into uploads (id, project_id, storage_key, content_type, size) values (gen_random_uuid(), $1, $2, 'image/png', $3)`,
      [p.id, `${p.id}/big.png`, 3 * 1024 * 1024],
    );
    const res = await preview({
      type: 'MARKETING',
      subject: 'A subject that goes on and on well past what a phone shows in its inbox list',
      body: `<p><a href="http://example.com/plain">plain</a><img src="http://example.com/x.png" alt="x"><img src="https://cdn.test/uploads/${p.id}/big.png" alt="big"><img src="https://example.com/y.png"></p>`,
    });
    expect(res.status).toBe(200);
    const codes = res.body.checks.map((c: { code: string }) => c.code).sort();
    expect(codes).toEqual([
      'image_too_large',
      'insecure_link',
      'insecure_link',
      'missing_alt',
      'no_unsubscribe',
      'subject_length',
    ]);
    // HTML written through the API is never refused by the list: warnings, and the footer Pigeon adds as info.
    expect(
      Object.fromEntries(res.body.checks.map((c: { code: string; severity: string }) => [c.code, c.severity])),
    ).toEqual({
      image_too_large: 'warning',
      insecure_link: 'warning',
      missing_alt: 'warning',
      no_unsubscribe: 'info',
      subject_length: 'warning',
    });
    const clean = await preview({ type: 'MARKETING', body: '<p><a href="{{ unsubscribeUrl }}">Unsubscribe</a></p>' });
    expect(clean.body.checks).toEqual([]);
  });
});

describe('campaigns', () => {
  it('a PUT without format keeps an MJML campaign MJML, and a blocks campaign its document', async () => {
    const base = { name: 'C', subject: 'News', from: `news@${d.domain}` };
    const c = await h.request('POST', '/campaigns', {
      key: p.secretKey,
      body: { ...base, format: 'mjml', body: MJML },
    });
    expect(c.status).toBe(201);
    expect(c.body.data).toMatchObject({ format: 'mjml', body: MJML });
    const put = await h.request('PUT', `/campaigns/${c.body.data.id}`, {
      key: p.secretKey,
      body: { ...base, subject: 'News 2', body: MJML.replace('welcome aboard', 'see you') },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ format: 'mjml', subject: 'News 2' });
    expect(put.body.html).toContain('see you');

    const b = await h.request('POST', '/campaigns', {
      key: p.secretKey,
      body: { ...base, format: 'blocks', blocks: DOC },
    });
    expect(b.status).toBe(201);
    // What a client that knows nothing of formats does: read, change the subject, send back.
    const read = (await h.request('GET', `/campaigns/${b.body.data.id}`, { key: p.secretKey })).body;
    const back = await h.request('PUT', `/campaigns/${read.id}`, {
      key: p.secretKey,
      body: { ...base, subject: 'Renamed', body: read.body },
    });
    expect(back.status).toBe(200);
    expect(back.body).toMatchObject({ format: 'blocks', subject: 'Renamed' });
    expect(back.body.blocks.blocks).toHaveLength(4);
    const variants = await h.request('PUT', `/campaigns/${read.id}`, {
      key: p.secretKey,
      body: {
        ...base,
        format: 'blocks',
        blocks: DOC,
        variants: [{ key: 'A' }, { key: 'B', body: '<p>b</p>' }],
        experiment: { testPercent: 20, metric: 'open' },
      },
    });
    expect(variants.status).toBe(422);
    expect(variants.body.error.errors[0]).toMatchObject({ field: 'variants.B.body', code: 'invalid_format' });
  });
});

describe('GET/PUT /email-style', () => {
  it("answers the defaults, then the project's saved style; other projects keep theirs", async () => {
    const q = await createProject(h);
    const first = await h.request('GET', '/email-style', { key: q.secretKey });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ brandColor: '#4f46e5', fontFamily: 'Arial, Helvetica, sans-serif', width: 600 });
    const put = await h.request('PUT', '/email-style', {
      key: q.secretKey,
      body: {
        brandColor: '#0f766e',
        fontFamily: 'Georgia, Times, serif',
        logoUrl: 'https://example.com/logo.png',
        logoAlt: 'Acme',
      },
    });
    expect(put.status).toBe(200);
    expect((await h.request('GET', '/email-style', { key: q.secretKey })).body).toMatchObject({
      brandColor: '#0f766e',
      fontFamily: 'Georgia, Times, serif',
      logoUrl: 'https://example.com/logo.png',
      width: 600,
    });
    expect((await h.request('GET', '/email-style', { key: p.secretKey })).body.brandColor).toBe('#4f46e5');
    const bad = await h.request('PUT', '/email-style', {
      key: q.secretKey,
      body: { brandColor: 'red', fontFamily: 'Comic Sans' },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error.errors.map((e: { field: string }) => e.field).sort()).toEqual(['brandColor', 'fontFamily']);
  });
});
