import { createSocket } from 'node:dgram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDnsServer, type TestDnsServer } from '../../test/dns-server.js';
import { createProject, type TestProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';

const mx = (host: string) => ({ MX: [{ exchange: host, priority: 10 }] });
const web = { A: ['192.0.2.10'], NS: ['ns1.example.net'] };

// There is no internet here: the well-known domains live in the test DNS server's zone.
const ZONE = {
  'gmail.com': { ...web, ...mx('gmail-smtp-in.l.google.com') },
  'acme-corp.example': { ...web, AAAA: ['2001:db8::10'], ...mx('mx.acme-corp.example') },
  'mailinator.com': { ...web, ...mx('mail.mailinator.com') },
  'privaterelay.appleid.com': { NS: ['ns1.apple.example'], ...mx('mx01.mail.icloud.com') },
  'mozmail.com': { ...web, ...mx('relay.firefox.example') },
  'duck.com': { ...web, ...mx('inbound.duck.example') },
  'a-only.example': { A: ['192.0.2.20'] },
  'ns-only.example': { NS: ['ns1.example.net'] },
  'nullmx.example': { ...web, MX: [{ exchange: '', priority: 0 }] },
};

let h: Harness;
let dns: TestDnsServer;
let p: TestProject;

beforeAll(async () => {
  dns = await startDnsServer(ZONE);
  h = await createHarness({ env: { DNS_SERVERS: dns.address } });
  p = await createProject(h);
});
afterAll(async () => {
  await h?.close();
  await dns?.close();
});

async function verify(email: unknown) {
  const res = await h.request('POST', '/v1/verify', { key: p.secretKey, body: { email } });
  expect(res.status, res.text).toBe(200);
  expect(res.body.success).toBe(true);
  return res.body.data;
}

describe('POST /v1/verify', () => {
  it('answers every field for a normal address with MX records', async () => {
    const data = await verify('  Jane.Doe@Acme-Corp.example ');
    expect(data).toEqual({
      email: 'jane.doe@acme-corp.example',
      valid: true,
      isDisposable: false,
      isAlias: false,
      isTypo: false,
      isPlusAddressed: false,
      isPersonalEmail: false,
      domainExists: true,
      hasWebsite: true,
      hasMxRecords: true,
      reasons: [],
      suggestedEmail: null,
    });
  });

  it('marks a free-mail address as personal, and detects plus addressing', async () => {
    const data = await verify('someone+news@gmail.com');
    expect(data).toMatchObject({
      valid: true,
      isPersonalEmail: true,
      isPlusAddressed: true,
      isTypo: false,
      suggestedEmail: null,
      reasons: [],
    });
    expect((await verify('someone@gmail.com')).isPlusAddressed).toBe(false);
  });

  it('refuses a disposable domain with a reason', async () => {
    const data = await verify('throwaway@mailinator.com');
    expect(data).toMatchObject({
      valid: false,
      isDisposable: true,
      isPersonalEmail: false,
      domainExists: true,
      hasMxRecords: true,
    });
    expect(data.reasons).toEqual([expect.stringMatching(/disposable/i)]);
  });

  it('reports relay aliases (Apple, Firefox Relay, DuckDuckGo) as aliases, still valid', async () => {
    for (const email of ['x1y2z3@privaterelay.appleid.com', 'abc123@mozmail.com', 'me@duck.com']) {
      const data = await verify(email);
      expect(data, email).toMatchObject({ isAlias: true, isDisposable: false, valid: true, isPersonalEmail: false });
    }
    // addy.io gives users subdomains of anonaddy.com: an alias even though the name has no records here.
    const sub = await verify('shop@jane.anonaddy.com');
    expect(sub).toMatchObject({ isAlias: true, isDisposable: false });
  });

  it('suggests the intended address for a typo of a popular provider', async () => {
    const data = await verify('someone@gmial.com');
    expect(data).toMatchObject({ isTypo: true, suggestedEmail: 'someone@gmail.com', isPersonalEmail: false });
    // gmial.com is not in the zone: NXDOMAIN.
    expect(data).toMatchObject({ valid: false, domainExists: false, hasMxRecords: false });
    expect((await verify('someone@hotmial.com')).suggestedEmail).toBe('someone@hotmail.com');
    // Short business domains near a provider are not "corrected".
    expect((await verify('ceo@att.com')).suggestedEmail).toBeNull();
    expect((await verify('jane.doe@acme-corp.example')).isTypo).toBe(false);
  });

  it('says a domain that does not exist is invalid, with reasons', async () => {
    const data = await verify('nobody@no-such-domain.example');
    expect(data).toMatchObject({
      valid: false,
      domainExists: false,
      hasWebsite: false,
      hasMxRecords: false,
      isTypo: false,
      suggestedEmail: null,
    });
    expect(data.reasons).toEqual([expect.stringMatching(/does not exist/), expect.stringMatching(/no MX/)]);
  });

  it('accepts an implicit MX (an A record and no MX)', async () => {
    const data = await verify('user@a-only.example');
    expect(data).toMatchObject({ valid: true, domainExists: true, hasWebsite: true, hasMxRecords: true, reasons: [] });
  });

  it('refuses a domain with no way to receive mail: no MX and no A, or a null MX', async () => {
    const nsOnly = await verify('user@ns-only.example');
    expect(nsOnly).toMatchObject({ valid: false, domainExists: true, hasWebsite: false, hasMxRecords: false });
    expect(nsOnly.reasons).toEqual([expect.stringMatching(/no MX/)]);
    const nullMx = await verify('user@nullmx.example');
    expect(nullMx).toMatchObject({ valid: false, domainExists: true, hasWebsite: true, hasMxRecords: false });
    expect(nullMx.reasons).toEqual([expect.stringMatching(/null MX/)]);
  });

  it('needs the secret key: 401 with the public key or none', async () => {
    for (const key of [p.publicKey, undefined, 'sk_nope']) {
      const res = await h.request('POST', '/v1/verify', { key, body: { email: 'a@gmail.com' } });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('INVALID_API_KEY');
    }
  });

  it('answers 422 with errors[] without a valid email string', async () => {
    for (const body of [
      {},
      { email: 42 },
      { email: null },
      { email: '' },
      { email: 'not-an-email' },
      { email: 'a@b' },
      { email: `${'a'.repeat(65)}@gmail.com` },
    ]) {
      const res = await h.request('POST', '/v1/verify', { key: p.secretKey, body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.errors[0].field).toBe('email');
    }
    const bad = await h.request('POST', '/v1/verify', { key: p.secretKey, body: { email: 'not-an-email' } });
    expect(bad.body.error.errors[0].code).toBe('invalid_string');
    const broken = await h.request('POST', '/v1/verify', {
      key: p.secretKey,
      body: '{"email":',
      raw: true,
      headers: { 'content-type': 'application/json' },
    });
    expect(broken.status).toBe(400);
  });
});

describe('POST /v1/verify when DNS does not answer', () => {
  it('answers invalid with a DNS reason after the 3 s timeout instead of failing', async () => {
    // A DNS server that swallows every question: each look-up times out.
    const silent = createSocket('udp4');
    await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', resolve));
    const dead = await createHarness({ env: { DNS_SERVERS: `127.0.0.1:${silent.address().port}` } });
    try {
      const q = await createProject(dead);
      const res = await dead.request('POST', '/v1/verify', { key: q.secretKey, body: { email: 'a@gmail.com' } });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ valid: false, domainExists: false, isPersonalEmail: true });
      expect(res.body.data.reasons).toContainEqual(expect.stringMatching(/DNS look-up failed: .*MX \(timeout\)/));
    } finally {
      await dead.close();
      silent.close();
    }
  });

  it('answers with a DNS reason when the server refuses', async () => {
    const dead = await createHarness({ env: { DNS_SERVERS: '127.0.0.1:9' } });
    try {
      const q = await createProject(dead);
      const res = await dead.request('POST', '/v1/verify', { key: q.secretKey, body: { email: 'a@gmail.com' } });
      expect(res.status).toBe(200);
      expect(res.body.data.valid).toBe(false);
      expect(res.body.data.reasons).toContainEqual(expect.stringMatching(/DNS look-up failed/));
    } finally {
      await dead.close();
    }
  });
});
