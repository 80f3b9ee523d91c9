import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeName, routesOf, type Route } from '../../test/contracts/routes.js';
import { createHarness, type Harness } from '../../test/harness.js';
import type { ScopedKeyRecord } from '../http/key-cache.js';
import { canonicalCidr } from './api-keys.schema.js';
import { checkScopedKey, ipAllowed } from './key-auth.js';
import { ROUTE_SCOPES, SCOPES, scopeOfRoute } from './scopes.js';

/** Modes a scoped key can never pass: the scope table must not name their routes. */
const KEYLESS = new Set(['none', 'session', 'member', 'member-or-key']);

describe('the scope table', () => {
  let h: Harness;
  let routes: Route[];
  beforeAll(async () => {
    h = await createHarness();
    routes = routesOf(h.routes);
  });
  afterAll(async () => {
    await h?.close();
  });

  it('maps every route a key can reach (public, secret, dashboard modes) to a scope', () => {
    const missing = routes.filter((r) => !KEYLESS.has(r.auth) && !scopeOfRoute(r.method, r.url)).map(routeName);
    expect(missing, 'add these routes to ROUTE_SCOPES (src/keys/scopes.ts)').toEqual([]);
  });

  it('names only registered routes that keys may call, and only known scopes', () => {
    const byName = new Map(routes.map((r) => [routeName(r), r]));
    const wrong: string[] = [];
    for (const [name, scope] of Object.entries(ROUTE_SCOPES)) {
      if (!(SCOPES as readonly string[]).includes(scope)) wrong.push(`${name}: unknown scope ${scope}`);
      const r = byName.get(name);
      if (!r) wrong.push(`${name}: no such route`);
      if (r && KEYLESS.has(r.auth)) wrong.push(`${name}: ${r.auth} routes refuse keys`);
      if (r?.auth === 'public' && scope !== 'track') wrong.push(`${name}: the public route takes \`track\``);
    }
    expect(wrong).toEqual([]);
  });

  it('is the table docs/api-keys.md shows, route for route', () => {
    const doc = readFileSync(new URL('../../docs/api-keys.md', import.meta.url), 'utf8');
    const documented: Record<string, string> = {};
    for (const m of doc.matchAll(/^\| `([a-z:]+)` \| (.+) \|$/gm))
      for (const r of m[2].matchAll(/`([A-Z]+ [^`]+)`/g)) documented[r[1]] = m[1];
    expect(documented, 'update the table at the end of docs/api-keys.md').toEqual(ROUTE_SCOPES);
  });

  it("says each operation's scope in the API description (x-scope and a sentence)", async () => {
    const doc = (await h.request('GET', '/openapi.json')).body;
    expect(doc.paths['/v1/track'].post['x-scope']).toBe('track');
    expect(doc.paths['/contacts/{id}'].patch['x-scope']).toBe('contacts:write');
    expect(doc.paths['/contacts/{id}'].patch.description).toContain('Scoped API keys need the `contacts:write` scope.');
    expect(doc.paths['/projects/{id}/members'].get['x-scope']).toBeUndefined();
  });

  it('gives every scope at least one route', () => {
    const used = new Set(Object.values(ROUTE_SCOPES));
    expect(SCOPES.filter((s) => !used.has(s))).toEqual([]);
  });
});

describe('checks of one request', () => {
  const key: ScopedKeyRecord = { id: 'k', name: 'k', scopes: ['send'], allowedIps: null, expiresAt: null };
  const now = new Date('2026-11-29T12:00:00Z');

  it('matches addresses against CIDRs of their family, IPv4-mapped IPv6 as IPv4', () => {
    expect(ipAllowed('10.1.2.3', ['10.0.0.0/8'])).toBe(true);
    expect(ipAllowed('::ffff:10.1.2.3', ['10.0.0.0/8'])).toBe(true);
    expect(ipAllowed('11.1.2.3', ['10.0.0.0/8'])).toBe(false);
    expect(ipAllowed('2001:db8::1', ['10.0.0.0/8', '2001:db8::/32'])).toBe(true);
    expect(ipAllowed('10.1.2.3', ['::/0'])).toBe(false);
    expect(ipAllowed('not an address', ['0.0.0.0/0'])).toBe(false);
  });

  it('stores CIDRs in canonical form and refuses what is not one', () => {
    expect(canonicalCidr(' 203.0.113.9 ')).toBe('203.0.113.9/32');
    expect(canonicalCidr('2001:DB8:0::/32')).toBe('2001:db8::/32');
    expect(canonicalCidr('::ffff:192.0.2.1')).toBe('192.0.2.1/32');
    for (const bad of ['10.0.0.0/33', '300.1.1.1', 'example.com', '', '10.0.0.0/'])
      expect(canonicalCidr(bad)).toBeNull();
  });

  it('refuses, in order: an expired key (401), an address outside its list, a route outside the table, a missing scope (403)', () => {
    const fail = (k: ScopedKeyRecord, url = '/v1/send') => {
      try {
        checkScopedKey(k, '192.0.2.1', 'POST', url, now);
        return null;
      } catch (err) {
        const e = err as { status: number; code: string; details?: unknown };
        return [e.status, e.code, e.details];
      }
    };
    expect(fail(key)).toBeNull();
    expect(fail({ ...key, expiresAt: now.getTime() })).toEqual([401, 'INVALID_API_KEY', undefined]);
    expect(fail({ ...key, allowedIps: ['10.0.0.0/8'] })).toEqual([403, 'FORBIDDEN', { ip: '192.0.2.1' }]);
    expect(fail(key, '/projects/:id/members')).toEqual([403, 'FORBIDDEN', { route: 'POST /projects/:id/members' }]);
    expect(fail(key, '/contacts')).toEqual([403, 'FORBIDDEN', { scope: 'contacts:write' }]);
  });
});
