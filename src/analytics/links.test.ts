import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h.close();
});

async function email(p: TestProject, campaignId: string | null, stepId: string | null = null) {
  const id = randomUUID();
  await h.sql(
    `insert into emails (id, project_id, to_email, from_email, subject, body, source_type, campaign_id, workflow_step_id, status)
     values ($1, $2, 'to@example.test', 'from@example.test', 's', 'b', $3, $4, $5, 'CLICKED')`,
    [id, p.id, campaignId ? 'CAMPAIGN' : 'WORKFLOW', campaignId, stepId],
  );
  return id;
}

/** One click of a link of an email, as recordClick counts it in `email_link_clicks` (`position` null: a link sent before positions). */
async function click(p: TestProject, emailId: string, link: { url: string; position: number | null }, human: boolean) {
  await h.sql(
    `insert into email_link_clicks as l (email_id, project_id, campaign_id, workflow_step_id, position, url, clicks, human_clicks)
     select id, project_id, campaign_id, workflow_step_id, $2, $3, 1, $4 from emails where id = $1
     on conflict (email_id, (coalesce(position, -1)), (md5(url)))
     do update set clicks = l.clicks + 1, human_clicks = l.human_clicks + excluded.human_clicks`,
    [emailId, link.position, link.url, human ? 1 : 0],
  );
}

describe('per-link reports', () => {
  it('counts clicks, emails and human emails per link of a campaign, by position then URL, for its project only', async () => {
    const p = await createProject(h);
    const q = await createProject(h);
    const [c, other] = [randomUUID(), randomUUID()];
    await h.sql(
      `insert into campaigns (id, project_id, name, subject, body, "from", status) values
         ($1, $3, 'News', 's', 'b', 'a@x.test', 'SENT'), ($2, $3, 'Older', 's', 'b', 'a@x.test', 'SENT')`,
      [c, other, p.id],
    );
    const [e1, e2, e3, e4] = [await email(p, c), await email(p, c), await email(p, c), await email(p, other)];
    const a = { url: 'https://a.test/', position: 0 };
    const b = { url: 'https://b.test/', position: 1 };
    await click(p, e1, a, true);
    await click(p, e1, a, true);
    await click(p, e1, b, false);
    await click(p, e2, a, false);
    await click(p, e3, b, true);
    await click(p, e3, { url: 'https://a.test/', position: null }, true); // a link sent before positions: its own row
    await click(p, e4, a, true);

    const res = await h.request('GET', `/campaigns/${c}/links`, { key: p.secretKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: [
        { url: 'https://a.test/', position: 0, clicks: 3, uniqueClicks: 2, humanClicks: 1 },
        { url: 'https://b.test/', position: 1, clicks: 2, uniqueClicks: 2, humanClicks: 1 },
        { url: 'https://a.test/', position: null, clicks: 1, uniqueClicks: 1, humanClicks: 1 },
      ],
    });
    for (const [path, key] of [
      [`/campaigns/${c}/links`, q.secretKey],
      [`/campaigns/${randomUUID()}/links`, p.secretKey],
      ['/campaigns/not-a-uuid/links', p.secretKey],
    ]) {
      const r = await h.request('GET', path, { key });
      expect(r.status, path).toBe(404);
      expect(r.body.error.code).toBe('RESOURCE_NOT_FOUND');
    }
  });

  it("reports the links of a workflow step's mail, and 404 for a step of another workflow or project", async () => {
    const p = await createProject(h);
    const q = await createProject(h);
    const [wf, wf2, step, step2] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    await h.sql(`insert into workflows (id, project_id, name) values ($1, $3, 'Drip'), ($2, $3, 'Other')`, [
      wf,
      wf2,
      p.id,
    ]);
    await h.sql(
      `insert into workflow_steps (id, workflow_id, project_id, type, name) values
         ($1, $3, $5, 'SEND_EMAIL', 'Welcome'), ($2, $4, $5, 'SEND_EMAIL', 'Other')`,
      [step, step2, wf, wf2, p.id],
    );
    const [e1, e2, e3] = [await email(p, null, step), await email(p, null, step), await email(p, null, step2)];
    const a = { url: 'https://a.test/', position: 0 };
    await click(p, e1, a, true);
    await click(p, e2, a, false);
    await click(p, e3, a, true);

    const res = await h.request('GET', `/workflows/${wf}/steps/${step}/links`, { key: p.secretKey });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      { url: 'https://a.test/', position: 0, clicks: 2, uniqueClicks: 2, humanClicks: 1 },
    ]);
    for (const [path, key] of [
      [`/workflows/${wf}/steps/${step}/links`, q.secretKey],
      [`/workflows/${wf}/steps/${step2}/links`, p.secretKey],
      [`/workflows/${wf}/steps/x/links`, p.secretKey],
    ]) {
      expect((await h.request('GET', path, { key })).status, path).toBe(404);
    }
  });
});
