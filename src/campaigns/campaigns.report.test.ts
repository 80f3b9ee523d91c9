import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markSent } from '../emails/delivery/outcomes.js';
import { applyDelivery } from '../feedback/apply.js';
import { createProject, type TestProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { createVerifiedDomain, type TestDomain } from '../../test/sending-fixtures.js';

// The dashboard's reads around a campaign: audience count before sending, recipients, timeline.
describe('campaign report reads', () => {
  let h: Harness;
  let p: TestProject;
  let d: TestDomain;

  beforeAll(async () => {
    h = await createHarness();
    p = await createProject(h);
    d = await createVerifiedDomain(h, p.id);
    // 6 contacts: 3 pro (one unsubscribed), 3 free.
    await h.sql(
      `insert into contacts (id, project_id, email, subscribed, data)
       select gen_random_uuid(), $1, 'r' || i || '@rcpt.test', i <> 2, jsonb_build_object('plan', case when i <= 3 then 'pro' else 'free' end)
       from generate_series(1, 6) i`,
      [p.id],
    );
  });
  afterAll(async () => {
    await h?.close();
  });

  const count = (body: unknown) => h.request('POST', '/campaigns/audience-count', { key: p.secretKey, body });
  const pro = { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }] };

  it('counts eligible recipients: marketing skips the unsubscribed, transactional does not', async () => {
    expect((await count({ audienceType: 'ALL' })).body).toEqual({ count: 5 });
    expect((await count({ audienceType: 'ALL', type: 'TRANSACTIONAL' })).body).toEqual({ count: 6 });
    expect((await count({ audienceType: 'FILTERED', audienceCondition: pro })).body).toEqual({ count: 2 });
    const seg = await h.request('POST', '/segments', { key: p.secretKey, body: { name: 'Pro', condition: pro } });
    expect((await count({ audienceType: 'SEGMENT', segmentId: seg.body.id, type: 'TRANSACTIONAL' })).body).toEqual({
      count: 3,
    });
  });

  it('answers 422 with field paths for a bad audience', async () => {
    const bad = await count({
      audienceType: 'FILTERED',
      audienceCondition: { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'triggered' }] }] },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error.errors[0].field).toBe('audienceCondition.groups.0.filters.0.operator');
    const noSeg = await count({ audienceType: 'SEGMENT' });
    expect(noSeg.status).toBe(422);
    expect(noSeg.body.error.errors[0].field).toBe('segmentId');
  });

  it("lists a campaign's emails cursor-paged with status filter, and its hourly timeline", async () => {
    const c = (
      await h.request('POST', '/campaigns', {
        key: p.secretKey,
        body: { name: 'R', subject: 'S', body: '<p>x</p>', from: `a@${d.domain}` },
      })
    ).body.data;
    await h.sql(
      `insert into emails (id, project_id, to_email, from_email, subject, body, source_type, campaign_id, status, sent_at, delivered_at, opened_at, error)
       select gen_random_uuid(), $1, 'e' || i || '@rcpt.test', 'a@x.test', 'S', 'b', 'CAMPAIGN', $2,
         case when i = 3 then 'BOUNCED' else 'DELIVERED' end,
         '2026-01-01T10:15:00Z', case when i = 3 then null else '2026-01-01T10:20:00Z'::timestamptz end,
         case when i = 1 then '2026-01-01T11:05:00Z'::timestamptz end, case when i = 3 then '550 no such user' end
       from generate_series(1, 3) i`,
      [p.id, c.id],
    );
    const first = await h.request('GET', `/campaigns/${c.id}/emails?limit=2`, { key: p.secretKey });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ hasMore: true, total: 3 });
    expect(first.body.data).toHaveLength(2);
    const second = await h.request('GET', `/campaigns/${c.id}/emails?limit=2&cursor=${first.body.cursor}`, {
      key: p.secretKey,
    });
    expect(second.body).toMatchObject({ hasMore: false, cursor: null });
    const all = [...first.body.data, ...second.body.data].map((e: { to: string }) => e.to).sort();
    expect(all).toEqual(['e1@rcpt.test', 'e2@rcpt.test', 'e3@rcpt.test']);
    const bounced = await h.request('GET', `/campaigns/${c.id}/emails?status=BOUNCED`, { key: p.secretKey });
    expect(bounced.body.data).toEqual([
      expect.objectContaining({ to: 'e3@rcpt.test', status: 'BOUNCED', error: '550 no such user', deliveredAt: null }),
    ]);

    const t = await h.request('GET', `/campaigns/${c.id}/timeline`, { key: p.secretKey });
    expect(t.body).toEqual({
      interval: 'hour',
      data: [
        { date: '2026-01-01T10:00:00.000Z', sent: 3, delivered: 2, opened: 0, clicked: 0, bounced: 0, complained: 0 },
        { date: '2026-01-01T11:00:00.000Z', sent: 0, delivered: 0, opened: 1, clicked: 0, bounced: 0, complained: 0 },
      ],
    });
    const other = await createProject(h);
    expect((await h.request('GET', `/campaigns/${c.id}/emails`, { key: other.secretKey })).status).toBe(404);
  });

  /** A campaign whose `n` emails were handed over as a transport does it: `delivered` as an SMTP relay says. */
  const handedOver = async (n: number, delivered: boolean) => {
    const c = (
      await h.request('POST', '/campaigns', {
        key: p.secretKey,
        body: { name: 'Feedback', subject: 'S', body: '<p>x</p>', from: `a@${d.domain}` },
      })
    ).body.data;
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const id = randomUUID();
      const token = randomUUID();
      await h.sql(
        `insert into emails (id, project_id, to_email, from_email, subject, body, source_type, campaign_id, status, claim_token)
         values ($1, $2, $3, 'a@x.test', 'S', 'b', 'CAMPAIGN', $4, 'SENDING', $5)`,
        [id, p.id, `f${i}-${id.slice(0, 6)}@rcpt.test`, c.id, token],
      );
      const ok = await h.deps.db.transaction((tx) =>
        markSent(tx, { emailId: id, token }, `<${id}@x.test>`, 'S', delivered, new Date(), p.id),
      );
      expect(ok).toBe(true);
      ids.push(id);
    }
    return { id: c.id as string, emails: ids };
  };
  const stats = async (id: string) => (await h.request('GET', `/campaigns/${id}/stats`, { key: p.secretKey })).body;

  it('keeps "sent" (accepted by the relay) apart from "delivered" as the feedback loop confirms it', async () => {
    // A plain SMTP relay: accepted is all Pigeon learns; Plunk's deliveredCount keeps counting it.
    const relay = await handedOver(2, true);
    expect(await stats(relay.id)).toMatchObject({
      sentCount: 2,
      deliveredCount: 2,
      deliveryRate: 100,
      confirmedDeliveredCount: 0,
      confirmedDeliveryRate: 0,
      deliveryReports: false,
    });

    // A provider with feedback (SES): sent first, delivered when its notification arrives.
    const ses = await handedOver(3, false);
    expect(await stats(ses.id)).toMatchObject({
      sentCount: 3,
      deliveredCount: 0,
      confirmedDeliveredCount: 0,
      deliveryReports: false,
    });
    await h.deps.db.transaction((tx) => applyDelivery(tx, ses.emails[0], new Date(Date.now() + 1000)));
    expect(await stats(ses.id)).toMatchObject({
      sentCount: 3,
      deliveredCount: 1,
      deliveryRate: 33.33,
      confirmedDeliveredCount: 1,
      confirmedDeliveryRate: 33.33,
      deliveryReports: true,
    });
  });
});
