import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditHelpers, tpl } from '../../test/audit-helpers.js';
import { createProject, createUser, createVerifiedUser, type TestProject } from '../../test/factories.js';
import { createHarness, type Harness, type Json } from '../../test/harness.js';

let h: Harness;
let verifiedProject: Helpers['verifiedProject'];
let as: Helpers['as'];
let call: Helpers['call'];
let entryCount: Helpers['entryCount'];
let added: Helpers['added'];
type Helpers = ReturnType<typeof auditHelpers>;
beforeAll(async () => {
  h = await createHarness({
    env: { WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true', TRANSPORT_ALLOW_PRIVATE_ADDRESSES: 'true' },
  });
  ({ verifiedProject, as, call, entryCount, added } = auditHelpers(h));
});
afterAll(async () => {
  await h.close();
});

const SMTP_PASSWORD = 'sm7p-pa55word-never-logged';
const HEADER_SECRET = 'crm-h3ader-never-logged';

const camp = { name: 'C', subject: 'S', body: '<p>b</p>', from: 'a@mail.example.test' };

interface Case {
  action: string;
  via: ('session' | 'key')[];
  /** Prepares what the action needs; answers the id of its target. */
  setup?: (p: TestProject, via: 'session' | 'key') => Promise<string>;
  act: (p: TestProject, via: 'session' | 'key', id: string) => Promise<unknown>;
  targetType: string;
  /** The expected target id (default: the setup's id, or `id` of the act's answer). */
  targetId?: (id: string, out: Json, p: TestProject) => string | null;
  changes?: Record<string, [unknown, unknown]>;
  /** Values that must never appear in the entry. */
  secrets?: (p: TestProject, out: Json) => string[];
}

const both: ('session' | 'key')[] = ['session', 'key'];
const cases: Case[] = [
  {
    action: 'template.create',
    via: both,
    act: (p, v) => call(p, v, 'POST', '/templates', tpl),
    targetType: 'template',
    changes: {
      name: [null, 'Welcome'],
      subject: [null, 'Hi'],
      from: [null, 'a@mail.example.test'],
      body: [null, '<p>Hi</p>'],
    },
  },
  {
    action: 'template.update',
    via: both,
    setup: async (p, v) => (await call(p, v, 'POST', '/templates', tpl)).id,
    act: (p, v, id) => call(p, v, 'PATCH', `/templates/${id}`, { name: 'Renamed' }),
    targetType: 'template',
    changes: { name: ['Welcome', 'Renamed'] },
  },
  {
    action: 'template.delete',
    via: both,
    setup: async (p, v) => (await call(p, v, 'POST', '/templates', tpl)).id,
    act: (p, v, id) => call(p, v, 'DELETE', `/templates/${id}`),
    targetType: 'template',
    changes: { name: ['Welcome', null] },
  },
  {
    action: 'campaign.create',
    via: both,
    act: async (p, v) =>
      (
        await call(p, v, 'POST', '/campaigns', {
          name: 'C',
          subject: 'S',
          body: '<p>b</p>',
          from: 'a@mail.example.test',
        })
      ).data,
    targetType: 'campaign',
  },
  {
    action: 'campaign.schedule',
    via: both,
    setup: async (p, v) =>
      (
        await call(p, v, 'POST', '/campaigns', {
          name: 'C',
          subject: 'S',
          body: '<p>b</p>',
          from: 'a@mail.example.test',
        })
      ).data.id,
    act: (p, v, id) =>
      call(p, v, 'POST', `/campaigns/${id}/send`, { scheduledFor: new Date(Date.now() + 86_400_000).toISOString() }),
    targetType: 'campaign',
  },
  {
    action: 'campaign.delete',
    via: ['key'],
    setup: async (p, v) =>
      (
        await call(p, v, 'POST', '/campaigns', {
          name: 'C',
          subject: 'S',
          body: '<p>b</p>',
          from: 'a@mail.example.test',
        })
      ).data.id,
    act: (p, v, id) => call(p, v, 'DELETE', `/campaigns/${id}`),
    targetType: 'campaign',
    changes: { name: ['C', null] },
  },
  {
    action: 'segment.create',
    via: both,
    act: (p, v) => call(p, v, 'POST', '/segments', { name: 'Static', type: 'STATIC' }),
    targetType: 'segment',
  },
  {
    action: 'segment.update',
    via: ['session'],
    setup: async (p, v) => (await call(p, v, 'POST', '/segments', { name: 'Static', type: 'STATIC' })).id,
    act: (p, v, id) => call(p, v, 'PATCH', `/segments/${id}`, { name: 'VIPs' }),
    targetType: 'segment',
    changes: { name: ['Static', 'VIPs'] },
  },
  {
    action: 'suppression.add',
    via: both,
    act: (p, v) => call(p, v, 'POST', '/suppressions', { emails: ['gone@example.test'] }),
    targetType: 'suppression',
    targetId: () => expect.stringMatching(/^addr_/) as unknown as string,
    changes: { added: [null, 1], reason: [null, 'manual'] },
    secrets: () => ['gone@example.test'],
  },
  {
    action: 'suppression.remove',
    via: ['key'],
    setup: async (p, v) => {
      await call(p, v, 'POST', '/suppressions', { emails: ['gone@example.test'] });
      return '';
    },
    act: (p, v) => call(p, v, 'DELETE', '/suppressions/gone%40example.test'),
    targetType: 'suppression',
    targetId: () => expect.stringMatching(/^addr_/) as unknown as string,
    secrets: () => ['gone@example.test'],
  },
  {
    action: 'transport.create',
    via: both,
    act: (p, v) =>
      call(p, v, 'POST', '/transports', {
        name: 'Relay',
        kind: 'smtp',
        settings: { url: `smtp://me:${SMTP_PASSWORD}@127.0.0.1:2525` },
      }),
    targetType: 'transport',
    secrets: () => [SMTP_PASSWORD],
  },
  {
    action: 'transport.update',
    via: ['session'],
    setup: async (p, v) =>
      (
        await call(p, v, 'POST', '/transports', {
          name: 'Relay',
          kind: 'smtp',
          settings: { url: 'smtp://me:old@127.0.0.1:2525' },
        })
      ).id,
    act: (p, v, id) =>
      call(p, v, 'PATCH', `/transports/${id}`, { settings: { url: `smtp://me:${SMTP_PASSWORD}@127.0.0.1:2525` } }),
    targetType: 'transport',
    changes: { credentials: ['[secret]', '[secret]'] },
    secrets: () => [SMTP_PASSWORD, 'old@'],
  },
  {
    action: 'webhook_endpoint.create',
    via: both,
    act: (p, v) => call(p, v, 'POST', '/webhook-endpoints', { url: 'http://127.0.0.1:9/hook', events: ['email.sent'] }),
    targetType: 'webhook_endpoint',
    secrets: (_p, out) => [out.secret],
  },
  {
    action: 'webhook_endpoint.rotate_secret',
    via: ['key'],
    setup: async (p, v) =>
      (await call(p, v, 'POST', '/webhook-endpoints', { url: 'http://127.0.0.1:9/hook', events: ['email.sent'] })).id,
    act: (p, v, id) => call(p, v, 'POST', `/webhook-endpoints/${id}/rotate-secret`),
    targetType: 'webhook_endpoint',
    changes: { secret: ['[secret]', '[secret]'] },
    secrets: (_p, out) => [out.secret],
  },
  {
    action: 'workflow.create',
    via: both,
    act: (p, v) => call(p, v, 'POST', '/workflows', { name: 'Onboarding', eventName: 'signup' }),
    targetType: 'workflow',
  },
  {
    action: 'workflow.delete',
    via: ['session'],
    setup: async (p, v) => (await call(p, v, 'POST', '/workflows', { name: 'Onboarding', eventName: 'signup' })).id,
    act: (p, v, id) => call(p, v, 'DELETE', `/workflows/${id}`),
    targetType: 'workflow',
    changes: { name: ['Onboarding', null] },
  },
  {
    action: 'project.update',
    via: ['session'],
    act: (p) => call(p, 'session', 'PATCH', `/users/@me/projects/${p.id}`, { name: 'Renamed project' }),
    targetType: 'project',
    targetId: (_id, _out, p) => p.id,
    changes: { name: ['Test project', 'Renamed project'] },
  },
  {
    action: 'project.regenerate_keys',
    via: ['session'],
    act: (p) => call(p, 'session', 'POST', `/users/@me/projects/${p.id}/regenerate-keys`),
    targetType: 'project',
    targetId: (_id, _out, p) => p.id,
    changes: { publicKey: ['[secret]', '[secret]'], secretKey: ['[secret]', '[secret]'] },
    secrets: (p, out) => [p.secretKey, p.publicKey, out.secret, out.public].filter(Boolean),
  },
  {
    action: 'campaign.update',
    via: ['session'],
    setup: async (p, v) => (await call(p, v, 'POST', '/campaigns', camp)).data.id,
    act: (p, v, id) => call(p, v, 'PUT', `/campaigns/${id}`, { ...camp, subject: 'New subject' }),
    targetType: 'campaign',
    changes: { subject: ['S', 'New subject'] },
  },
  {
    action: 'campaign.cancel',
    via: ['key'],
    setup: async (p, v) => {
      const id = (await call(p, v, 'POST', '/campaigns', camp)).data.id;
      await call(p, v, 'POST', `/campaigns/${id}/send`, {
        scheduledFor: new Date(Date.now() + 86_400_000).toISOString(),
      });
      return id;
    },
    act: (p, v, id) => call(p, v, 'POST', `/campaigns/${id}/cancel`),
    targetType: 'campaign',
    changes: { status: ['SCHEDULED', 'CANCELLED'] },
  },
  {
    action: 'segment.delete',
    via: ['key'],
    setup: async (p, v) => (await call(p, v, 'POST', '/segments', { name: 'Static', type: 'STATIC' })).id,
    act: (p, v, id) => call(p, v, 'DELETE', `/segments/${id}`),
    targetType: 'segment',
    changes: { name: ['Static', null] },
  },
  {
    action: 'domain.create',
    via: both,
    act: (p, v) => call(p, v, 'POST', '/domains', { domain: 'news.example.test' }),
    targetType: 'domain',
    changes: { domain: [null, 'news.example.test'] },
  },
  {
    action: 'domain.delete',
    via: ['session'],
    setup: async (p, v) => (await call(p, v, 'POST', '/domains', { domain: 'news.example.test' })).id,
    act: (p, v, id) => call(p, v, 'DELETE', `/domains/${id}`),
    targetType: 'domain',
    changes: { domain: ['news.example.test', null] },
  },
  {
    action: 'transport.delete',
    via: ['key'],
    setup: async (p, v) =>
      (
        await call(p, v, 'POST', '/transports', {
          name: 'Relay',
          kind: 'smtp',
          settings: { url: 'smtp://127.0.0.1:2525' },
        })
      ).id,
    act: (p, v, id) => call(p, v, 'DELETE', `/transports/${id}`),
    targetType: 'transport',
    changes: { name: ['Relay', null] },
  },
  {
    action: 'webhook_endpoint.update',
    via: ['session'],
    setup: async (p, v) =>
      (await call(p, v, 'POST', '/webhook-endpoints', { url: 'http://127.0.0.1:9/hook', events: ['email.sent'] })).id,
    act: (p, v, id) => call(p, v, 'PATCH', `/webhook-endpoints/${id}`, { enabled: false }),
    targetType: 'webhook_endpoint',
    changes: { enabled: [true, false] },
  },
  {
    action: 'webhook_endpoint.delete',
    via: ['key'],
    setup: async (p, v) =>
      (await call(p, v, 'POST', '/webhook-endpoints', { url: 'http://127.0.0.1:9/hook', events: ['email.sent'] })).id,
    act: (p, v, id) => call(p, v, 'DELETE', `/webhook-endpoints/${id}`),
    targetType: 'webhook_endpoint',
    changes: { url: ['http://127.0.0.1:9/hook', null] },
  },
  {
    action: 'workflow.update',
    via: ['key'],
    setup: async (p, v) => (await call(p, v, 'POST', '/workflows', { name: 'Onboarding', eventName: 'signup' })).id,
    act: (p, v, id) => call(p, v, 'PATCH', `/workflows/${id}`, { name: 'Welcome flow' }),
    targetType: 'workflow',
    changes: { name: ['Onboarding', 'Welcome flow'] },
  },
  {
    action: 'workflow.edit',
    via: both,
    setup: async (p, v) => (await call(p, v, 'POST', '/workflows', { name: 'Onboarding', eventName: 'signup' })).id,
    act: (p, v, id) =>
      call(p, v, 'POST', `/workflows/${id}/steps`, {
        type: 'WEBHOOK',
        name: 'Tell the CRM',
        config: { url: 'http://127.0.0.1:9/crm', method: 'POST', headers: { 'x-crm-auth': HEADER_SECRET } },
      }),
    targetType: 'workflow',
    targetId: (id) => id,
    secrets: () => [HEADER_SECRET],
  },
  {
    action: 'workflow.enable',
    via: both,
    setup: async (p, v) => (await call(p, v, 'POST', '/workflows', { name: 'Onboarding', eventName: 'signup' })).id,
    act: (p, v, id) => call(p, v, 'PATCH', `/workflows/${id}`, { enabled: true }),
    targetType: 'workflow',
    changes: { enabled: [false, true] },
  },
  {
    action: 'workflow.disable',
    via: ['key'],
    setup: async (p, v) => {
      const id = (await call(p, v, 'POST', '/workflows', { name: 'Onboarding', eventName: 'signup' })).id;
      await call(p, v, 'PATCH', `/workflows/${id}`, { enabled: true });
      return id;
    },
    act: (p, v, id) => call(p, v, 'PATCH', `/workflows/${id}`, { enabled: false }),
    targetType: 'workflow',
    changes: { enabled: [true, false] },
  },
  {
    action: 'topic.create',
    via: both,
    act: (p, v) => call(p, v, 'POST', '/topics', { name: 'News', default: 'opt-out' }),
    targetType: 'topic',
    changes: { name: [null, 'News'] },
  },
  {
    action: 'form.create',
    via: ['key'],
    act: (p, v) => call(p, v, 'POST', '/forms', { name: 'Sign up' }),
    targetType: 'form',
    changes: { name: [null, 'Sign up'] },
  },
  {
    action: 'email_style.update',
    via: ['key'],
    act: (p, v) => call(p, v, 'PUT', '/email-style', { buttonColor: '#ff0000' }),
    targetType: 'project',
    targetId: (_id, _out, p) => p.id,
  },
];

describe('each audited action leaves exactly one entry', () => {
  for (const c of cases) {
    for (const via of c.via) {
      it(`${c.action} through the ${via === 'key' ? 'secret key' : 'session'}`, async () => {
        const p = await verifiedProject();
        const id = c.setup ? await c.setup(p, via) : '';
        let out: Json;
        const rows = await added(p, async () => {
          out = await c.act(p, via, id);
        });
        expect(rows, JSON.stringify(rows)).toHaveLength(1);
        const [e] = rows;
        expect(e.action).toBe(c.action);
        expect(e.target_type).toBe(c.targetType);
        expect(e.target_id).toEqual(c.targetId ? c.targetId(id, out, p) : id || out?.id);
        if (via === 'session')
          expect(e).toMatchObject({ actor_type: 'user', actor_id: p.owner.id, actor_label: p.owner.email });
        else expect(e).toMatchObject({ actor_type: 'key', actor_id: null, actor_label: 'Secret key' });
        expect(e.ip).toBe('127.0.0.1');
        if (c.changes) expect(e.changes).toMatchObject(c.changes);
        const text = JSON.stringify(e);
        for (const s of c.secrets?.(p, out) ?? []) expect(text).not.toContain(s);
      });
    }
  }

  for (const [answer, status, reply] of [
    ['accept', 'accepted', 200],
    ['decline', 'declined', 204],
  ] as const) {
    it(`invitation.${answer}: recorded in the project, the invited user the actor`, async () => {
      const p = await createProject(h, await createVerifiedUser(h));
      const guest = await createUser(h);
      const invited = await h.request('POST', `/projects/${p.id}/members`, {
        cookie: p.owner.cookie,
        body: { email: guest.email, role: 'MEMBER' },
      });
      expect(invited.status, invited.text).toBe(202);
      await h.sql('update users set email_verified = true where id = $1', [guest.id]);
      const id = invited.body.invitationId as string;
      const rows = await added(p, async () => {
        const res = await h.request('POST', `/users/@me/invitations/${id}/${answer}`, { cookie: guest.cookie });
        expect(res.status, res.text).toBe(reply);
      });
      expect(rows).toMatchObject([
        {
          action: `invitation.${answer}`,
          target_id: id,
          actor_id: guest.id,
          actor_label: guest.email,
          changes: { status: ['pending', status] },
        },
      ]);
    });
  }

  it('a refused change leaves no entry', async () => {
    const p = await verifiedProject();
    const n = await entryCount(p);
    const res = await h.request('PATCH', `/templates/${randomUUID()}`, as(p, 'key', { name: 'x' }));
    expect(res.status).toBe(404);
    expect(await entryCount(p)).toBe(n);
  });

  it('members: added, role changed, removed; invitations created and revoked', async () => {
    const p = await createProject(h, await createVerifiedUser(h));
    const guest = await createVerifiedUser(h);
    const base = `/projects/${p.id}/members`;
    const s = { cookie: p.owner.cookie };
    let rows = await added(p, () => h.request('POST', base, { ...s, body: { email: guest.email, role: 'MEMBER' } }));
    expect(rows.map((r) => [r.action, r.target_id])).toEqual([['member.add', guest.id]]);
    rows = await added(p, () => h.request('PATCH', `${base}/${guest.id}`, { ...s, body: { role: 'ADMIN' } }));
    expect(rows).toMatchObject([{ action: 'member.update', changes: { role: ['MEMBER', 'ADMIN'] } }]);
    rows = await added(p, () => h.request('DELETE', `${base}/${guest.id}`, s));
    expect(rows).toMatchObject([
      { action: 'member.remove', target_id: guest.id, changes: { email: [guest.email, null] } },
    ]);
    let inv: Json;
    rows = await added(p, async () => {
      const res = await h.request('POST', base, { ...s, body: { email: 'newcomer@example.test', role: 'MEMBER' } });
      expect(res.status, res.text).toBe(202);
      inv = res.body;
    });
    expect(rows).toMatchObject([{ action: 'invitation.create', target_id: inv.invitationId }]);
    rows = await added(p, () => h.request('DELETE', `/projects/${p.id}/invitations/${inv.invitationId}`, s));
    expect(rows).toMatchObject([{ action: 'invitation.revoke', target_id: inv.invitationId }]);
  });
});
