import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createVerifiedUser, type TestProject, type TestUser } from '../../test/factories.js';
import { createHarness, type Harness, type Json } from '../../test/harness.js';
import { keyring } from '../lib/secret-places.js';
import { openStepConfig } from './step-secrets.js';

// Issue "Hardening" 10: WEBHOOK step headers are secrets that MEMBERs do not see or overwrite.
describe('WEBHOOK step headers and roles', () => {
  let h: Harness;
  let p: TestProject;
  let admin: TestUser;
  let member: TestUser;
  const SECRET = 'Bearer sk_live_abcdef123456';
  const headers = { Authorization: SECRET, 'X-Short': 'abc' };

  beforeAll(async () => {
    h = await createHarness();
    p = await createProject(h);
    // Only a user with a verified address joins at once (others get an invitation).
    admin = await createVerifiedUser(h);
    member = await createVerifiedUser(h);
    for (const [u, role] of [
      [admin, 'ADMIN'],
      [member, 'MEMBER'],
    ] as const) {
      const r = await h.request('POST', `/projects/${p.id}/members`, {
        cookie: p.owner.cookie,
        body: { email: u.email, role },
      });
      expect(r.status, r.text).toBe(201);
    }
  });
  afterAll(async () => h?.close());

  const as = (who: TestUser | 'key') => (method: string, path: string, body?: unknown) =>
    who === 'key'
      ? h.request(method, path, { key: p.secretKey, body })
      : h.request(method, path, { cookie: who.cookie, headers: { 'x-project-id': p.id }, body });
  /** The step's row with its config opened (the row itself holds the header values sealed). */
  const stored = async (stepId: string) => {
    const row = (await h.sql(`select name, config from workflow_steps where id = $1`, [stepId]))[0];
    for (const v of Object.values((row.config.headers ?? {}) as Record<string, string>)) expect(v).toMatch(/^enc:v1:/);
    return { ...row, config: openStepConfig(keyring(h.deps), 'WEBHOOK', row.config) };
  };

  async function workflowWithHook() {
    const wf = await as('key')('POST', '/workflows', { name: 'hooked', eventName: 'hooked' });
    const step = await as('key')('POST', `/workflows/${wf.body.id}/steps`, {
      type: 'WEBHOOK',
      name: 'hook',
      config: { url: 'https://example.com/hook', headers },
    });
    expect(step.status, step.text).toBe(201);
    expect(step.body.config.headers).toEqual(headers);
    return { wf: wf.body.id as string, step: step.body.id as string };
  }

  it('masks header values in every answer to a MEMBER; OWNER, ADMIN and the secret key see them', async () => {
    const { wf, step } = await workflowWithHook();
    const masked = { Authorization: '••••3456', 'X-Short': '••••' };

    const seen = await as(member)('GET', `/workflows/${wf}`);
    expect(seen.status).toBe(200);
    expect(seen.body.steps.find((s: Json) => s.id === step).config).toEqual({
      url: 'https://example.com/hook',
      method: 'POST',
      headers: masked,
    });
    expect(seen.text).not.toContain('abcdef');
    const patched = await as(member)('PATCH', `/workflows/${wf}`, { description: 'by a member' });
    expect(patched.status).toBe(200);
    expect(patched.body.steps.find((s: Json) => s.id === step).config.headers).toEqual(masked);
    const renamed = await as(member)('PATCH', `/workflows/${wf}/steps/${step}`, { name: 'renamed hook' });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'renamed hook', config: { headers: masked } });
    expect((await stored(step)).config.headers).toEqual(headers);

    for (const who of [p.owner, admin, 'key'] as const) {
      const r = await as(who)('GET', `/workflows/${wf}`);
      expect(
        r.body.steps.find((s: Json) => s.id === step).config.headers,
        String(who === 'key' ? who : who.email),
      ).toEqual(headers);
    }

    // A MEMBER's own new WEBHOOK step: stored as sent, answered masked.
    const own = await as(member)('POST', `/workflows/${wf}/steps`, {
      type: 'WEBHOOK',
      name: 'mine',
      config: { url: 'https://example.org/x', headers: { 'X-Api-Key': 'member-key-0000-9999' } },
    });
    expect(own.status, own.text).toBe(201);
    expect(own.body.config.headers).toEqual({ 'X-Api-Key': '••••9999' });
    expect((await stored(own.body.id)).config.headers).toEqual({ 'X-Api-Key': 'member-key-0000-9999' });
  });

  it('a MEMBER may not change the config of a WEBHOOK step with headers (the mask never overwrites the secret); an ADMIN may', async () => {
    const { wf, step } = await workflowWithHook();
    const shown = (await as(member)('GET', `/workflows/${wf}`)).body.steps.find((s: Json) => s.id === step).config;
    for (const config of [
      shown,
      { ...shown, url: 'https://attacker.example/steal' },
      { url: 'https://example.com/hook' },
    ]) {
      const r = await as(member)('PATCH', `/workflows/${wf}/steps/${step}`, { config });
      expect(r.status).toBe(403);
      expect(r.body.error.code).toBe('FORBIDDEN');
    }
    expect((await stored(step)).config).toEqual({ url: 'https://example.com/hook', method: 'POST', headers });

    const byAdmin = await as(admin)('PATCH', `/workflows/${wf}/steps/${step}`, {
      config: { url: 'https://example.com/v2', headers: { Authorization: 'Bearer rotated-000000' } },
    });
    expect(byAdmin.status, byAdmin.text).toBe(200);
    expect(byAdmin.body.config.headers).toEqual({ Authorization: 'Bearer rotated-000000' });
    // Without headers the step holds no secret, and a MEMBER may change it.
    const plain = await as(admin)('PATCH', `/workflows/${wf}/steps/${step}`, {
      config: { url: 'https://example.com/v3' },
    });
    expect(plain.status).toBe(200);
    expect(
      (await as(member)('PATCH', `/workflows/${wf}/steps/${step}`, { config: { url: 'https://example.com/v4' } }))
        .status,
    ).toBe(200);
  });
});
