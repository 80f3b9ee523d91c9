import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { blocksDocument } from '../content/blocks.schema.js';
import { GALLERY_SOURCES } from './gallery/index.js';

let h: Harness;
let p: TestProject;
beforeAll(async () => {
  h = await createHarness();
  p = await createProject(h);
});
afterAll(async () => {
  await h.close();
});

describe('GET /templates/gallery', () => {
  it('lists every starter template, in gallery order, with its document parsed in full', async () => {
    const res = await h.request('GET', '/templates/gallery', { key: p.secretKey });
    expect(res.status).toBe(200);
    expect(res.body.data.map((t: { key: string }) => t.key)).toEqual(GALLERY_SOURCES.map((t) => t.key));
    for (const [i, t] of GALLERY_SOURCES.entries()) {
      const served = res.body.data[i];
      expect(served).toMatchObject({
        key: t.key,
        name: t.name,
        description: t.description,
        type: t.type,
        subject: t.subject,
        preheader: t.preheader,
      });
      // Defaults filled in (the editor opens the document as is) and the answer parses again.
      expect(served.blocks).toEqual(JSON.parse(JSON.stringify(blocksDocument.parse(t.blocks))));
      expect(served.blocks.style.fontFamily).toBe('Arial, Helvetica, sans-serif');
    }
  });

  it('answers the session of a member too', async () => {
    const res = await h.request('GET', '/templates/gallery', {
      cookie: p.owner.cookie,
      headers: { 'x-project-id': p.id },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(GALLERY_SOURCES.length);
  });

  it('answers 401 without a credential', async () => {
    const res = await h.request('GET', '/templates/gallery');
    expect(res.status).toBe(401);
  });
});

describe('GET /templates/gallery/:key', () => {
  it('answers one starter template by its key', async () => {
    const res = await h.request('GET', '/templates/gallery/password-reset', { key: p.secretKey });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ key: 'password-reset', type: 'TRANSACTIONAL', subject: 'Reset your password' });
    expect(res.body.blocks.version).toBe(1);
  });

  it('answers 404 in the error envelope for a key the gallery does not have', async () => {
    for (const key of ['no-such-template', 'WELCOME', '__proto__', 'constructor']) {
      const res = await h.request('GET', `/templates/gallery/${key}`, { key: p.secretKey });
      expect(res.status, key).toBe(404);
      expect(res.body).toMatchObject({ success: false, error: { code: 'RESOURCE_NOT_FOUND', statusCode: 404 } });
    }
  });
});

describe('a starter as the editor uses it', () => {
  it('previews each starter, taken from the gallery, with an empty check list and its MJML', async () => {
    const list = await h.request('GET', '/templates/gallery', { key: p.secretKey });
    for (const t of list.body.data) {
      const res = await h.request('POST', '/templates/preview', {
        key: p.secretKey,
        body: { subject: t.subject, body: '', type: t.type, format: 'blocks', blocks: t.blocks },
      });
      expect(res.status, `${t.key}: ${res.text.slice(0, 300)}`).toBe(200);
      expect(res.body.checks, t.key).toEqual([]);
      expect(res.body.mjml, t.key).toMatch(/^<mjml/);
      expect(res.body.html, t.key).toMatch(/<html[^>]* lang="en"/);
      expect(res.body.text, t.key).not.toBe('');
    }
  });
});
