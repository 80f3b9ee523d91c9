import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createVerifiedUser, type TestProject, type TestUser } from '../../test/factories.js';
import { createHarness, type Harness, type Json } from '../../test/harness.js';
import { keyring, secretPlaces } from '../lib/secret-places.js';
import { openSecret } from '../lib/secrets.js';
import type { Config } from '../config.js';
import { resealSecrets } from '../system/reseal.js';
import { resealTransportSecrets } from './transports.service.js';

const PASSWORD = 'pa55-w0rd-not-in-any-answer';
const SES_SECRET = 'ses/Secret+Key-not-in-any-answer';

// The /transports API: shapes, validation, roles, sealed credentials, routing rules and the test call.
describe('/transports', () => {
  let h: Harness;
  let owner: TestProject;
  let other: TestProject;
  let member: TestUser;
  let admin: TestUser;

  beforeAll(async () => {
    // Private addresses refused (the default); the instance relay has credentials that must not show.
    h = await createHarness({ env: { SMTP_URL: 'smtp://relay-user:relay-pass@smtp.example.com:587' } });
    owner = await createProject(h);
    other = await createProject(h);
    member = await createVerifiedUser(h);
    admin = await createVerifiedUser(h);
    for (const [u, role] of [
      [member, 'MEMBER'],
      [admin, 'ADMIN'],
    ] as const) {
      const r = await h.request('POST', `/projects/${owner.id}/members`, {
        cookie: owner.owner.cookie,
        body: { email: u.email, role },
      });
      expect(r.status).toBeLessThan(300);
    }
  });
  afterAll(async () => {
    await h?.close();
  });

  const as = (u: TestUser, p = owner) => ({ cookie: u.cookie, headers: { 'x-project-id': p.id } });
  const create = (p: TestProject, body: Json) => h.request('POST', '/transports', { key: p.secretKey, body });

  it('creates an SMTP transport with its password sealed; reads, updates and deletes it without the password', async () => {
    const p = await createProject(h);
    const res = await create(p, {
      name: 'Relay',
      kind: 'smtp',
      settings: { url: `smtp://mailer:${encodeURIComponent(PASSWORD)}@smtp.relay.example:2525?pool=3` },
      maxPerSecond: 50,
      maxConnections: 4,
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      name: 'Relay',
      kind: 'smtp',
      settings: { url: 'smtp://mailer@smtp.relay.example:2525?pool=3' },
      credentials: 'set',
      maxPerSecond: 50,
      maxConnections: 4,
      enabled: true,
      health: { state: 'closed', failures: 0, openedAt: null, retryAt: null, lastError: null },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(res.text).not.toContain(PASSWORD);
    const id = res.body.id;
    // Stored sealed, bound to the transport: the row holds no password, and opens to it.
    const [row] = await h.sql('select settings, secret from transports where id = $1', [id]);
    expect(JSON.stringify(row)).not.toContain(PASSWORD);
    expect(openSecret(keyring(h.deps), row.secret, secretPlaces.transportSecret(id))).toBe(PASSWORD);

    const list = await h.request('GET', '/transports', { key: p.secretKey });
    expect(list.status).toBe(200);
    expect(list.body.transports.map((t: Json) => t.id)).toEqual([id]);
    expect(list.body.default).toEqual({
      kind: 'smtp',
      description: 'SMTP relay smtp.example.com:587',
      health: { state: 'closed', failures: 0, openedAt: null, retryAt: null, lastError: null },
    });
    expect(list.text).not.toContain('relay-pass');
    expect(list.text).not.toContain(PASSWORD);
    const one = await h.request('GET', `/transports/${id}`, { key: p.secretKey });
    expect(one.body).toEqual(res.body);

    // A URL without a password keeps the stored one; other fields change as given.
    const upd = await h.request('PATCH', `/transports/${id}`, {
      key: p.secretKey,
      body: {
        name: 'Relay 2',
        settings: { url: 'smtps://mailer@smtp2.relay.example' },
        maxPerSecond: null,
        maxConnections: 9,
        enabled: false,
      },
    });
    expect(upd.status, upd.text).toBe(200);
    expect(upd.body).toMatchObject({
      name: 'Relay 2',
      settings: { url: 'smtps://mailer@smtp2.relay.example' },
      credentials: 'set',
      maxPerSecond: null,
      maxConnections: 9,
      enabled: false,
    });
    const [kept] = await h.sql('select secret from transports where id = $1', [id]);
    expect(openSecret(keyring(h.deps), kept.secret, secretPlaces.transportSecret(id))).toBe(PASSWORD);
    // A new password replaces it; clearCredentials removes it.
    const newer = await h.request('PATCH', `/transports/${id}`, {
      key: p.secretKey,
      body: { settings: { url: 'smtps://mailer:other-secret@smtp2.relay.example' } },
    });
    expect(newer.text).not.toContain('other-secret');
    const [replaced] = await h.sql('select secret from transports where id = $1', [id]);
    expect(openSecret(keyring(h.deps), replaced.secret, secretPlaces.transportSecret(id))).toBe('other-secret');
    const cleared = await h.request('PATCH', `/transports/${id}`, {
      key: p.secretKey,
      body: { clearCredentials: true },
    });
    expect(cleared.body.credentials).toBe('none');
    expect((await h.sql('select secret from transports where id = $1', [id]))[0].secret).toBeNull();

    // Health as the engine records it.
    await h.sql(
      `insert into transport_health (transport, project_id, state, failures, opened_at, retry_at, last_error)
       values ($1, $2, 'open', 5, '2026-01-02T10:42:00Z', '2026-01-02T10:43:00Z', 'connection refused')`,
      [id, p.id],
    );
    expect((await h.request('GET', `/transports/${id}`, { key: p.secretKey })).body.health).toEqual({
      state: 'open',
      failures: 5,
      openedAt: '2026-01-02T10:42:00.000Z',
      retryAt: '2026-01-02T10:43:00.000Z',
      lastError: 'connection refused',
    });

    expect((await h.request('DELETE', `/transports/${id}`, { key: p.secretKey })).status).toBe(204);
    expect((await h.request('GET', `/transports/${id}`, { key: p.secretKey })).status).toBe(404);
    expect(await h.sql('select 1 from transport_health where transport = $1', [id])).toEqual([]);
  });

  it('creates an SES transport with its secret key sealed; an update without the key keeps it', async () => {
    const p = await createProject(h);
    const res = await create(p, {
      name: 'SES',
      kind: 'ses',
      settings: {
        region: 'eu-west-1',
        configurationSet: 'pigeon',
        accessKeyId: 'AKIAEXAMPLE',
        secretAccessKey: SES_SECRET,
      },
      enabled: false,
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({
      kind: 'ses',
      settings: { region: 'eu-west-1', configurationSet: 'pigeon', accessKeyId: 'AKIAEXAMPLE' },
      credentials: 'set',
      maxPerSecond: null,
      maxConnections: null,
      enabled: false,
    });
    expect(res.text).not.toContain(SES_SECRET);
    const id = res.body.id;
    const upd = await h.request('PATCH', `/transports/${id}`, {
      key: p.secretKey,
      body: { settings: { region: 'us-east-1', accessKeyId: 'AKIAEXAMPLE' } },
    });
    expect(upd.body).toMatchObject({
      settings: { region: 'us-east-1', accessKeyId: 'AKIAEXAMPLE' },
      credentials: 'set',
    });
    const [row] = await h.sql('select settings, secret from transports where id = $1', [id]);
    expect(JSON.stringify(row)).not.toContain(SES_SECRET);
    expect(openSecret(keyring(h.deps), row.secret, secretPlaces.transportSecret(id))).toBe(SES_SECRET);
    // Changing the kind needs the new kind's settings and drops the old secret.
    expect((await h.request('PATCH', `/transports/${id}`, { key: p.secretKey, body: { kind: 'smtp' } })).status).toBe(
      422,
    );
    expect(
      (
        await h.request('PATCH', `/transports/${id}`, {
          key: p.secretKey,
          body: { settings: { url: 'smtp://smtp.example.net' } },
        })
      ).status,
    ).toBe(422);
    const switched = await h.request('PATCH', `/transports/${id}`, {
      key: p.secretKey,
      body: { kind: 'smtp', settings: { url: 'smtp://smtp.example.net' } },
    });
    expect(switched.body).toMatchObject({
      kind: 'smtp',
      settings: { url: 'smtp://smtp.example.net' },
      credentials: 'none',
    });
  });

  it('refuses bad input with 422 naming the field, a taken name with 409, and writes nothing', async () => {
    const p = await createProject(h);
    const bad: Array<[Json, string]> = [
      [{ name: '', kind: 'smtp', settings: { url: 'smtp://a.example' } }, 'name'],
      [{ name: 'x'.repeat(101), kind: 'smtp', settings: { url: 'smtp://a.example' } }, 'name'],
      [{ name: 'A', kind: 'http', settings: { url: 'smtp://a.example' } }, 'kind'],
      [{ name: 'A', kind: 'smtp', settings: { url: 'http://a.example' } }, 'settings.url'],
      [{ name: 'A', kind: 'smtp', settings: { url: 'not a url' } }, 'settings.url'],
      [{ name: 'A', kind: 'smtp', settings: { url: 'smtp://a.example/path' } }, 'settings.url'],
      [{ name: 'A', kind: 'smtp', settings: { url: 'smtp://a.example?pool=0' } }, 'settings.url'],
      [{ name: 'A', kind: 'smtp', settings: { url: 'smtp://127.0.0.1:25' } }, 'settings.url'],
      [{ name: 'A', kind: 'smtp', settings: { url: 'smtp://169.254.169.254' } }, 'settings.url'],
      [{ name: 'A', kind: 'smtp', settings: { url: 'smtp://metadata.google.internal' } }, 'settings.url'],
      [{ name: 'A', kind: 'ses', settings: { region: 'Europe' } }, 'settings.region'],
      [{ name: 'A', kind: 'ses', settings: { region: 'eu-west-1', secretAccessKey: 'k' } }, 'settings.accessKeyId'],
      [{ name: 'A', kind: 'smtp', settings: { url: 'smtp://a.example' }, maxPerSecond: 0 }, 'maxPerSecond'],
      [{ name: 'A', kind: 'smtp', settings: { url: 'smtp://a.example' }, maxPerSecond: 100001 }, 'maxPerSecond'],
      [{ name: 'A', kind: 'smtp', settings: { url: 'smtp://a.example' }, maxConnections: 101 }, 'maxConnections'],
      [{ name: 'A', kind: 'smtp', settings: { url: 'smtp://a.example' }, enabled: 'yes' }, 'enabled'],
    ];
    for (const [body, field] of bad) {
      const r = await create(p, body);
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect(r.body.error.code).toBe('VALIDATION_ERROR');
      expect(
        r.body.error.errors.map((e: Json) => e.field),
        JSON.stringify(body),
      ).toContain(field);
    }
    const refused = await create(p, { name: 'A', kind: 'smtp', settings: { url: 'smtp://127.0.0.1:25' } });
    expect(refused.body.error.errors[0].message).toContain('TRANSPORT_ALLOW_PRIVATE_ADDRESSES');
    expect(await h.sql('select 1 from transports where project_id = $1', [p.id])).toEqual([]);

    expect((await create(p, { name: 'Same', kind: 'smtp', settings: { url: 'smtp://a.example' } })).status).toBe(201);
    const dup = await create(p, { name: 'Same', kind: 'ses', settings: { region: 'eu-west-1' } });
    expect(dup.status).toBe(409);
    expect(dup.body.error.message).toContain('Same');
    // Another project may use the name.
    expect((await create(other, { name: 'Same', kind: 'smtp', settings: { url: 'smtp://a.example' } })).status).toBe(
      201,
    );
    const second = await create(p, { name: 'Second', kind: 'smtp', settings: { url: 'smtp://b.example' } });
    const renamed = await h.request('PATCH', `/transports/${second.body.id}`, {
      key: p.secretKey,
      body: { name: 'Same' },
    });
    expect(renamed.status).toBe(409);
    expect(
      (
        await h.request('PATCH', `/transports/${second.body.id}`, {
          key: p.secretKey,
          body: { settings: { url: 'smtp://10.0.0.1' } },
        })
      ).status,
    ).toBe(422);
    expect((await h.request('GET', `/transports/${second.body.id}`, { key: p.secretKey })).body).toMatchObject({
      name: 'Second',
      settings: { url: 'smtp://b.example' },
    });
  });

  it("answers 404 for another project's transports, and for ids that are not ids", async () => {
    const mine = await create(owner, { name: 'Mine', kind: 'smtp', settings: { url: 'smtp://mine.example' } });
    const id = mine.body.id;
    const k = { key: other.secretKey };
    expect((await h.request('GET', `/transports/${id}`, k)).status).toBe(404);
    expect((await h.request('PATCH', `/transports/${id}`, { ...k, body: { name: 'Theirs' } })).status).toBe(404);
    expect((await h.request('POST', `/transports/${id}/test`, k)).status).toBe(404);
    expect((await h.request('DELETE', `/transports/${id}`, k)).status).toBe(404);
    expect((await h.request('GET', '/transports', k)).body.transports.map((t: Json) => t.id)).not.toContain(id);
    expect((await h.request('GET', '/transports/not-a-uuid', { key: owner.secretKey })).status).toBe(404);
    expect((await h.request('GET', `/transports/${id}`, { key: owner.secretKey })).body.name).toBe('Mine');
  });

  it('members read; only OWNER and ADMIN (or the secret key) change and test', async () => {
    const made = await h.request('POST', '/transports', {
      ...as(admin),
      body: { name: 'By admin', kind: 'smtp', settings: { url: 'smtp://admin.example' } },
    });
    expect(made.status).toBe(201);
    expect((await h.request('GET', '/transports', as(member))).status).toBe(200);
    expect((await h.request('GET', `/transports/${made.body.id}`, as(member))).status).toBe(200);
    expect((await h.request('GET', '/transports/rules', as(member))).status).toBe(200);
    // Refused before the body is read: even a broken body answers 403, not 422.
    const denied = await h.request('POST', '/transports', { ...as(member), body: { name: 1 } });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('FORBIDDEN');
    for (const [method, path, body] of [
      ['PATCH', `/transports/${made.body.id}`, { enabled: false }],
      ['DELETE', `/transports/${made.body.id}`, undefined],
      ['POST', `/transports/${made.body.id}/test`, undefined],
      ['PUT', '/transports/rules', { rules: [] }],
    ] as const) {
      expect((await h.request(method, path, { ...as(member), body })).status, `${method} ${path}`).toBe(403);
    }
    expect((await h.sql('select enabled from transports where id = $1', [made.body.id]))[0].enabled).toBe(true);
    expect((await h.request('GET', '/transports', {})).status).toBe(401);
  });

  it('stores routing rules in order, checks every transport, and refuses to delete a transport a rule uses', async () => {
    const p = await createProject(h);
    const a = (await create(p, { name: 'A', kind: 'smtp', settings: { url: 'smtp://a.example' } })).body.id;
    const b = (await create(p, { name: 'B', kind: 'ses', settings: { region: 'eu-west-1' } })).body.id;
    const theirs = (await create(other, { name: 'Theirs', kind: 'smtp', settings: { url: 'smtp://t.example' } })).body
      .id;
    const put = (body: Json) => h.request('PUT', '/transports/rules', { key: p.secretKey, body });

    expect((await h.request('GET', '/transports/rules', { key: p.secretKey })).body).toEqual({ rules: [] });
    const rules = [
      { match: { stream: 'marketing', fromDomain: 'News.Example.COM' }, transports: [b, 'default'] },
      { match: { toDomain: 'gmail.com' }, transports: [a] },
      { match: {}, transports: ['default', a, b] },
    ];
    const ok = await put({ rules });
    expect(ok.status, ok.text).toBe(200);
    const stored = {
      rules: [
        { match: { stream: 'marketing', fromDomain: 'news.example.com' }, transports: [b, 'default'] },
        { match: { toDomain: 'gmail.com' }, transports: [a] },
        { match: {}, transports: ['default', a, b] },
      ],
    };
    expect(ok.body).toEqual(stored);
    expect((await h.request('GET', '/transports/rules', { key: p.secretKey })).body).toEqual(stored);

    // Each refused, and nothing of it written.
    const bad: Array<[Json, string]> = [
      [{ rules: [{ match: {}, transports: [] }] }, 'rules.0.transports'],
      [{ rules: [{ match: {}, transports: [a, b, 'default', a, b, a] }] }, 'rules.0.transports'],
      [{ rules: [{ match: {}, transports: [a, a] }] }, 'rules.0.transports.1'],
      [{ rules: [{ match: { stream: 'bulk' }, transports: [a] }] }, 'rules.0.match.stream'],
      [{ rules: [{ match: { fromDomain: 'not a domain' }, transports: [a] }] }, 'rules.0.match.fromDomain'],
      [{ rules: [{ match: { toDomain: 'x@y.com' }, transports: [a] }] }, 'rules.0.match.toDomain'],
      [{ rules: [{ match: { other: 1 }, transports: [a] }] }, 'rules.0.match'],
      [{ rules: Array.from({ length: 51 }, () => ({ match: {}, transports: [a] })) }, 'rules'],
      [
        {
          rules: [
            { match: {}, transports: [a] },
            { match: {}, transports: [a, theirs] },
          ],
        },
        'rules.1.transports.1',
      ],
      [{ rules: [{ match: {}, transports: ['0190aaaa-0000-7000-8000-00000000beef'] }] }, 'rules.0.transports.0'],
      [{ rules: [{ match: {}, transports: ['fallback'] }] }, 'rules.0.transports.0'],
    ];
    for (const [body, field] of bad) {
      const r = await put(body);
      expect(r.status, JSON.stringify(body).slice(0, 200)).toBe(422);
      expect(
        r.body.error.errors.map((e: Json) => e.field),
        JSON.stringify(body).slice(0, 200),
      ).toContain(field);
    }
    expect((await h.request('GET', '/transports/rules', { key: p.secretKey })).body).toEqual(stored);
    // Exactly 50 is fine.
    expect((await put({ rules: Array.from({ length: 50 }, () => ({ match: {}, transports: [a] })) })).status).toBe(200);
    expect((await put(stored)).status).toBe(200);

    // B is in rules 1 and 3: not deleted, and the sentence says where.
    const refused = await h.request('DELETE', `/transports/${b}`, { key: p.secretKey });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('CONFLICT');
    expect(refused.body.error.message).toBe(
      'The transport "B" is used by routing rules 1 and 3; remove it from those rules first.',
    );
    expect((await h.request('GET', `/transports/${b}`, { key: p.secretKey })).status).toBe(200);
    expect((await put({ rules: [{ match: {}, transports: [a] }] })).status).toBe(200);
    expect((await h.request('DELETE', `/transports/${b}`, { key: p.secretKey })).status).toBe(204);
    const inRule = await h.request('DELETE', `/transports/${a}`, { key: p.secretKey });
    expect(inRule.body.error.message).toBe(
      'The transport "A" is used by routing rule 1; remove it from that rule first.',
    );
    // Rules are per project: the other project sees none of them.
    expect((await h.request('GET', '/transports/rules', { key: other.secretKey })).body).toEqual({ rules: [] });
  });

  it('re-seals passwords with a new ENCRYPTION_KEY at start, and the test call still opens them', async () => {
    const p = await createProject(h);
    const made = await create(p, {
      name: 'Rotated',
      kind: 'smtp',
      settings: { url: `smtp://mailer:${PASSWORD}@localhost:2525` },
    });
    const id = made.body.id;
    const stored = async () => (await h.sql('select secret from transports where id = $1', [id]))[0].secret as string;
    const before = await stored();
    const config = h.deps.config as Config & { ENCRYPTION_KEY?: string; ENCRYPTION_KEY_PREVIOUS?: string[] };
    const KEY_B = 'rotated-key-B-rotated-key-B-rotated-key-B';
    try {
      Object.assign(config, { ENCRYPTION_KEY: KEY_B, ENCRYPTION_KEY_PREVIOUS: [h.deps.secret] });
      const r = await resealTransportSecrets(h.deps);
      expect(r.unreadable).toBe(0);
      expect(r.changed).toBeGreaterThanOrEqual(1);
      // The start-up step covers transports too: nothing left to change.
      await resealSecrets(h.deps);
      expect(await resealTransportSecrets(h.deps)).toEqual({ changed: 0, unreadable: 0 });
      const after = await stored();
      expect(after).not.toBe(before);
      Object.assign(config, { ENCRYPTION_KEY_PREVIOUS: undefined }); // B alone opens it
      expect(openSecret(keyring(h.deps), after, secretPlaces.transportSecret(id))).toBe(PASSWORD);
      // Bound to its row: another transport's place does not open it.
      expect(() => openSecret(keyring(h.deps), after, secretPlaces.transportSecret(owner.id))).toThrow();
      // Opened for the test call (which then stops at the loopback address).
      const t = await h.request('POST', `/transports/${id}/test`, { key: p.secretKey });
      expect(t.body.message).toMatch(/^Not connecting to localhost:2525/);
    } finally {
      Object.assign(config, { ENCRYPTION_KEY: undefined, ENCRYPTION_KEY_PREVIOUS: [KEY_B] });
      await resealTransportSecrets(h.deps);
      Object.assign(config, { ENCRYPTION_KEY_PREVIOUS: undefined });
    }
    expect(openSecret(keyring(h.deps), await stored(), secretPlaces.transportSecret(id))).toBe(PASSWORD);
  });

  it('says the stored password cannot be opened instead of failing when the key is gone', async () => {
    const p = await createProject(h);
    const made = await create(p, { name: 'Lost', kind: 'smtp', settings: { url: 'smtp://u:pw@localhost:2525' } });
    // Another transport's sealed value copied in: it does not open here.
    const [src] = await h.sql('select secret from transports where project_id <> $1 and secret is not null limit 1', [
      p.id,
    ]);
    await h.sql('update transports set secret = $1 where id = $2', [src.secret, made.body.id]);
    const t = await h.request('POST', `/transports/${made.body.id}/test`, { key: p.secretKey });
    expect(t.status).toBe(200);
    expect(t.body).toEqual({
      ok: false,
      message: 'The stored credentials cannot be opened with the encryption key; enter the password again.',
      durationMs: 0,
    });
  });

  it('test refuses a host that resolves to a private address while the setting is off', async () => {
    const t = await create(owner, { name: 'Local', kind: 'smtp', settings: { url: 'smtp://localhost:2525' } });
    expect(t.status).toBe(201);
    const r = await h.request('POST', `/transports/${t.body.id}/test`, { key: owner.secretKey });
    expect(r.status).toBe(200);
    expect(r.body.ok).toBe(false);
    expect(r.body.message).toMatch(/^Not connecting to localhost:2525: localhost resolves to .*loopback/);
    expect(r.body.message).toContain('TRANSPORT_ALLOW_PRIVATE_ADDRESSES=true');
    expect(r.body.durationMs).toEqual(expect.any(Number));
  });
});
