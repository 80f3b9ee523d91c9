import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness, type Json } from './harness.js';

/**
 * Operations that cannot succeed on this server: the payment provider endpoints answer 404 until a
 * provider is configured, so they declare errors only.
 */
const NO_SUCCESS = new Set([
  'POST /users/@me/projects/{id}/checkout',
  'POST /users/@me/projects/{id}/billing-portal',
  'GET /users/@me/projects/{id}/billing-invoices',
  'POST /webhooks/incoming/{provider}',
]);

const ENVELOPE = '#/components/schemas/ErrorEnvelope';

/** The `$ref`s a response's schemas name, through anyOf/oneOf (the plain body beside the envelope). */
function refsOf(response: Json | undefined): string[] {
  const schema = response?.content?.['application/json']?.schema;
  if (!schema) return [];
  return [schema.$ref, ...[...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].map((s: Json) => s.$ref)].filter(Boolean);
}

// Routes are contracts: /openapi.json describes every answer of every route, errors included, so the
// dashboard's client can be generated from it.
describe('GET /openapi.json', () => {
  let h: Harness;
  let doc: Json;
  beforeAll(async () => {
    h = await createHarness();
    const res = await h.request('GET', '/openapi.json');
    expect(res.status).toBe(200);
    doc = res.body;
  });
  afterAll(async () => h?.close());

  const operations = () =>
    Object.entries(doc.paths as Json).flatMap(([path, item]) =>
      Object.entries(item as Json).map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, op: op as Json })),
    );

  it('lists POST /v1/send first, then the rest of the public /v1 API (the reference opens with it)', () => {
    const paths = Object.keys(doc.paths as Json);
    expect(paths[0]).toBe('/v1/send');
    expect(doc.paths['/v1/send'].post.tags).toEqual(['public']);
    const tagOf = (p: string) => Object.values(doc.paths[p] as Json).flatMap((op: Json) => op.tags ?? [])[0];
    // Swagger UI groups by tag in order of first appearance: "public" is the first group, and whole.
    const firstOther = paths.findIndex((p) => tagOf(p) !== 'public');
    expect(firstOther).toBeGreaterThan(1);
    expect(paths.slice(firstOther).filter((p) => tagOf(p) === 'public')).toEqual([]);
  });

  it('defines the error envelope once, as a component', () => {
    const envelope = doc.components.schemas.ErrorEnvelope;
    expect(envelope.properties.success).toMatchObject({ const: false });
    expect(envelope.required).toEqual(expect.arrayContaining(['success', 'error', 'timestamp']));
    expect(envelope.properties.error.required).toEqual(
      expect.arrayContaining(['code', 'message', 'statusCode', 'requestId']),
    );
    expect(envelope.properties.error.properties.code.enum).toEqual(
      expect.arrayContaining(['VALIDATION_ERROR', 'INVALID_API_KEY', 'RESOURCE_NOT_FOUND']),
    );
  });

  it('gives every operation a 2xx answer with a body schema (none for 204 and redirects)', () => {
    const missing: string[] = [];
    const ops = operations();
    expect(ops.length).toBeGreaterThan(90);
    for (const { name, op } of ops) {
      const codes = Object.keys(op.responses ?? {});
      const success = codes.filter((c) => /^2\d\d$|^2XX$/.test(c));
      const redirect = codes.some((c) => /^3\d\d$/.test(c));
      if (NO_SUCCESS.has(name)) {
        if (success.length) missing.push(`${name}: listed as never succeeding, but declares ${success.join(', ')}`);
        continue;
      }
      if (!success.length && !redirect) missing.push(`${name}: no 2xx response`);
      for (const code of success) {
        const r = op.responses[code];
        if (code === '204') {
          if (r.content) missing.push(`${name}: 204 with a body`);
          continue;
        }
        const media = Object.values(r.content ?? {}) as Json[];
        if (!media.length || !media.every((m) => m.schema && Object.keys(m.schema).length > 0))
          missing.push(`${name}: ${code} without a body schema`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('answers 4xx and 5xx with the error envelope on every operation', () => {
    const missing: string[] = [];
    for (const { name, op } of operations()) {
      for (const code of ['4XX', '5XX']) {
        if (refsOf(op.responses?.[code])[0] !== ENVELOPE) missing.push(`${name}: ${code} is not the error envelope`);
      }
      // A specific 4xx (the plain `{error}` 400) must still offer the envelope.
      for (const code of Object.keys(op.responses ?? {}).filter((c) => /^4\d\d$/.test(c))) {
        if (!refsOf(op.responses[code]).includes(ENVELOPE)) missing.push(`${name}: ${code} lacks the error envelope`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('declares a response schema on every registered route, hidden ones included', () => {
    const missing = h.routes
      .filter((r) => !String(r.url).startsWith('/docs') && r.method !== 'HEAD' && r.url !== '/openapi.json')
      .filter((r) => !(r.schema?.response as Json | undefined)?.['4xx'])
      .map((r) => `${r.method} ${r.url}`);
    expect(missing).toEqual([]);
  });
});
