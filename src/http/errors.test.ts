import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';

/** One envelope for every error, and the status codes of malformed, oversized or unroutable requests. */
describe('errors', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(() => h.close());

  const envelope = (status: number, code: string) => ({
    success: false,
    error: expect.objectContaining({
      code,
      statusCode: status,
      message: expect.any(String),
      requestId: expect.any(String),
    }),
    timestamp: expect.any(String),
  });

  it('answers malformed JSON with 400 BAD_REQUEST', async () => {
    const res = await h.request('POST', '/auth/login', {
      body: '{"email": "a@b.c",',
      raw: true,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(envelope(400, 'BAD_REQUEST'));
  });

  it('answers a non-JSON content type on a JSON endpoint with 400, never 415', async () => {
    const res = await h.request('POST', '/auth/login', {
      body: 'email=a@b.c',
      raw: true,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(envelope(400, 'BAD_REQUEST'));
  });

  it('answers a body over the limit with 413 PAYLOAD_TOO_LARGE', async () => {
    const res = await h.request('POST', '/auth/login', {
      body: JSON.stringify({ email: 'a@b.c', password: 'x'.repeat(3 * 1024 * 1024) }),
      raw: true,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(413);
    expect(res.body).toEqual(envelope(413, 'PAYLOAD_TOO_LARGE'));
  });

  it('answers an unknown route with 404 in the envelope', async () => {
    const res = await h.request('GET', '/no/such/route');
    expect(res.status).toBe(404);
    expect(res.body).toEqual(envelope(404, 'RESOURCE_NOT_FOUND'));
  });

  it('answers schema failures with 422 VALIDATION_ERROR and zod 3 issue code names', async () => {
    const bad = await h.request('POST', '/auth/signup', { body: { email: 'not-an-email', password: 'long enough' } });
    expect(bad.status).toBe(422);
    expect(bad.body).toEqual(envelope(422, 'VALIDATION_ERROR'));
    expect(bad.body.error.errors).toEqual([{ field: 'email', message: expect.any(String), code: 'invalid_string' }]);

    const missing = await h.request('POST', '/auth/signup', { body: { email: 'a@example.test' } });
    expect(missing.status).toBe(422);
    expect(missing.body.error.errors).toEqual([
      { field: 'password', message: expect.any(String), code: 'invalid_type', received: 'undefined' },
    ]);

    const p = await createProject(h);
    const enumBad = await h.request('PATCH', `/users/@me/projects/${p.id}`, {
      cookie: p.owner.cookie,
      body: { tracking: 'SOMETIMES' },
    });
    expect(enumBad.status).toBe(422);
    expect(enumBad.body.error.errors[0]).toMatchObject({ field: 'tracking', code: 'invalid_enum_value' });

    const short = await h.request('POST', '/auth/signup', { body: { email: 'b@example.test', password: 'short' } });
    expect(short.body.error.errors[0]).toMatchObject({ field: 'password', code: 'too_small' });
  });

  it('sends X-Request-ID on successful responses too, and a new one per request', async () => {
    const a = await h.request('GET', '/config');
    const b = await h.request('GET', '/config');
    expect(a.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'));
  });

  it('treats an empty JSON body as no body', async () => {
    const res = await h.request('POST', '/auth/login', {
      body: '',
      raw: true,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('serves the OpenAPI document generated from the route schemas, and the docs page', async () => {
    const spec = await h.request('GET', '/openapi.json');
    expect(spec.status).toBe(200);
    expect(spec.body.openapi).toBe('3.1.0');
    const signup = spec.body.paths['/auth/signup'].post;
    expect(signup.requestBody.content['application/json'].schema.properties.email).toBeDefined();
    expect(Object.keys(spec.body.paths)).toEqual(
      expect.arrayContaining(['/config', '/users/@me/projects', '/projects/{id}/members']),
    );
    const docs = await h.request('GET', '/docs/');
    expect(docs.status).toBe(200);
    expect(docs.text).toContain('swagger');
  });
});
