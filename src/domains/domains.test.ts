import { createPublicKey, createSign, createVerify } from 'node:crypto';
import { createSocket } from 'node:dgram';
import type { JobHelpers } from 'graphile-worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDnsServer, type TestDnsServer } from '../../test/dns-server.js';
import { createProject, type TestProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { buildTaskList, crontabLines } from '../worker/tasks.js';
import { findVerifiedDomain } from './verified.js';
import { keyring, secretPlaces } from '../lib/secret-places.js';
import { openSecret } from '../lib/secrets.js';

let h: Harness;
let dns: TestDnsServer;
let seq = 0;
/** A domain name no other test uses. */
const uniqueDomain = () => `d${++seq}-${Math.random().toString(36).slice(2, 8)}.example.test`;

beforeAll(async () => {
  dns = await startDnsServer();
  h = await createHarness({ env: { DNS_SERVERS: dns.address } });
});
afterAll(async () => {
  await h?.close();
  await dns?.close();
});

async function addDomain(p: TestProject, domain = uniqueDomain()) {
  const res = await h.request('POST', '/domains', { key: p.secretKey, body: { domain } });
  expect(res.status).toBe(201);
  return res.body as {
    id: string;
    domain: string;
    verified: boolean;
    records: Array<{ type: string; name: string; value: string; status: string }>;
    createdAt: string;
  };
}

const recordOf = (
  d: { records: Array<{ name: string; value: string; status: string }> },
  kind: 'dkim' | 'spf' | 'dmarc',
) =>
  d.records.find((r) =>
    kind === 'dkim'
      ? r.name.includes('._domainkey.')
      : kind === 'dmarc'
        ? r.name.startsWith('_dmarc.')
        : r.value.startsWith('v=spf1'),
  )!;

describe('POST /domains', () => {
  it('creates the domain with DKIM, SPF and DMARC records and a usable 2048-bit key', async () => {
    const p = await createProject(h);
    const res = await h.request('POST', '/domains', { key: p.secretKey, body: { domain: '  Mail.Example.TEST ' } });
    expect(res.status).toBe(201);
    expect(res.text).not.toMatch(/PRIVATE KEY/);
    const d = res.body;
    expect(d).toMatchObject({ domain: 'mail.example.test', verified: false });
    expect(d.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Date(d.createdAt).toISOString()).toBe(d.createdAt);
    expect(d.records).toHaveLength(3);

    const dkim = recordOf(d, 'dkim');
    expect(dkim).toMatchObject({ type: 'TXT', status: 'pending' });
    expect(dkim.name).toMatch(/^pigeon-[0-9a-f]{6}\._domainkey\.mail\.example\.test$/);
    expect(dkim.value).toMatch(/^v=DKIM1; k=rsa; p=[A-Za-z0-9+/=]+$/);
    const p64 = dkim.value.split('p=')[1];
    const pub = createPublicKey({ key: Buffer.from(p64, 'base64'), format: 'der', type: 'spki' });
    expect(pub.asymmetricKeyType).toBe('rsa');
    expect(pub.asymmetricKeyDetails?.modulusLength).toBe(2048);

    expect(recordOf(d, 'spf')).toEqual({
      type: 'TXT',
      name: 'mail.example.test',
      value: 'v=spf1 a mx ~all',
      status: 'pending',
    });
    expect(recordOf(d, 'dmarc')).toEqual({
      type: 'TXT',
      name: '_dmarc.mail.example.test',
      value: 'v=DMARC1; p=none;',
      status: 'pending',
    });

    // The stored private key is sealed (no PEM in the row: a dump does not sign as the domain), and
    // opened it signs what the published key verifies (what DKIM signing relies on).
    const [row] = await h.sql('select dkim_private_key, dkim_selector from domains where id = $1', [d.id]);
    expect(row.dkim_private_key).toMatch(/^enc:v1:/);
    expect(row.dkim_private_key).not.toMatch(/BEGIN|PRIVATE KEY/);
    expect(dkim.name.startsWith(`${row.dkim_selector}._domainkey.`)).toBe(true);
    const pem = openSecret(keyring(h.deps), row.dkim_private_key, secretPlaces.dkimKey(d.id));
    const sig = createSign('sha256').update('hello').sign(pem);
    expect(createVerify('sha256').update('hello').verify(pub, sig)).toBe(true);
  });

  it('refuses malformed domains with 422', async () => {
    const p = await createProject(h);
    for (const domain of [
      'not a domain',
      'localhost',
      '-bad.example.com',
      'exa_mple.com',
      'a..b.com',
      'x@example.com',
      `${'a'.repeat(64)}.com`,
      '',
    ]) {
      const res = await h.request('POST', '/domains', { key: p.secretKey, body: { domain } });
      expect(res.status, domain).toBe(422);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.errors[0].field).toBe('domain');
    }
    const missing = await h.request('POST', '/domains', { key: p.secretKey, body: {} });
    expect(missing.status).toBe(422);
    expect(await h.sql('select 1 from domains where project_id = $1', [p.id])).toHaveLength(0);
  });

  it('refuses the same domain twice in a project (409), but another project may add it', async () => {
    const p = await createProject(h);
    const domain = uniqueDomain();
    await addDomain(p, domain);
    const again = await h.request('POST', '/domains', { key: p.secretKey, body: { domain: domain.toUpperCase() } });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('CONFLICT');
    const other = await createProject(h);
    await addDomain(other, domain);
  });

  it('needs the secret key or a session (401 with the public key)', async () => {
    const p = await createProject(h);
    const res = await h.request('POST', '/domains', { key: p.publicKey, body: { domain: uniqueDomain() } });
    expect(res.status).toBe(401);
    const viaSession = await h.request('POST', '/domains', {
      cookie: p.owner.cookie,
      headers: { 'x-project-id': p.id },
      body: { domain: uniqueDomain() },
    });
    expect(viaSession.status).toBe(201);
  });
});

