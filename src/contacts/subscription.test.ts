import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { contactToken } from '../emails/render/tokens.js';
import { applyBounce, applyComplaint } from '../feedback/apply.js';
import { runBulk } from './bulk.js';
import { importCsv } from './import.js';

// The subscription rule (subscription.ts), path by path: a change records one contact.subscribed /
// contact.unsubscribed and announces one contact.updated; no change records nothing; a client's
// explicit write announces contact.updated even when nothing changed.
describe('one subscription rule, whichever path changes it', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(async () => h?.close());

  /** A project with an endpoint listening to contact.*, and a subscribed contact. */
  async function setup(subscribed = true) {
    const p = await createProject(h);
    await h.sql(
      `insert into webhook_endpoints (id, project_id, url, events, secret) values (gen_random_uuid(), $1, 'https://hooks.example.test/x', '{contact.*}', 'whsec_x')`,
      [p.id],
    );
    const email = `s-${randomUUID().slice(0, 8)}@example.test`;
    const [c] = await h.sql(
      `insert into contacts (id, project_id, email, subscribed, data) values (gen_random_uuid(), $1, $2, $3, '{"plan":"pro"}') returning id`,
      [p.id, email, subscribed],
    );
    return { p, contactId: c.id as string, email };
  }
  /** What the contact's subscription changes recorded: events in order, webhook types (by type: deliveries of one instant have no order) with their `subscribed`. */
  async function recorded(p: TestProject, contactId: string) {
    const events = await h.sql(
      `select name, data from events where project_id = $1 and contact_id = $2 and name like 'contact.%' order by id`,
      [p.id, contactId],
    );
    const hooks = await h.sql(
      `select event_type as type, payload->'data'->>'subscribed' as subscribed from webhook_deliveries where project_id = $1 order by event_type, id`,
      [p.id],
    );
    return { events, hooks };
  }
  const emailOf = async (p: TestProject, contactId: string, to: string) => {
    const id = randomUUID();
    await h.sql(
      `insert into emails (id, project_id, contact_id, to_email, from_email, subject, body, source_type, status, message_id)
      values ($1, $2, $3, $4, 'hello@example.test', 'Hi', '<p>x</p>', 'TRANSACTIONAL', 'DELIVERED', $5)`,
      [id, p.id, contactId, to, `<${id}@example.test>`],
    );
    return id;
  };

  it('PATCH /contacts/:id: one event and one contact.updated; the same state again announces the write only', async () => {
    const { p, contactId } = await setup();
    const res = await h.request('PATCH', `/contacts/${contactId}`, {
      key: p.secretKey,
      body: { subscribed: false, data: { plan: 'free' } },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ subscribed: false, data: { plan: 'free' } });
    expect(await recorded(p, contactId)).toEqual({
      events: [{ name: 'contact.unsubscribed', data: {} }],
      hooks: [
        { type: 'contact.unsubscribed', subscribed: null },
        { type: 'contact.updated', subscribed: 'false' },
      ],
    });
    expect(
      (await h.request('PATCH', `/contacts/${contactId}`, { key: p.secretKey, body: { subscribed: false } })).status,
    ).toBe(200);
    const after = await recorded(p, contactId);
    expect(after.events).toHaveLength(1);
    expect(after.hooks.map((x) => x.type)).toEqual(['contact.unsubscribed', 'contact.updated', 'contact.updated']);
  });

  it('the unsubscribe page (one-click): the event and contact.updated once; a second click changes nothing', async () => {
    const { p, contactId } = await setup();
    const token = contactToken(h.deps.secret, contactId);
    for (let i = 0; i < 2; i++)
      expect((await h.request('POST', `/unsubscribe/${token}`, { body: {} })).status).toBe(200);
    expect(await recorded(p, contactId)).toEqual({
      events: [{ name: 'contact.unsubscribed', data: {} }],
      hooks: [
        { type: 'contact.unsubscribed', subscribed: null },
        { type: 'contact.updated', subscribed: 'false' },
      ],
    });
  });

  it('a hard bounce and a complaint: unsubscribed once, announced once', async () => {
    const { p, contactId, email } = await setup();
    const first = await emailOf(p, contactId, email);
    const second = await emailOf(p, contactId, email);
    const at = new Date();
    await h.deps.db.transaction((tx) =>
      applyBounce(tx, first, { permanent: true, diagnostic: 'smtp; 550 5.1.1 unknown', at }),
    );
    await h.deps.db.transaction((tx) => applyComplaint(tx, second, { at }));
    const r = await recorded(p, contactId);
    expect(r.events).toEqual([{ name: 'contact.unsubscribed', data: {} }]);
    expect(r.hooks).toEqual([
      { type: 'contact.unsubscribed', subscribed: null },
      { type: 'contact.updated', subscribed: 'false' },
    ]);
    expect((await h.sql(`select subscribed from contacts where id = $1`, [contactId]))[0].subscribed).toBe(false);
  });

  it('bulk subscribe: the event with its source, and contact.updated, for the changed contacts only', async () => {
    const { p, contactId } = await setup(false);
    const [same] = await h.sql(
      `insert into contacts (id, project_id, email, subscribed) values (gen_random_uuid(), $1, 'already@example.test', true) returning id`,
      [p.id],
    );
    const result = await h.deps.db.transaction((tx) =>
      runBulk(tx, p.id, 'bulk-subscribe', [contactId, same.id], new Date(), { source: 'api' }),
    );
    expect(result).toMatchObject({ processed: 2, updated: 1, skipped: 1, failed: 0 });
    expect(await recorded(p, contactId)).toEqual({
      events: [{ name: 'contact.subscribed', data: { source: 'bulk-subscribe' } }],
      hooks: [
        { type: 'contact.subscribed', subscribed: null },
        { type: 'contact.updated', subscribed: 'true' },
      ],
    });
  });

  it('a CSV import that flips a contact records the event; a contact it leaves as it was gets none', async () => {
    const { p, email } = await setup();
    const csv = `email,subscribed\n${email},no\nnew@example.test,\n`;
    const result = await h.deps.db.transaction((tx) =>
      importCsv(tx, p.id, Buffer.from(csv), new Date(), async () => {}),
    );
    expect(result).toMatchObject({ processed: 2, created: 1, updated: 1, failed: 0 });
    const events = async () =>
      h.sql(
        `select c.email, e.name from events e join contacts c on c.id = e.contact_id where e.project_id = $1 order by c.email`,
        [p.id],
      );
    expect(await events()).toEqual([{ email, name: 'contact.unsubscribed' }]);
  });
});
