import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { buildTaskList } from '../worker/tasks.js';
import { AppError } from './errors.js';

/** How often the test route's work ran, per project and key: the "mail sent twice" detector. */
const performed = new Map<string, number>();

function idempotentRoute(app: FastifyInstance) {
  app.post('/test/idem', { config: { auth: 'secret', idempotent: true } }, async (req, reply) => {
    const body = (req.body ?? {}) as { status?: number; delayMs?: number };
    const k = `${req.auth.projectId}:${req.headers['idempotency-key'] ?? ''}`;
    performed.set(k, (performed.get(k) ?? 0) + 1);
    if (body.delayMs) await new Promise((r) => setTimeout(r, body.delayMs));
    if (body.status === 422)
      throw new AppError('VALIDATION_ERROR', 'bad', { errors: [{ field: 'x', message: 'bad', code: 'custom' }] });
    if (body.status === 500) throw new Error('boom');
    return reply.code(200).send({ ok: true });
  });
}

/** `Idempotency-Key`: one 2xx per key and project, 409 IDEMPOTENCY_KEY_REUSED with details, expiry. */
describe('Idempotency-Key', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ routes: idempotentRoute });
  });
  afterAll(() => h.close());

  const call = (key: string, idem: string | undefined, body: object = {}) =>
    h.request('POST', '/test/idem', { key, body, headers: idem === undefined ? {} : { 'idempotency-key': idem } });

  it('gives exactly one 2xx among 20 concurrent requests with one key, and does the work once', async () => {
    const p = await createProject(h);
    const results = await Promise.all(Array.from({ length: 20 }, () => call(p.secretKey, 'order-42', { delayMs: 50 })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    const conflicts = results.filter((r) => r.status === 409);
    expect(conflicts).toHaveLength(19);
    for (const c of conflicts) expect(c.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(performed.get(`${p.id}:order-42`)).toBe(1);
  });

  it('refuses a repeat with 409 and details of the original request', async () => {
    const p = await createProject(h);
    expect((await call(p.secretKey, 'k1')).status).toBe(200);
    const again = await call(p.secretKey, 'k1');
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({
      code: 'IDEMPOTENCY_KEY_REUSED',
      statusCode: 409,
      details: { key: 'k1', originalRequest: { method: 'POST', path: '/test/idem' }, originalStatusCode: 200 },
    });
    expect(Date.parse(again.body.error.details.originalRequestAt)).not.toBeNaN();
    expect(performed.get(`${p.id}:k1`)).toBe(1);
  });

  it('releases the key after a 4xx and keeps it after a 5xx', async () => {
    const p = await createProject(h);
    expect((await call(p.secretKey, 'k4', { status: 422 })).status).toBe(422);
    expect((await call(p.secretKey, 'k4')).status).toBe(200);
    expect(performed.get(`${p.id}:k4`)).toBe(2);
    expect((await call(p.secretKey, 'k5', { status: 500 })).status).toBe(500);
    const after = await call(p.secretKey, 'k5');
    expect(after.status).toBe(409);
    expect(after.body.error.details.originalStatusCode).toBe(500);
  });

  it('scopes keys to the project and works without a key', async () => {
    const a = await createProject(h);
    const b = await createProject(h);
    expect((await call(a.secretKey, 'shared')).status).toBe(200);
    expect((await call(b.secretKey, 'shared')).status).toBe(200);
    expect((await call(a.secretKey, undefined)).status).toBe(200);
    expect((await call(a.secretKey, undefined)).status).toBe(200);
  });

  it('refuses keys that are not 1-255 printable ASCII characters with 422, doing nothing', async () => {
    const p = await createProject(h);
    for (const bad of ['x'.repeat(256), 'tab\there', '']) {
      const res = await call(p.secretKey, bad);
      expect(res.status).toBe(422);
      expect(res.body.error.errors[0]).toMatchObject({ field: 'Idempotency-Key', code: 'invalid_string' });
    }
    expect(performed.get(`${p.id}:${'x'.repeat(256)}`)).toBeUndefined();
    expect((await call(p.secretKey, 'x'.repeat(255))).status).toBe(200);
  });

  it('expires keys after IDEMPOTENCY_KEY_TTL_HOURS and the hourly clean-up deletes them', async () => {
    const p = await createProject(h);
    expect((await call(p.secretKey, 'old')).status).toBe(200);
    h.clock.advance(25 * 3600_000);
    try {
      expect((await call(p.secretKey, 'old')).status).toBe(200);
      expect((await call(p.secretKey, 'older')).status).toBe(200);
      h.clock.advance(25 * 3600_000);
      const before = await h.sql('select key from idempotency_keys where project_id = $1 order by key', [p.id]);
      expect(before.map((r) => r.key)).toEqual(['old', 'older']);
      const task = buildTaskList(h.deps)['cleanup:idempotency-keys'];
      await task({}, { logger: { info: () => undefined } } as never);
      expect(await h.sql('select key from idempotency_keys where project_id = $1', [p.id])).toEqual([]);
    } finally {
      h.clock.set(new Date());
    }
  });
});