describe('GET /domains/:id/verify', () => {
  it('stays pending until the DKIM record is published, then verifies', async () => {
    const p = await createProject(h);
    const d = await addDomain(p);
    const before = await h.request('GET', `/domains/${d.id}/verify`, { key: p.secretKey });
    expect(before.status).toBe(200);
    expect(before.body.verified).toBe(false);
    expect(before.body.records.every((r: { status: string }) => r.status === 'pending')).toBe(true);
    expect(before.body.lastCheckedAt).not.toBeNull();
    expect(await findVerifiedDomain(h.deps.db, p.id, `news@${d.domain}`)).toBeUndefined();

    const dkim = recordOf(d, 'dkim');
    dns.set(dkim.name, { TXT: [dkim.value] }); // > 255 characters: split into strings on the wire
    const after = await h.request('GET', `/domains/${d.id}/verify`, { key: p.secretKey });
    expect(after.status).toBe(200);
    expect(after.body).toMatchObject({ id: d.id, domain: d.domain, verified: true });
    expect(recordOf(after.body, 'dkim').status).toBe('verified');
    expect(recordOf(after.body, 'spf').status).toBe('pending');
    expect(recordOf(after.body, 'dmarc').status).toBe('pending');
    const [row] = await h.sql('select verified, verified_at, last_checked_at from domains where id = $1', [d.id]);
    expect(row.verified).toBe(true);
    expect(row.verified_at).not.toBeNull();
    expect(row.last_checked_at).not.toBeNull();
    // Sending features now find it (and subdomains of it).
    expect((await findVerifiedDomain(h.deps.db, p.id, `news@${d.domain}`))?.id).toBe(d.id);
    expect((await findVerifiedDomain(h.deps.db, p.id, `news@mail.${d.domain}`))?.id).toBe(d.id);
  });

  it('does not verify a DKIM record with another key, and reports SPF and DMARC', async () => {
    const p = await createProject(h);
    const d = await addDomain(p);
    const dkim = recordOf(d, 'dkim');
    dns.set(dkim.name, { TXT: ['v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAwrong'] });
    dns.set(d.domain, { TXT: ['google-site-verification=abc', 'v=spf1 include:_spf.example.test ~all'] });
    dns.set(`_dmarc.${d.domain}`, { TXT: ['v=DMARC1; p=quarantine; rua=mailto:d@example.test'] });
    const res = await h.request('GET', `/domains/${d.id}/verify`, { key: p.secretKey });
    expect(res.body.verified).toBe(false);
    expect(recordOf(res.body, 'dkim').status).toBe('pending');
    expect(recordOf(res.body, 'spf').status).toBe('verified');
    expect(recordOf(res.body, 'dmarc').status).toBe('verified');

    // The right key, published with folding whitespace inside p=, verifies.
    const p64 = dkim.value.split('p=')[1];
    dns.set(dkim.name, { TXT: [`v=DKIM1; k=rsa; p=${p64.slice(0, 100)} ${p64.slice(100)}`] });
    const ok = await h.request('GET', `/domains/${d.id}/verify`, { key: p.secretKey });
    expect(ok.body.verified).toBe(true);

    // Removing the record unverifies on the next forced check.
    dns.remove(dkim.name);
    const gone = await h.request('GET', `/domains/${d.id}/verify`, { key: p.secretKey });
    expect(gone.body.verified).toBe(false);
    expect(gone.body.verifiedAt).toBeNull();
  });
});

