import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditHelpers, tpl } from '../../test/audit-helpers.js';
import { createProject, createVerifiedUser } from '../../test/factories.js';
import { createHarness, type Harness, type Json } from '../../test/harness.js';
import { auditRetentionJob } from './audit.jobs.js';

let h: Harness;
let verifiedProject: Helpers['verifiedProject'];
let call: Helpers['call'];
let entryCount: Helpers['entryCount'];
type Helpers = ReturnType<typeof auditHelpers>;
beforeAll(async () => {
  h = await createHarness({
    env: { WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true', TRANSPORT_ALLOW_PRIVATE_ADDRESSES: 'true' },
  });
  ({ verifiedProject, call, entryCount } = auditHelpers(h));
});
afterAll(async () => {
  await h.close();
});

describe('GET /projects/:id/audit-log', () => {
  it('pages newest first and filters by action, prefix, actor and target', async () => {
    const p = await verifiedProject();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push((await call(p, i % 2 ? 'key' : 'session', 'POST', '/templates', { ...tpl, name: `T${i}` })).id);
    await call(p, 'key', 'PATCH', `/templates/${ids[0]}`, { name: 'Changed' });
    const get = (q: string) => h.request('GET', `/projects/${p.id}/audit-log?${q}`, { cookie: p.owner.cookie });

    const seen: Json[] = [];
    let cursor: string | null = null;
    do {
      const res: Json = await get(`action=template.&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      seen.push(...res.body.entries);
      cursor = res.body.cursor;
    } while (cursor);
    expect(seen.map((e) => e.action)).toEqual(['template.update', ...Array(5).fill('template.create')]);
    expect(new Set(seen.map((e) => e.id)).size).toBe(6);
    expect(seen[0]).toMatchObject({
      actor: { type: 'key', id: null, keyName: 'Secret key' },
      target: { type: 'template', id: ids[0] },
      changes: { name: ['T0', 'Changed'] },
    });
    expect(seen.at(-1)).toMatchObject({ actor: { type: 'user', id: p.owner.id, email: p.owner.email } });

    expect((await get('action=template.update')).body.entries).toHaveLength(1);
    expect((await get(`actor=${p.owner.id}&action=template.`)).body.entries).toHaveLength(3);
    expect((await get('actor=type:key')).body.entries).toHaveLength(3);
    expect((await get(`targetType=template&targetId=${ids[0]}`)).body.entries).toHaveLength(2);
    expect((await get(`from=${new Date(Date.now() + 60_000).toISOString()}`)).body.entries).toHaveLength(0);
    expect((await get('limit=101')).status).toBe(422);
    expect((await get('cursor=bm9wZQ')).status).toBe(422);
  });

  it('is for owners and admins of the project, never an API key', async () => {
    const p = await createProject(h);
    const other = await createProject(h);
    const member = await createVerifiedUser(h);
    await h.request('POST', `/projects/${p.id}/members`, {
      cookie: p.owner.cookie,
      body: { email: member.email, role: 'MEMBER' },
    });
    const url = `/projects/${p.id}/audit-log`;
    expect((await h.request('GET', url, { cookie: member.cookie })).status).toBe(403);
    expect((await h.request('GET', url, { cookie: other.owner.cookie })).status).toBe(404);
    expect([401, 403]).toContain((await h.request('GET', url, { key: p.secretKey })).status);
  });
});

describe('append-only and retention', () => {
  it('refuses UPDATE in the database', async () => {
    const p = await createProject(h);
    await expect(h.sql(`update audit_log set action = 'x' where project_id = $1`, [p.id])).rejects.toThrow(
      /cannot be changed/,
    );
  });

  it('the retention job deletes only entries older than AUDIT_LOG_RETENTION_DAYS', async () => {
    const p = await createProject(h);
    const now = h.clock.now().getTime();
    const old = new Date(now - 366 * 86_400_000).toISOString();
    const young = new Date(now - 364 * 86_400_000).toISOString();
    for (const at of [old, old, young])
      await h.sql(
        `insert into audit_log (id, project_id, at, actor_type, action, target_type) values ($1, $2, $3, 'system', 'test.old', 'test')`,
        [randomUUID(), p.id, at],
      );
    const before = await entryCount(p);
    await auditRetentionJob.run(h.deps, {}, { logger: { info: () => undefined } } as never);
    expect(await entryCount(p)).toBe(before - 2);
    const left = await h.sql(`select at from audit_log where project_id = $1 and action = 'test.old'`, [p.id]);
    expect(left).toHaveLength(1);
  });
});
