import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { createProject, type TestProject } from './factories.js';
import type { Harness, Json, RequestOptions } from './harness.js';

/** What the audit log tests share (src/audit/*.test.ts): callers, and the entries an action adds. */
export function auditHelpers(h: Harness) {
  /** A project with a verified sending domain (`mail.example.test`), so templates and campaigns save. */
  async function verifiedProject(): Promise<TestProject> {
    const p = await createProject(h);
    await h.sql(
      `insert into domains (id, project_id, domain, dkim_selector, dkim_private_key, dkim_public_key, verified)
               values ($1, $2, 'mail.example.test', 'sel', 'priv', 'pub', true)`,
      [randomUUID(), p.id],
    );
    return p;
  }

  /** Request options of the caller: the owner's session (with the project header) or the secret key. */
  function as(p: TestProject, via: 'session' | 'key', body?: unknown): RequestOptions {
    return via === 'key'
      ? { key: p.secretKey, body }
      : { cookie: p.owner.cookie, headers: { 'x-project-id': p.id }, body };
  }

  async function call(p: TestProject, via: 'session' | 'key', method: string, path: string, body?: unknown) {
    const res = await h.request(method, path, as(p, via, body));
    expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300);
    return res.body;
  }

  const entryCount = async (p: TestProject) =>
    Number((await h.sql('select count(*) as n from audit_log where project_id = $1', [p.id]))[0].n);

  /** Runs `act` and answers the entries it added (oldest first). */
  async function added(p: TestProject, act: () => Promise<unknown>): Promise<Json[]> {
    const before = await h.sql<{ id: string }>('select id from audit_log where project_id = $1', [p.id]);
    await act();
    const seen = new Set(before.map((r) => r.id));
    const rows = await h.sql('select * from audit_log where project_id = $1 order by at, id', [p.id]);
    return rows.filter((r) => !seen.has(r.id));
  }

  return { verifiedProject, as, call, entryCount, added };
}

/** A template body that saves in a verified project. */
export const tpl = { name: 'Welcome', subject: 'Hi', body: '<p>Hi</p>', from: 'a@mail.example.test' };