describe('project isolation, listing and deletion', () => {
  it("answers 404 for another project's domain on verify, delete and list", async () => {
    const a = await createProject(h);
    const b = await createProject(h);
    const d = await addDomain(a);
    expect((await h.request('GET', `/domains/${d.id}/verify`, { key: b.secretKey })).status).toBe(404);
    expect((await h.request('DELETE', `/domains/${d.id}`, { key: b.secretKey })).status).toBe(404);
    const list = await h.request('GET', `/domains/project/${a.id}`, { key: b.secretKey });
    expect(list.status).toBe(404);
    expect(list.body.error.code).toBe('RESOURCE_NOT_FOUND');
    expect((await h.request('GET', '/domains/not-a-uuid/verify', { key: a.secretKey })).status).toBe(404);
    expect((await h.request('DELETE', '/domains/not-a-uuid', { key: a.secretKey })).status).toBe(404);
    expect((await h.request('GET', '/domains/project/not-a-uuid', { key: a.secretKey })).status).toBe(404);
    expect(await h.sql('select 1 from domains where id = $1', [d.id])).toHaveLength(1);
  });

  it('lists only the project domains, without private keys', async () => {
    const p = await createProject(h);
    const d1 = await addDomain(p);
    const d2 = await addDomain(p);
    await addDomain(await createProject(h));
    const res = await h.request('GET', `/domains/project/${p.id}`, { key: p.secretKey });
    expect(res.status).toBe(200);
    expect(res.body.map((d: { id: string }) => d.id)).toEqual([d1.id, d2.id]);
    expect(res.body[0]).toEqual(d1);
    expect(res.text).not.toMatch(/PRIVATE KEY|privateKey/);
    const viaSession = await h.request('GET', `/domains/project/${p.id}`, {
      cookie: p.owner.cookie,
      headers: { 'x-project-id': p.id },
    });
    expect(viaSession.body).toHaveLength(2);
  });

  it('deletes with 204, then 404', async () => {
    const p = await createProject(h);
    const d = await addDomain(p);
    const del = await h.request('DELETE', `/domains/${d.id}`, { key: p.secretKey });
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expect(await h.sql('select 1 from domains where id = $1', [d.id])).toHaveLength(0);
    expect((await h.request('DELETE', `/domains/${d.id}`, { key: p.secretKey })).status).toBe(404);
    expect((await h.request('GET', `/domains/${d.id}/verify`, { key: p.secretKey })).status).toBe(404);
  });
});

describe('domains:recheck (every 5 minutes)', () => {
  const helpers = { logger: { info() {}, debug() {}, warn() {}, error() {} } } as unknown as JobHelpers;

  it('is in the crontab every 5 minutes', () => {
    expect(crontabLines).toContain('*/5 * * * * domains:recheck');
  });

  it('verifies a pending domain whose record was published, and leaves the others pending', async () => {
    const p = await createProject(h);
    const published = await addDomain(p);
    const unpublished = await addDomain(p);
    // A forced check now, then the record appears; the next background run finds it.
    await h.request('GET', `/domains/${published.id}/verify`, { key: p.secretKey });
    const dkim = recordOf(published, 'dkim');
    dns.set(dkim.name, { TXT: [dkim.value] });
    h.clock.advance(5 * 60_000);

    await buildTaskList(h.deps)['domains:recheck']({}, helpers);

    const rows = await h.sql('select id, verified, last_checked_at, records from domains where id = any($1)', [
      [published.id, unpublished.id],
    ]);
    const byId = Object.fromEntries(rows.map((r) => [r.id, r]));
    expect(byId[published.id].verified).toBe(true);
    expect(byId[published.id].records.find((r: { name: string }) => r.name === dkim.name).status).toBe('verified');
    expect(byId[unpublished.id].verified).toBe(false);
    expect(byId[unpublished.id].last_checked_at).not.toBeNull();

    const list = await h.request('GET', `/domains/project/${p.id}`, { key: p.secretKey });
    expect(list.body.find((d: { id: string }) => d.id === published.id).verified).toBe(true);
  });
});

describe('a DNS outage', () => {
  it('keeps a verified domain verified and its record statuses, and still records the check', async () => {
    const silent = createSocket('udp4');
    await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', resolve));
    const dead = await createHarness({ env: { DNS_SERVERS: `127.0.0.1:${silent.address().port}` } });
    try {
      const p = await createProject(dead);
      const res = await dead.request('POST', '/domains', { key: p.secretKey, body: { domain: uniqueDomain() } });
      const verifiedAt = '2026-01-01T00:00:00.000Z';
      await dead.sql(
        `update domains set verified = true, verified_at = $2,
        records = (select jsonb_agg(r || '{"status":"verified"}') from jsonb_array_elements(records) r) where id = $1`,
        [res.body.id, verifiedAt],
      );
      const check = await dead.request('GET', `/domains/${res.body.id}/verify`, { key: p.secretKey });
      expect(check.status).toBe(200);
      expect(check.body).toMatchObject({ verified: true, verifiedAt });
      expect(check.body.records.every((r: { status: string }) => r.status === 'verified')).toBe(true);
      expect(check.body.lastCheckedAt).not.toBeNull();
    } finally {
      await dead.close();
      silent.close();
    }
  });
});
