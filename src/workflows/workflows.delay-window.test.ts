import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../test/factories.js';
import { JOBS } from '../../test/graphile-test.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { outboxTo } from '../../test/outbox.js';
import { createTemplate, createVerifiedDomain, eventually } from '../../test/sending-fixtures.js';
import { workflowApi } from '../../test/workflows-helpers.js';

// A DELAY step that waits until the next opening of a send window in the contact's time zone.
describe('workflow DELAY until a window', () => {
  let h: Harness;
  let p: TestProject;
  let api: ReturnType<typeof workflowApi>;
  let domain: string;

  beforeAll(async () => {
    h = await createHarness({ worker: true });
    p = await createProject(h);
    api = workflowApi(h, p);
    domain = (await createVerifiedDomain(h, p.id)).domain;
    await h.sql(`update projects set time_zone = 'Europe/Berlin' where id = $1`, [p.id]);
  });
  afterAll(async () => h?.close());

  const window = { from: '09:00', to: '17:00', days: ['mon', 'tue', 'wed', 'thu', 'fri'] };

  it('resumes at the next opening in the contact’s zone, the project’s zone when the contact has none', async () => {
    const tpl = await createTemplate(h, p.id, {
      subject: 'Good morning',
      body: '<p>Hi</p>',
      from: `flow@${domain}`,
      type: 'TRANSACTIONAL',
    });
    const wf = await api.build(
      'signup',
      { wait: ['DELAY', { until: 'window', window }], send: ['SEND_EMAIL', { templateId: tpl }] },
      [
        ['trigger', 'wait'],
        ['wait', 'send'],
      ],
    );
    // Wednesday 2027-07-14, 22:00 in Berlin, 16:00 in New York, Thursday 05:00 in Tokyo.
    h.clock.set(new Date('2027-07-14T20:00:00Z'));
    const berlin = await api.track('berlin@example.test', 'signup'); // no zone: the project's
    const tokyo = await api.track('tokyo@example.test', 'signup', { timezone: 'Asia/Tokyo' });
    const ny = await api.track('ny@example.test', 'signup', { timezone: 'America/New_York' });
    const resumeAt = async (contact: string) => {
      const e = await api.executionOf(wf.id, contact, 'WAITING', wf.steps.wait);
      const d = await api.req('GET', `/workflows/${wf.id}/executions/${e.id}`);
      const [job] = await h.sql(`select run_at from ${JOBS} j where key = $1`, [`wf:${e.id}:delay`]);
      return { e, at: d.body.steps[1].output.resumeAt as string, job: new Date(job.run_at).toISOString() };
    };
    const b = await resumeAt(berlin);
    expect(b.at).toBe('2027-07-15T07:00:00.000Z'); // Thursday 09:00 CEST
    expect(b.job).toBe(b.at);
    const t = await resumeAt(tokyo);
    expect(t.at).toBe('2027-07-15T00:00:00.000Z'); // Thursday 09:00 JST
    // New York is inside its window (Wednesday 16:00): it goes on at once (a wait that ends when it
    // starts, so that a loop through a DELAY still yields; business time here runs ahead of the queue's).
    const n = await resumeAt(ny);
    expect(new Date(n.at).getTime() - new Date('2027-07-14T20:00:00Z').getTime()).toBeLessThan(10_000);
    expect(await api.runKeyedJobNow(`wf:${n.e.id}:delay`)).toBe(1);
    await api.executionOf(wf.id, ny, 'COMPLETED');
    expect(await outboxTo(h.dataDir, 'berlin@example.test')).toHaveLength(0);
    // When the window opens (the job brought forward), the execution resumes and sends.
    expect(await api.runKeyedJobNow(`wf:${b.e.id}:delay`)).toBe(1);
    await api.executionOf(wf.id, berlin, 'COMPLETED');
    await eventually(
      async () => ((await outboxTo(h.dataDir, 'berlin@example.test')).length === 1 ? true : undefined),
      20_000,
      'mail after the window opened',
    );
  });

  it('keeps duration delays valid and refuses an incomplete window wait', async () => {
    const wf = await api.req('POST', '/workflows', { name: 'wf x', eventName: 'x' });
    const add = (config: unknown) =>
      api.req('POST', `/workflows/${wf.body.id}/steps`, { type: 'DELAY', name: 'd', config });
    expect((await add({ amount: 2, unit: 'days' })).status).toBe(201);
    const cases: Array<[unknown, string]> = [
      [{ until: 'window' }, 'config.window'],
      [{ until: 'window', window: { ...window, days: [] } }, 'config.window.days'],
      [{ until: 'window', window: { ...window, from: '18:00' } }, 'config.window.to'],
      [{ until: 'later', window }, 'config.until'],
      [{ unit: 'days' }, 'config.amount'],
    ];
    for (const [config, field] of cases) {
      const r = await add(config);
      expect(r.status, JSON.stringify(config)).toBe(422);
      expect(
        r.body.error.errors.map((e: { field: string }) => e.field),
        JSON.stringify(config),
      ).toContain(field);
    }
  });
});
