import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../test/factories.js';
import { createHarness, type Harness, type Json } from '../../test/harness.js';
import { createTemplate, createVerifiedDomain } from '../../test/sending-fixtures.js';

// Workflow definitions: CRUD, step configs, graph rules. No worker: the
// executions started here stay at their first step, which is what the 409 rules need.
describe('workflow definitions', () => {
  let h: Harness;
  let p: TestProject;
  let tpl: string;
  beforeAll(async () => {
    h = await createHarness();
    p = await createProject(h);
    const d = await createVerifiedDomain(h, p.id);
    tpl = await createTemplate(h, p.id, { subject: 'Hi', body: '<p>Hi</p>', from: `hi@${d.domain}` });
  });
  afterAll(async () => h?.close());

  const req = (method: string, path: string, body?: unknown) => h.request(method, path, { key: p.secretKey, body });
  const newWorkflow = async (extra: Record<string, unknown> = {}) => {
    const res = await req('POST', '/workflows', { name: 'Flow', eventName: 'signup', ...extra });
    expect(res.status).toBe(201);
    return res.body;
  };
  const addStep = async (wf: string, type: string, config: unknown, name = type) => {
    const res = await req('POST', `/workflows/${wf}/steps`, { type, name, config });
    expect(res.status, res.text).toBe(201);
    return res.body.id as string;
  };
  const link = (wf: string, fromStepId: string, toStepId: string, extra: Record<string, unknown> = {}) =>
    req('POST', `/workflows/${wf}/transitions`, { fromStepId, toStepId, ...extra });
  const errorOf = (res: { body: Json }) => [res.body.error.errors[0].field, res.body.error.errors[0].code];

  it('creates a disabled EVENT workflow with its TRIGGER step, lists, reads, patches and deletes it', async () => {
    const wf = await newWorkflow({ description: 'Welcome', allowReentry: true });
    expect(wf).toMatchObject({
      name: 'Flow',
      description: 'Welcome',
      triggerType: 'EVENT',
      triggerConfig: { eventName: 'signup' },
      enabled: false,
      allowReentry: true,
      transitions: [],
    });
    expect(wf.steps).toEqual([expect.objectContaining({ type: 'TRIGGER', config: { eventName: 'signup' } })]);

    const list = await req('GET', '/workflows');
    expect(list.status).toBe(200);
    expect(list.body.data.map((w: Json) => w.id)).toContain(wf.id);
    expect(list.body).toMatchObject({ page: 1, pageSize: 20 });

    const patched = await req('PATCH', `/workflows/${wf.id}`, {
      name: 'Renamed',
      enabled: true,
      triggerConfig: { eventName: 'joined' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'Renamed', enabled: true, triggerConfig: { eventName: 'joined' } });
    expect(patched.body.steps[0].config).toEqual({ eventName: 'joined' });

    expect((await req('DELETE', `/workflows/${wf.id}`)).status).toBe(204);
    expect((await req('GET', `/workflows/${wf.id}`)).status).toBe(404);
  });

  it("404 for unknown ids, non-uuids and another project's workflow; 422 for a bad create body", async () => {
    const other = await createProject(h);
    const foreign = await h.request('POST', '/workflows', {
      key: other.secretKey,
      body: { name: 'X', eventName: 'e' },
    });
    for (const id of [foreign.body.id, 'nope', '0190aaaa-0000-7000-8000-000000000000']) {
      expect((await req('GET', `/workflows/${id}`)).status).toBe(404);
      expect((await req('PATCH', `/workflows/${id}`, { name: 'x' })).status).toBe(404);
      expect((await req('DELETE', `/workflows/${id}`)).status).toBe(404);
    }
    const bad = await req('POST', '/workflows', { name: 'No event' });
    expect(bad.status).toBe(422);
    expect(bad.body.error.errors[0].field).toBe('eventName');
  });

  it('checks each step config', async () => {
    const wf = (await newWorkflow()).id;
    const bad: Array<[string, unknown, string, string]> = [
      ['SEND_EMAIL', { templateId: '0190aaaa-0000-7000-8000-000000000000' }, 'config.templateId', 'template_not_found'],
      ['SEND_EMAIL', { templateId: tpl, recipient: { type: 'CUSTOM' } }, 'config.recipient.email', 'custom'],
      ['DELAY', { amount: 0, unit: 'hours' }, 'config.amount', 'too_small'],
      ['DELAY', { amount: 366, unit: 'days' }, 'config.amount', 'custom'],
      ['DELAY', { amount: 1, unit: 'weeks' }, 'config.unit', 'invalid_enum_value'],
      ['WAIT_FOR_EVENT', { timeout: 10 }, 'config.eventName', 'invalid_type'],
      ['CONDITION', { field: 'data.plan', operator: 'triggered', value: 'x' }, 'config.operator', 'invalid_enum_value'],
      ['CONDITION', { field: 'nonsense', operator: 'equals', value: 'x' }, 'config.field', 'invalid_field'],
      ['WEBHOOK', { url: 'ftp://example.test/x', method: 'POST' }, 'config.url', 'invalid_string'],
      ['UPDATE_CONTACT', { subscriptionAction: 'maybe' }, 'config.subscriptionAction', 'invalid_enum_value'],
    ];
    for (const [type, config, field, code] of bad) {
      const res = await req('POST', `/workflows/${wf}/steps`, { type, name: 'x', config });
      expect(res.status, `${type} ${JSON.stringify(config)}`).toBe(422);
      expect(errorOf(res), `${type} ${JSON.stringify(config)}`).toEqual([field, code]);
    }
    expect((await req('POST', `/workflows/${wf}/steps`, { type: 'TRIGGER', name: 'x', config: {} })).status).toBe(422);
    const send = await req('POST', `/workflows/${wf}/steps`, {
      type: 'SEND_EMAIL',
      name: 'Send',
      config: {},
      templateId: tpl,
    });
    expect(send.status).toBe(201);
    expect(send.body).toMatchObject({ type: 'SEND_EMAIL', templateId: tpl, config: { templateId: tpl } });
    const cond = await addStep(wf, 'CONDITION', { field: 'event.data.plan', operator: 'equals', value: 'pro' });
    const patched = await req('PATCH', `/workflows/${wf}/steps/${cond}`, {
      name: 'Is pro?',
      config: { field: 'context.tier', operator: 'exists' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'Is pro?', config: { field: 'context.tier', operator: 'exists' } });
    const badPatch = await req('PATCH', `/workflows/${wf}/steps/${cond}`, {
      config: { field: 'data.x', operator: 'nope' },
    });
    expect(badPatch.status).toBe(422);
    // The usage endpoint of templates finds the step through its template id.
    expect((await h.sql('select count(*)::int as n from workflow_steps where template_id = $1', [tpl]))[0].n).toBe(1);
  });

  it('refuses transitions that break a graph rule, naming the rule', async () => {
    const wf = await newWorkflow();
    const trigger = wf.steps[0].id as string;
    const cond = await addStep(wf.id, 'CONDITION', { field: 'data.plan', operator: 'equals', value: 'pro' });
    const wait = await addStep(wf.id, 'WAIT_FOR_EVENT', { eventName: 'paid', timeout: 60 });
    const a = await addStep(wf.id, 'DELAY', { amount: 1, unit: 'hours' });
    const b = await addStep(wf.id, 'UPDATE_CONTACT', { updates: { x: 1 } });
    const exit = await addStep(wf.id, 'EXIT', { reason: 'done' });

    expect((await link(wf.id, trigger, cond)).status).toBe(201);
    expect(errorOf(await link(wf.id, cond, a))).toEqual(['branch', 'branch_required']);
    expect((await link(wf.id, cond, a, { branch: 'yes' })).status).toBe(201);
    const takenYes = await link(wf.id, cond, b, { branch: 'yes' });
    expect(errorOf(takenYes)).toEqual(['branch', 'branch_taken']);
    expect(takenYes.body.error.details).toMatchObject({
      rule: 'branch_taken',
      stepId: cond,
      transitionId: expect.any(String),
    });
    expect((await link(wf.id, cond, wait, { branch: 'no' })).status).toBe(201);
    expect(errorOf(await link(wf.id, wait, b))).toEqual(['waitOutcome', 'wait_outcome_required']);
    expect((await link(wf.id, wait, b, { waitOutcome: 'EVENT' })).status).toBe(201);
    expect(errorOf(await link(wf.id, wait, exit, { waitOutcome: 'EVENT' }))).toEqual([
      'waitOutcome',
      'wait_outcome_taken',
    ]);
    expect((await link(wf.id, wait, exit, { waitOutcome: 'TIMEOUT' })).status).toBe(201);
    expect(errorOf(await link(wf.id, a, b, { branch: 'yes' }))).toEqual(['branch', 'branch_not_allowed']);
    expect((await link(wf.id, a, b)).status).toBe(201);
    expect(errorOf(await link(wf.id, a, exit))).toEqual(['fromStepId', 'single_outgoing']);
    expect(errorOf(await link(wf.id, exit, a))).toEqual(['fromStepId', 'exit_outgoing']);
    expect(errorOf(await link(wf.id, b, b))).toEqual(['toStepId', 'self_link']);
    const cycle = await link(wf.id, b, cond);
    expect(errorOf(cycle)).toEqual(['toStepId', 'cycle']);
    // The answer says where: the cycle's steps, from the link's target back to its source.
    expect(cycle.body.error.details).toEqual({ rule: 'cycle', stepId: cond, path: [cond, a, b] });
    const second = await link(wf.id, a, exit);
    const [aOut] = await h.sql('select id from workflow_transitions where from_step_id = $1', [a]);
    expect(second.body.error.details).toEqual({ rule: 'single_outgoing', stepId: a, transitionId: aOut.id });
    expect(errorOf(await link(wf.id, b, trigger))).toEqual(['toStepId', 'trigger_incoming']);
    expect((await link(wf.id, b, '0190aaaa-0000-7000-8000-000000000000')).status).toBe(404);

    // Delete a → with splice, cond's yes-branch now leads to b.
    expect((await req('DELETE', `/workflows/${wf.id}/steps/${a}?splice=true`)).status).toBe(204);
    const full = (await req('GET', `/workflows/${wf.id}`)).body;
    expect(full.steps.map((s: Json) => s.id)).not.toContain(a);
    expect(full.transitions.find((t: Json) => t.fromStepId === cond && t.branch === 'yes').toStepId).toBe(b);
    // Without splice the links go with the step.
    expect((await req('DELETE', `/workflows/${wf.id}/steps/${b}`)).status).toBe(204);
    const after = (await req('GET', `/workflows/${wf.id}`)).body;
    expect(after.transitions.some((t: Json) => t.toStepId === b || t.fromStepId === b)).toBe(false);
    const del = await req('DELETE', `/workflows/${wf.id}/steps/${trigger}`);
    expect(errorOf(del)).toEqual(['stepId', 'trigger_step']);
    const t = after.transitions[0];
    expect((await req('DELETE', `/workflows/${wf.id}/transitions/${t.id}`)).status).toBe(204);
    expect((await req('DELETE', `/workflows/${wf.id}/transitions/${t.id}`)).status).toBe(404);
  });

  it('409 on trigger changes and deletes while executions are live; manual start rules', async () => {
    const wf = await newWorkflow();
    await addStep(wf.id, 'EXIT', {});
    const contact = await req('POST', '/contacts', { email: 'live@example.test' });
    // No transition from the trigger yet: the execution would complete at once. Add a DELAY so it stays.
    const delay = await addStep(wf.id, 'DELAY', { amount: 1, unit: 'days' });
    expect((await link(wf.id, wf.steps[0].id, delay)).status).toBe(201);

    const started = await req('POST', `/workflows/${wf.id}/executions`, {
      contactId: contact.body.id,
      context: { coupon: 'A1' },
    });
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({
      contactId: contact.body.id,
      contactEmail: 'live@example.test',
      status: 'RUNNING',
      currentStepId: delay,
      context: { coupon: 'A1' },
    });
    expect((await req('POST', `/workflows/${wf.id}/executions`, { contactId: contact.body.id })).status).toBe(409);
    expect(
      (await req('POST', `/workflows/${wf.id}/executions`, { contactId: '0190aaaa-0000-7000-8000-000000000000' }))
        .status,
    ).toBe(404);
    expect((await req('POST', `/workflows/${wf.id}/executions`, { contactId: 'x' })).status).toBe(404);

    expect((await req('PATCH', `/workflows/${wf.id}`, { triggerConfig: { eventName: 'other' } })).status).toBe(409);
    expect((await req('PATCH', `/workflows/${wf.id}`, { triggerType: 'MANUAL' })).status).toBe(409);
    expect((await req('PATCH', `/workflows/${wf.id}`, { name: 'Still fine', enabled: true })).status).toBe(200);
    expect((await req('DELETE', `/workflows/${wf.id}`)).status).toBe(409);
    expect((await req('DELETE', `/workflows/${wf.id}/steps/${delay}`)).status).toBe(409);

    const list = await req('GET', `/workflows/${wf.id}/executions?status=RUNNING`);
    expect(list.body).toMatchObject({ total: 1, hasMore: false });
    // Executions name their contact's address (the dashboard shows it instead of the id).
    expect(list.body.data[0]).toMatchObject({ contactId: contact.body.id, contactEmail: 'live@example.test' });
    expect((await req('GET', `/workflows/${wf.id}/executions?status=COMPLETED`)).body.total).toBe(0);
    expect((await req('GET', `/workflows/${wf.id}/executions?status=BOGUS`)).status).toBe(422);

    const cancelled = await req('POST', `/workflows/${wf.id}/executions/cancel-all`);
    expect(cancelled.body).toEqual({ cancelled: 1 });
    const detail = await req('GET', `/workflows/${wf.id}/executions/${started.body.id}`);
    expect(detail.body).toMatchObject({
      status: 'CANCELLED',
      completedAt: expect.any(String),
      contactEmail: 'live@example.test',
    });
    expect(detail.body.steps).toEqual([expect.objectContaining({ status: 'COMPLETED', stepId: wf.steps[0].id })]);
    expect((await req('DELETE', `/workflows/${wf.id}/executions/${started.body.id}`)).status).toBe(409);
    // allowReentry false: the contact entered once, so never again.
    expect((await req('POST', `/workflows/${wf.id}/executions`, { contactId: contact.body.id })).status).toBe(409);
    expect((await req('PATCH', `/workflows/${wf.id}`, { triggerType: 'MANUAL' })).status).toBe(200);
    expect((await req('DELETE', `/workflows/${wf.id}`)).status).toBe(204);
  });

  it('lets only one of several concurrent manual starts through (allowReentry true and false)', async () => {
    for (const allowReentry of [true, false]) {
      const wf = await newWorkflow({ allowReentry });
      const hold = await addStep(wf.id, 'DELAY', { amount: 1, unit: 'hours' });
      expect((await link(wf.id, wf.steps[0].id, hold)).status).toBe(201);
      const contact = await req('POST', '/contacts', { email: `race-${allowReentry}@example.test` });
      const results = await Promise.all(
        Array.from({ length: 6 }, () => req('POST', `/workflows/${wf.id}/executions`, { contactId: contact.body.id })),
      );
      expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
      expect(
        (await h.sql('select count(*)::int as n from workflow_executions where workflow_id = $1', [wf.id]))[0].n,
      ).toBe(1);
    }
  });

  it('documents every workflow route in the OpenAPI document', async () => {
    const doc = await h.request('GET', '/openapi.json');
    expect(doc.status).toBe(200);
    expect(Object.keys(doc.body.paths)).toEqual(
      expect.arrayContaining([
        '/workflows',
        '/workflows/fields',
        '/workflows/{id}',
        '/workflows/{id}/steps',
        '/workflows/{id}/steps/{stepId}',
        '/workflows/{id}/transitions',
        '/workflows/{id}/transitions/{transitionId}',
        '/workflows/{id}/executions',
        '/workflows/{id}/executions/{executionId}',
        '/workflows/{id}/executions/cancel-all',
        '/workflows/{id}/stats',
      ]),
    );
  });

  it('lists the fields a CONDITION can test', async () => {
    await req('POST', '/contacts', { email: 'fields@example.test', data: { plan: 'pro', seats: 3 } });
    const wf = await newWorkflow({ eventName: 'purchase' });
    await req('PATCH', `/workflows/${wf.id}`, { enabled: true });
    await h.request('POST', '/v1/track', {
      key: p.publicKey,
      body: { email: 'fields@example.test', event: 'purchase', data: { amount: { value: 5, persistent: false } } },
    });
    await h.sql(
      `insert into events (id, project_id, contact_id, name, data) select gen_random_uuid(), $1, id, 'purchase', '{"amount": 5}' from contacts where email = 'fields@example.test' and project_id = $1`,
      [p.id],
    );
    const res = await req('GET', '/workflows/fields');
    expect(res.status).toBe(200);
    const fields = res.body.fields.map((f: Json) => f.field);
    expect(fields).toEqual(
      expect.arrayContaining(['email', 'subscribed', 'data.plan', 'data.seats', 'event.data.amount']),
    );
    expect(res.body.fields.find((f: Json) => f.field === 'data.seats').type).toBe('number');
    expect(res.body.events).toContain('purchase');
  });
});
