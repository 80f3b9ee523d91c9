import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { statusAfterFeedback } from '../emails/delivery/outcomes.js';
import { applyBounce, applyComplaint, applyDelivery } from './apply.js';
import type { Transaction } from '../db/tx.js';

describe('the ordering rule of feedback', () => {
  it('moves delivery only up the order, and lets a bounce or complaint end any email not yet final', () => {
    const all = [
      'PENDING',
      'SENDING',
      'SENT',
      'DELIVERED',
      'OPENED',
      'CLICKED',
      'BOUNCED',
      'COMPLAINED',
      'FAILED',
      'SUPPRESSED',
    ] as const;
    expect(all.map((s) => statusAfterFeedback(s, 'DELIVERED'))).toEqual([
      'DELIVERED',
      'DELIVERED',
      'DELIVERED',
      null,
      null,
      null,
      null,
      null,
      null,
      null,
    ]);
    for (const to of ['BOUNCED', 'COMPLAINED'] as const) {
      expect(all.map((s) => statusAfterFeedback(s, to))).toEqual([to, to, to, to, to, to, null, null, null, null]);
    }
  });
});

// The shared feedback functions (used by the SNS webhook and by inbound DSN/ARF reports) on rows.
describe('applyBounce, applyComplaint, applyDelivery', () => {
  let h: Harness;
  let p: TestProject;
  beforeAll(async () => {
    h = await createHarness();
    p = await createProject(h);
  });
  afterAll(async () => h?.close());

  /** An email in `status` to a new subscribed contact; answers its id and address. */
  const email = async (status: string) => {
    const to = `r-${randomUUID().slice(0, 8)}@example.test`;
    const [c] = await h.sql(
      `insert into contacts (id, project_id, email, subscribed) values (gen_random_uuid(), $1, $2, true) returning id`,
      [p.id, to],
    );
    const id = randomUUID();
    await h.sql(
      `insert into emails (id, project_id, contact_id, to_email, from_email, subject, body, source_type, status, message_id)
      values ($1, $2, $3, $4, 'hello@example.test', 'Hi', '<p>x</p>', 'TRANSACTIONAL', $5, $6)`,
      [id, p.id, c.id, to, status, `<${id}@example.test>`],
    );
    return { id, to, contactId: c.id as string };
  };
  const tx = <T>(fn: (t: Transaction) => Promise<T>) => h.deps.db.transaction(fn);
  const names = async (id: string) =>
    (await h.sql(`select name from events where email_id = $1 order by name`, [id])).map((r) => r.name);
  const row = async (id: string) => (await h.sql('select status, error from emails where id = $1', [id]))[0];
  const at = new Date();

  it('a permanent bounce reported twice (two channels) bounces, suppresses and unsubscribes once', async () => {
    const m = await email('DELIVERED');
    expect(await tx((t) => applyBounce(t, m.id, { permanent: true, diagnostic: 'smtp; 550 5.1.1 unknown', at }))).toBe(
      true,
    );
    expect(await tx((t) => applyBounce(t, m.id, { permanent: true, diagnostic: 'again', at }))).toBe(true);
    expect(await row(m.id)).toEqual({ status: 'BOUNCED', error: 'smtp; 550 5.1.1 unknown' });
    expect(await names(m.id)).toEqual(['email.bounce']);
    expect(await h.sql(`select reason from suppressions where project_id = $1 and email = $2`, [p.id, m.to])).toEqual([
      { reason: 'bounce' },
    ]);
    expect(
      await h.sql(`select name from events where contact_id = $1 and name like 'contact.%'`, [m.contactId]),
    ).toEqual([{ name: 'contact.unsubscribed' }]);
  });

  it('a complaint about a bounced email keeps BOUNCED but still suppresses as a complaint', async () => {
    const m = await email('BOUNCED');
    await tx((t) => applyComplaint(t, m.id, { feedbackType: 'abuse', at }));
    expect((await row(m.id)).status).toBe('BOUNCED');
    expect(await names(m.id)).toEqual(['email.complaint']);
    expect(await h.sql(`select reason from suppressions where project_id = $1 and email = $2`, [p.id, m.to])).toEqual([
      { reason: 'complaint' },
    ]);
  });

  it('a delivery after an open keeps OPENED and records email.delivery once', async () => {
    const m = await email('OPENED');
    await tx((t) => applyDelivery(t, m.id, at));
    await tx((t) => applyDelivery(t, m.id, at));
    expect((await row(m.id)).status).toBe('OPENED');
    expect(await names(m.id)).toEqual(['email.delivery']);
  });

  it('a transient bounce records its event each time and changes nothing else', async () => {
    const m = await email('SENT');
    await tx((t) => applyBounce(t, m.id, { permanent: false, diagnostic: 'mailbox full', at }));
    await tx((t) => applyBounce(t, m.id, { permanent: false, at }));
    expect(await row(m.id)).toEqual({ status: 'SENT', error: null });
    expect(await names(m.id)).toEqual(['email.bounce', 'email.bounce']);
    expect(await h.sql(`select 1 from suppressions where project_id = $1 and email = $2`, [p.id, m.to])).toEqual([]);
  });

  it('an unknown email is reported as such', async () => {
    const id = randomUUID();
    expect(await tx((t) => applyDelivery(t, id, at))).toBe(false);
    expect(await tx((t) => applyComplaint(t, id, { at }))).toBe(false);
    expect(await tx((t) => applyBounce(t, id, { permanent: true, at }))).toBe(false);
    expect(await tx((t) => applyBounce(t, id, { permanent: false, at }))).toBe(false);
  });
});
