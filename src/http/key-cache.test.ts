import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { sha256 } from '../lib/crypto.js';

// API keys are cached per process; every change of a project's keys or state reaches every process
// through the projects trigger's NOTIFY, so a rotation made elsewhere takes effect at once.
describe('the API key cache', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(() => h?.close());

  const track = (key: string) =>
    h.request('POST', '/v1/track', { key, body: { email: 'cache@example.test', event: 'ping' } });
  /** Changes the project as another process would, in SQL, optionally without firing triggers. */
  const change = (projectId: string, set: string, silently = false) =>
    h.sql(
      `begin; ${silently ? 'set local session_replication_role = replica;' : ''} update projects set ${set} where id = '${projectId}'; commit;`,
    );

  it('serves a known key from the cache, and forgets it when a change elsewhere is notified', async () => {
    const p = await createProject(h);
    expect((await track(p.publicKey)).status).toBe(200);
    // Give the listener time to be up, then load the key into the cache.
    await expect.poll(async () => (await track(p.publicKey)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 200));
    expect((await track(p.publicKey)).status).toBe(200);

    // A change that notifies nobody (triggers off): the cached key still works, so it is cached.
    const other = 'pk_' + 'b'.repeat(64);
    await change(p.id, `public_key_hash = '${sha256(other)}'`, true);
    expect((await track(p.publicKey)).status).toBe(200);

    // The same kind of change with the trigger: the old key stops working at once, the new one works.
    const next = 'pk_' + 'c'.repeat(64);
    await change(p.id, `public_key_hash = '${sha256(next)}'`);
    await expect.poll(async () => (await track(p.publicKey)).status, { timeout: 1000, interval: 20 }).toBe(401);
    expect((await track(next)).status).toBe(200);

    // Disabling the project elsewhere is seen at once too.
    await change(p.id, 'disabled = true');
    await expect.poll(async () => (await track(next)).status, { timeout: 1000, interval: 20 }).toBe(403);
  });

  it('rejects the old keys in the same process right after a rotation through the API', async () => {
    const p = await createProject(h);
    for (let i = 0; i < 3; i++) expect((await h.request('GET', '/contacts', { key: p.secretKey })).status).toBe(200);
    const rotated = await h.request('POST', `/users/@me/projects/${p.id}/regenerate-keys`, { cookie: p.owner.cookie });
    expect(rotated.status).toBe(200);
    expect((await h.request('GET', '/contacts', { key: p.secretKey })).status).toBe(401);
    expect((await h.request('GET', '/contacts', { key: rotated.body.secret })).status).toBe(200);
  });
});
