import { sql } from 'drizzle-orm';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';

// The API and the worker have pools of their own (main.ts, db/pool.ts): API statements stop after
// API_STATEMENT_TIMEOUT_MS with a 503 in the envelope, a saturated API pool is a 503 rather than a
// request that hangs, and a worker that holds all its connections leaves the API's alone.
describe('database pools', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({
      worker: true,
      env: {
        API_STATEMENT_TIMEOUT_MS: '300',
        API_DB_POOL_SIZE: '3',
        WORKER_DB_POOL_SIZE: '12',
        RATE_LIMIT_PER_MINUTE: '0',
      },
      routes: (app, deps) => {
        app.get('/test/slow', { config: { auth: 'none' } }, async () => {
          await deps.db.execute(sql`select pg_sleep(2)`);
          return { slept: true };
        });
      },
    });
  });
  afterAll(async () => h?.close());

  it('stops an API statement after API_STATEMENT_TIMEOUT_MS: 503 in the envelope with Retry-After', async () => {
    const res = await h.request('GET', '/test/slow');
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(res.body).toMatchObject({
      success: false,
      error: { code: 'INTERNAL_SERVER_ERROR', statusCode: 503, requestId: res.headers.get('x-request-id') },
    });
    expect(res.body.error.message).toMatch(/did not answer in time/);
    // The connection is usable again at once.
    expect((await h.request('GET', '/health')).status).toBe(200);
  });

  it('answers 503 when no API connection frees up in time, never hangs', async () => {
    const held: pg.PoolClient[] = [];
    try {
      for (let i = 0; i < 3; i++) held.push(await h.deps.pool.connect());
      const res = await h.request('GET', '/health');
      expect(res.status).toBe(503);
      expect(res.body.error).toMatchObject({ code: 'INTERNAL_SERVER_ERROR', statusCode: 503 });
    } finally {
      for (const c of held) c.release();
    }
    expect((await h.request('GET', '/health')).status).toBe(200);
  });

  it('gives the worker its own connections, without the statement timeout', async () => {
    const w = h.workerDeps!;
    expect(w.pool).not.toBe(h.deps.pool);
    const show = async (p: pg.Pool) => (await p.query('show statement_timeout')).rows[0].statement_timeout;
    expect(await show(h.deps.pool)).toBe('300ms');
    expect(await show(w.pool)).toBe('0');
    // A job's statement may run past the API's limit.
    await expect(w.db.execute(sql`select pg_sleep(0.5)`)).resolves.toBeDefined();
  });

  it('keeps serving the API while the worker holds every connection of its pool', async () => {
    const p = await createProject(h);
    const held: pg.PoolClient[] = [];
    try {
      // Graphile Worker's listener and the liveness lock already hold some: take every other one.
      const wp = h.workerDeps!.pool;
      // Until none is idle: a job of the worker may give one back while we take them.
      while (held.length < 12 && (wp.totalCount < 12 || wp.idleCount > 0)) held.push(await wp.connect());
      expect(wp.totalCount).toBe(12);
      expect(wp.idleCount).toBe(0);
      const res = await h.request('POST', '/v1/track', {
        key: p.publicKey,
        body: { email: 'pool@example.test', event: 'pooled' },
      });
      expect(res.status).toBe(200);
    } finally {
      for (const c of held) c.release();
    }
  });
});
