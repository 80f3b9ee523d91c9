import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, uniqueEmail, type TestProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { createVerifiedDomain } from '../../test/sending-fixtures.js';
import { importCsv } from '../contacts/import.js';
import { snoozeContacts } from '../contacts/subscription.js';
import { contactToken } from '../emails/render/tokens.js';
import { applyComplaint } from '../feedback/apply.js';

// The consent log of the master switch (contacts/subscription.ts → consent/consent.ts): each path that
// changes `subscribed` records exactly one entry with its source; a write that changes nothing records none.
describe('the consent log of subscribed', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(async () => h?.close());

  /** The contact's entries, oldest first, as the table holds them. */
  const entries = (contactId: string) =>
    h.sql(
      `select action, source, topic_id as "topicId", form_id as "formId", ip, user_agent as "userAgent"
       from consent_events where contact_id = $1 order by id`,
      [contactId],
    );
  const contactOf = async (p: TestProject, email: string) =>
    (await h.sql(`select id from contacts where project_id = $1 and email = $2`, [p.id, email]))[0]?.id as string;
  const asDashboard = (p: TestProject) => ({ cookie: p.owner.cookie, headers: { 'x-project-id': p.id } });

  it('POST and PATCH /contacts: the key records api, the dashboard dashboard; no change records nothing', async () => {
    const p = await createProject(h);
    const created = await h.request('POST', '/contacts', { key: p.secretKey, body: { email: uniqueEmail() } });
    expect(created.status, created.text).toBe(201);
    const id = created.body.id as string;
    // Created subscribed: how the contact came to be mailed.
    expect(await entries(id)).toEqual([
      { action: 'subscribed', source: 'api', topicId: null, formId: null, ip: null, userAgent: null },
    ]);
    const quiet = await h.request('POST', '/contacts', {
      key: p.secretKey,
      body: { email: uniqueEmail(), subscribed: false },
    });
    expect(await entries(quiet.body.id)).toEqual([]);

    const patch = (body: object, as: object) => h.request('PATCH', `/contacts/${id}`, { body, ...as });
    expect((await patch({ subscribed: false }, { key: p.secretKey })).status).toBe(200);
    expect((await patch({ subscribed: false }, { key: p.secretKey })).status).toBe(200);
    expect((await patch({ subscribed: true }, asDashboard(p))).status).toBe(200);
    expect((await patch({ subscribed: true, data: { plan: 'pro' } }, asDashboard(p))).status).toBe(200);
    expect((await entries(id)).map((e) => [e.action, e.source])).toEqual([
      ['subscribed', 'api'],
      ['unsubscribed', 'api'],
      ['subscribed', 'dashboard'],
    ]);
  });

  it('/v1/track: a new contact records subscribed, subscribed false once unsubscribed, again nothing', async () => {
    const p = await createProject(h);
    const email = uniqueEmail();
    const track = (body: object) =>
      h.request('POST', '/v1/track', { key: p.publicKey, body: { email, event: 'visited', ...body } });
    expect((await track({})).status).toBe(200);
    expect((await track({ subscribed: false })).status).toBe(200);
    expect((await track({ subscribed: false })).status).toBe(200);
    expect((await track({})).status).toBe(200);
    expect((await entries(await contactOf(p, email))).map((e) => [e.action, e.source])).toEqual([
      ['subscribed', 'track'],
      ['unsubscribed', 'track'],
    ]);
  });

  it('/v1/send: a new recipient unsubscribed records nothing; subscribed true records api, once', async () => {
    const p = await createProject(h);
    const d = await createVerifiedDomain(h, p.id);
    const to = uniqueEmail();
    const send = (body: object) =>
      h.request('POST', '/v1/send', {
        key: p.secretKey,
        body: { to, from: `hello@${d.domain}`, subject: 'Hi', body: '<p>Hi</p>', ...body },
      });
    expect((await send({})).status).toBe(200);
    const id = await contactOf(p, to);
    expect(await entries(id)).toEqual([]);
    expect((await send({ subscribed: true })).status).toBe(200);
    expect((await send({ subscribed: true })).status).toBe(200);
    expect((await entries(id)).map((e) => [e.action, e.source])).toEqual([['subscribed', 'api']]);
  });

  it('one-click unsubscribe records the client address and user agent, once; a complaint names itself', async () => {
    const p = await createProject(h);
    const [c] = await h.sql(
      `insert into contacts (id, project_id, email, subscribed) values (gen_random_uuid(), $1, $2, true) returning id, email`,
      [p.id, uniqueEmail()],
    );
    const token = contactToken(h.deps.secret, c.id);
    const ua = 'Mozilla/5.0 (consent test)';
    for (let i = 0; i < 2; i++) {
      const res = await h.request('POST', `/unsubscribe/${token}`, {
        body: 'List-Unsubscribe=One-Click',
        raw: true,
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': ua },
      });
      expect(res.status).toBe(200);
    }
    expect(await entries(c.id)).toEqual([
      { action: 'unsubscribed', source: 'one-click', topicId: null, formId: null, ip: '127.0.0.1', userAgent: ua },
    ]);
    // Resubscribed from the page, then a complaint: the complaint names itself.
    await h.request('POST', `/subscribe/${token}`, { body: {} });
    const emailId = randomUUID();
    await h.sql(
      `insert into emails (id, project_id, contact_id, to_email, from_email, subject, body, source_type, status, message_id)
       values ($1, $2, $3, $4, 'hello@example.test', 'Hi', '<p>x</p>', 'TRANSACTIONAL', 'DELIVERED', $5)`,
      [emailId, p.id, c.id, c.email, `<${emailId}@example.test>`],
    );
    await h.deps.db.transaction((tx) => applyComplaint(tx, emailId, { at: new Date() }));
    expect((await entries(c.id)).map((e) => [e.action, e.source])).toEqual([
      ['unsubscribed', 'one-click'],
      ['subscribed', 'one-click'],
      ['unsubscribed', 'complaint'],
    ]);
  });

  it('the CSV import records a flip and a contact it creates subscribed; a row that changes nothing, none', async () => {
    const p = await createProject(h);
    const [kept, flipped, added] = [uniqueEmail(), uniqueEmail(), uniqueEmail()];
    await h.sql(
      `insert into contacts (id, project_id, email, subscribed) values (gen_random_uuid(), $1, $2, true), (gen_random_uuid(), $1, $3, true)`,
      [p.id, kept, flipped],
    );
    const csv = `email,subscribed\n${kept},yes\n${flipped},no\n${added},\n`;
    await h.deps.db.transaction((tx) => importCsv(tx, p.id, Buffer.from(csv), new Date(), async () => {}));
    const rows = await h.sql(
      `select c.email, e.action, e.source from consent_events e join contacts c on c.id = e.contact_id
       where e.project_id = $1 order by c.email`,
      [p.id],
    );
    expect(rows).toEqual(
      [
        { email: flipped, action: 'unsubscribed', source: 'import' },
        { email: added, action: 'subscribed', source: 'import' },
      ].sort((a, b) => (a.email < b.email ? -1 : 1)),
    );
  });

  it('a snooze records snoozed; ending it records nothing', async () => {
    const p = await createProject(h);
    const [c] = await h.sql(
      `insert into contacts (id, project_id, email, subscribed) values (gen_random_uuid(), $1, $2, true) returning id`,
      [p.id, uniqueEmail()],
    );
    const now = new Date();
    const until = new Date(now.getTime() + 14 * 86_400_000);
    const snooze = (u: Date | null) =>
      h.deps.db.transaction((tx) => snoozeContacts(tx, p.id, [c.id], u, now, { source: 'dashboard' }));
    expect(await snooze(until)).toEqual([c.id]);
    expect(await snooze(until)).toEqual([]);
    expect(await snooze(null)).toEqual([c.id]);
    expect((await entries(c.id)).map((e) => [e.action, e.source])).toEqual([['snoozed', 'dashboard']]);
  });

  it('GET /contacts/:id/consent pages newest first; 404 for another project; deleting the contact erases its log', async () => {
    const p = await createProject(h);
    const other = await createProject(h);
    const created = await h.request('POST', '/contacts', { key: p.secretKey, body: { email: uniqueEmail() } });
    const id = created.body.id as string;
    for (const subscribed of [false, true])
      await h.request('PATCH', `/contacts/${id}`, { key: p.secretKey, body: { subscribed } });

    const first = await h.request('GET', `/contacts/${id}/consent?limit=2`, asDashboard(p));
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({ hasMore: true, total: 3 });
    expect(first.body.data.map((e: { action: string }) => e.action)).toEqual(['subscribed', 'unsubscribed']);
    expect(first.body.data[0]).toMatchObject({ source: 'api', topicId: null, ip: null });
    expect(Date.parse(first.body.data[0].createdAt)).not.toBeNaN();
    const second = await h.request('GET', `/contacts/${id}/consent?limit=2&cursor=${first.body.cursor}`, {
      key: p.secretKey,
    });
    expect(second.body).toMatchObject({ hasMore: false, cursor: null, total: 0 });
    expect(second.body.data.map((e: { action: string }) => e.action)).toEqual(['subscribed']);

    expect((await h.request('GET', `/contacts/${id}/consent`, { key: other.secretKey })).status).toBe(404);
    expect((await h.request('GET', `/contacts/${randomUUID()}/consent`, { key: p.secretKey })).status).toBe(404);
    expect((await h.request('GET', `/contacts/${id}/consent?cursor=nope`, { key: p.secretKey })).status).toBe(422);

    expect((await h.request('DELETE', `/contacts/${id}`, { key: p.secretKey })).status).toBe(204);
    expect(await entries(id)).toEqual([]);
  });
});
