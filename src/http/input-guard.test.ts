import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../test/factories.js';
import { createHarness, type Harness, type Json } from '../../test/harness.js';
import { fromDatabaseError } from './db-errors.js';

// Bad input is a 4xx in the envelope and changes nothing (issue "Hardening" items 14 and 15): a body
// that is not JSON on a JSON route is 400, and strings PostgreSQL would refuse (NUL, unpaired
// surrogates, in values and keys) are 422 before they reach it.
describe('input PostgreSQL would refuse, and bodies that are not JSON', () => {
  let h: Harness;
  let p: TestProject;
  let contactId: string;
  beforeAll(async () => {
    h = await createHarness();
    p = await createProject(h);
    const c = await h.request('POST', '/contacts', {
      key: p.secretKey,
      body: { email: 'guard@example.test', data: { plan: 'pro' } },
    });
    contactId = c.body.id;
  });
  afterAll(async () => h?.close());

  const expectEnvelope = (res: { status: number; body: Json; headers: Headers }, status: number, code: string) => {
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({
      success: false,
      error: { code, statusCode: status, requestId: res.headers.get('x-request-id') },
    });
  };
  const count = async (table: string) =>
    Number((await h.sql(`select count(*) as n from ${table} where project_id = $1`, [p.id]))[0].n);

  it('answers 400 BAD_REQUEST to text/plain, form-encoded and multipart bodies on JSON routes', async () => {
    const cases: Array<[string, string, string, string]> = [
      ['POST', '/contacts', 'text/plain', 'email=plain@example.test'],
      ['POST', '/v1/track', 'application/x-www-form-urlencoded', 'email=form@example.test&event=signup'],
      [
        'PATCH',
        `/contacts/${contactId}`,
        'multipart/form-data; boundary=x',
        '--x\r\nContent-Disposition: form-data; name="subscribed"\r\n\r\nfalse\r\n--x--\r\n',
      ],
      ['POST', '/segments', 'text/plain', '{"name":"looks like JSON"}'],
    ];
    for (const [method, path, type, body] of cases) {
      const key = path === '/v1/track' ? p.publicKey : p.secretKey;
      const res = await h.request(method, path, { key, body, raw: true, headers: { 'content-type': type } });
      expectEnvelope(res, 400, 'BAD_REQUEST');
      expect(res.body.error.message).toMatch(/JSON/);
    }
    expect((await h.request('GET', `/contacts/${contactId}`, { key: p.secretKey })).body.subscribed).toBe(true);
    expect(await count('events')).toBe(0);
    expect(await count('segments')).toBe(0);
  });

  it('answers 400 to a multipart body busboy cannot parse, on both upload routes', async () => {
    for (const path of ['/uploads/image', '/contacts/import']) {
      for (const body of [
        '--zz\r\nbroken',
        '--zz\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\nemail\r\n',
      ]) {
        const res = await h.request('POST', path, {
          key: p.secretKey,
          body,
          raw: true,
          headers: { 'content-type': 'multipart/form-data; boundary=zz' },
        });
        expectEnvelope(res, 400, 'BAD_REQUEST');
        expect(res.body.error.message).toMatch(/multipart/i);
      }
    }
    expect(await h.sql('select count(*)::int as n from uploads where project_id = $1', [p.id])).toEqual([{ n: 0 }]);
  });

  it('answers 422 to NUL in a query, a path parameter, a body value and a body key', async () => {
    const search = await h.request('GET', '/contacts?search=%00', { key: p.secretKey });
    expectEnvelope(search, 422, 'VALIDATION_ERROR');
    expect(search.body.error.errors).toEqual([
      expect.objectContaining({ field: 'querystring.search', code: 'invalid_string' }),
    ]);

    expectEnvelope(await h.request('GET', '/events/a%00b/usage', { key: p.secretKey }), 422, 'VALIDATION_ERROR');

    const value = await h.request('POST', '/v1/track', {
      key: p.publicKey,
      body: { email: 'nul@example.test', event: 'sign\u0000up' },
    });
    expectEnvelope(value, 422, 'VALIDATION_ERROR');
    expect(value.body.error.errors[0].field).toBe('event');

    const key = await h.request('PATCH', `/contacts/${contactId}`, {
      key: p.secretKey,
      body: { data: { 'pl\u0000an': 'x' } },
    });
    expectEnvelope(key, 422, 'VALIDATION_ERROR');
    expect(key.body.error.errors[0]).toMatchObject({ field: 'data', code: 'invalid_string' });
    expect(await count('events')).toBe(0);
  });

  it('answers 422 to unpaired UTF-16 surrogates in values and keys', async () => {
    // JSON.stringify escapes lone surrogates (\ud800), the form that reaches the server.
    const lone = await h.request('POST', '/v1/track', {
      key: p.publicKey,
      body: { email: 'lone@example.test', event: 'e', data: { note: 'a\ud800b' } },
    });
    expectEnvelope(lone, 422, 'VALIDATION_ERROR');
    expect(lone.body.error.errors[0]).toMatchObject({ field: 'data.note', code: 'invalid_string' });
    const loneKey = await h.request('POST', '/contacts', {
      key: p.secretKey,
      body: { email: 'lonekey@example.test', data: { '\udc00': 1 } },
    });
    expectEnvelope(loneKey, 422, 'VALIDATION_ERROR');
    // A proper pair (an emoji) is fine.
    const pair = await h.request('POST', '/v1/track', {
      key: p.publicKey,
      body: { email: 'pair@example.test', event: 'e', data: { note: 'ok 🎉' } },
    });
    expect(pair.status).toBe(200);
    expect(
      await h.sql(`select data->>'note' as note from contacts where project_id = $1 and email = 'pair@example.test'`, [
        p.id,
      ]),
    ).toEqual([{ note: 'ok 🎉' }]);
    expect(
      await h.sql(
        `select email from contacts where project_id = $1 and email in ('lone@example.test', 'lonekey@example.test')`,
        [p.id],
      ),
    ).toEqual([]);
  });

  it('answers 422 to values nested deeper than 64 levels, however deep', async () => {
    for (const depth of [65, 100_000]) {
      const raw = `{"email":"deep@example.test","event":"e","data":{"x":${'['.repeat(depth)}${']'.repeat(depth)}}}`;
      const res = await h.request('POST', '/v1/track', {
        key: p.publicKey,
        body: raw,
        raw: true,
        headers: { 'content-type': 'application/json' },
      });
      expectEnvelope(res, 422, 'VALIDATION_ERROR');
      expect(res.body.error.errors[0]).toMatchObject({ field: 'data', code: 'too_big' });
    }
  });

  it('still asks for a credential first: 401 without a key, whatever the body', async () => {
    expectEnvelope(await h.request('GET', '/contacts?search=%00'), 401, 'INVALID_API_KEY');
    expectEnvelope(
      await h.request('POST', '/contacts', { body: 'x', raw: true, headers: { 'content-type': 'text/plain' } }),
      401,
      'INVALID_API_KEY',
    );
  });
});

describe('database errors a request can cause', () => {
  it('maps a statement timeout to 503 and a refused value to 422, drizzle-wrapped or not', () => {
    expect(fromDatabaseError({ code: '57014', message: 'canceling statement due to statement timeout' })).toMatchObject(
      { status: 503, code: 'INTERNAL_SERVER_ERROR' },
    );
    expect(fromDatabaseError(new Error('timeout exceeded when trying to connect'))).toMatchObject({ status: 503 });
    expect(
      fromDatabaseError({
        message: 'Failed query',
        cause: { code: '22P05', message: 'unsupported Unicode escape sequence' },
      }),
    ).toMatchObject({ status: 422, code: 'VALIDATION_ERROR', details: { sqlState: '22P05' } });
    expect(
      fromDatabaseError({ code: '54000', message: 'index row size 3000 exceeds btree version 4 maximum 2704' }),
    ).toMatchObject({ status: 422 });
    expect(fromDatabaseError({ code: '23505', message: 'duplicate key' })).toBeNull();
    expect(fromDatabaseError(new Error('boom'))).toBeNull();
  });
});
