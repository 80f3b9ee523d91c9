import { expect } from 'vitest';
import { clickToken, contactToken, openToken } from '../../src/emails/render/tokens.js';
import type { TestDnsServer } from '../dns-server.js';
import { createProject, createUser, createVerifiedUser, type TestProject, type TestUser } from '../factories.js';
import type { Harness } from '../harness.js';
import { createVerifiedDomain } from '../sending-fixtures.js';

/** A 1×1 PNG. */
export const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

/** The kinds of resource a path parameter can name. */
export type Kind =
  | 'project'
  | 'member'
  | 'contact'
  | 'template'
  | 'campaign'
  | 'segment'
  | 'staticSegment'
  | 'workflow'
  | 'step'
  | 'transition'
  | 'execution'
  | 'domain'
  | 'importJob'
  | 'bulkJob'
  | 'invitation'
  | 'webhookEndpoint'
  | 'webhookDelivery'
  | 'topic'
  | 'form'
  | 'transport'
  | 'email'
  | 'apiKey'
  | 'export'
  | 'passkey'
  | 'session';

/**
 * One project with one of everything, made through the API (a verified domain is inserted, as the
 * DNS check cannot pass here): the ids path parameters and bodies refer to.
 */
export interface World {
  project: TestProject;
  /** A second user, MEMBER of the project. */
  member: TestUser;
  /** A user who is not (yet) a member: the one to add. */
  guest: TestUser;
  /** A contact with no execution, a step with no transition: what a new execution or transition takes. */
  spare: { contact: string; step: string };
  ids: Record<Kind, string>;
  domain: string;
  eventName: string;
  emailId: string;
  /** `/uploads/:projectId/:file` of an uploaded image. */
  upload: { projectId: string; file: string };
  tokens: { open: string; click: string; contact: string };
}

/** Builds a {@link World}; `tag` keeps names unique between worlds. */
export async function buildWorld(h: Harness, dns: TestDnsServer, tag: string): Promise<World> {
  // A confirmed owner: only confirmed accounts send invitations.
  const project = await createProject(h, await createVerifiedUser(h), `Contract ${tag}`);
  const key = project.secretKey;
  const call = async (method: string, path: string, body?: unknown, status = 201) => {
    const res = await h.request(method, path, { key, body, raw: body instanceof FormData });
    expect(res.status, `${method} ${path}: ${res.text}`).toBe(status);
    return res.body;
  };
  const domain = await createVerifiedDomain(h, project.id, { dns });
  // Member management takes the owner's session, never a key; a verified user joins at once.
  const asOwner = async (method: string, path: string, body: unknown, status: number) => {
    const res = await h.request(method, path, { cookie: project.owner.cookie, body });
    expect(res.status, `${method} ${path}: ${res.text}`).toBe(status);
    return res.body;
  };
  const member = await createVerifiedUser(h);
  await asOwner('POST', `/projects/${project.id}/members`, { email: member.email, role: 'MEMBER' }, 201);
  const guest = await createUser(h);
  const apiKey = await asOwner(
    'POST',
    `/projects/${project.id}/api-keys`,
    { name: `Key ${tag}`, scopes: ['send'] },
    201,
  );
  const invitation = await asOwner(
    'POST',
    `/projects/${project.id}/members`,
    { email: `invitee-${tag}@example.test`, role: 'MEMBER' },
    202,
  );

  // Before the contacts, so that their contact.created events give the endpoint a delivery (no worker
  // runs here: it stays PENDING); a loopback URL, refused at once when called.
  const endpoint = await call('POST', '/webhook-endpoints', { url: 'http://127.0.0.1:9/hook', events: ['contact.*'] });
  const contact = await call('POST', '/contacts', { email: `c-${tag}@example.test`, data: { plan: 'pro', seats: 3 } });
  const delivery = (await call('GET', `/webhook-endpoints/${endpoint.id}/deliveries`, undefined, 200)).data[0];
  const spareContact = await call('POST', '/contacts', { email: `spare-${tag}@example.test` });
  const topic = await call('POST', '/topics', { name: `News ${tag}`, default: 'opt-out' });
  const form = await call('POST', '/forms', { name: `Signup ${tag}`, topics: [topic.id] });
  // A host that resolves to loopback: its test call is refused at once (private addresses are off).
  const transport = await call('POST', '/transports', {
    name: `Relay ${tag}`,
    kind: 'smtp',
    settings: { url: 'smtp://user:pass@localhost:2525' },
  });
  const template = await call('POST', '/templates', {
    name: `T ${tag}`,
    subject: 'Hi {{name}}',
    body: '<p>Hi <a href="https://example.com/x">x</a></p>',
    from: `hi@${domain.domain}`,
    type: 'TRANSACTIONAL',
  });
  const segment = await call('POST', '/segments', {
    name: `Pro ${tag}`,
    trackMembership: true,
    condition: { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }] },
  });
  const staticSegment = await call('POST', '/segments', { name: `List ${tag}`, type: 'STATIC' });
  await call('POST', `/segments/${staticSegment.id}/members`, { emails: [contact.email] }, 200);
  const campaign = await call('POST', '/campaigns', {
    name: `C ${tag}`,
    subject: 'News',
    body: '<p>News</p>',
    from: `hi@${domain.domain}`,
  });

  const eventName = `signup-${tag}`;
  const workflow = await call('POST', '/workflows', { name: `W ${tag}`, eventName });
  const trigger = workflow.steps[0].id;
  const step = await call('POST', `/workflows/${workflow.id}/steps`, {
    type: 'DELAY',
    name: 'Wait',
    config: { amount: 1, unit: 'days' },
  });
  const transition = await call('POST', `/workflows/${workflow.id}/transitions`, {
    fromStepId: trigger,
    toStepId: step.id,
  });
  const exit = await call('POST', `/workflows/${workflow.id}/steps`, { type: 'EXIT', name: 'Done', config: {} });
  const execution = await call('POST', `/workflows/${workflow.id}/executions`, {
    contactId: contact.id,
    context: { coupon: 'X' },
  });

  const tracked = await h.request('POST', '/v1/track', {
    key: project.publicKey,
    body: { email: contact.email, event: eventName, data: { source: 'ads' } },
  });
  expect(tracked.status).toBe(200);
  const sent = await h.request('POST', '/v1/send', { key, body: { to: contact.email, template: template.id } });
  expect(sent.status, sent.text).toBe(200);
  const emailId = sent.body.data.emails[0].email as string;

  const csv = new FormData();
  csv.append('file', new Blob(['email,plan\nimported@example.test,free\n'], { type: 'text/csv' }), 'contacts.csv');
  const importJob = await call('POST', '/contacts/import', csv, 202);
  const dataExport = await call('POST', '/exports', { kind: 'contacts', format: 'csv' }, 202);
  const bulkJob = await call('POST', '/contacts/bulk-subscribe', { contactIds: [contact.id] }, 202);
  const image = new FormData();
  image.append('file', new Blob([PNG], { type: 'image/png' }), 'pixel.png');
  const uploaded = await call('POST', '/uploads/image', image);
  // The owner's passkey (a row: the suite only needs its id) and a second session of theirs, so that
  // revoking it by id leaves the owner's cookie signed in.
  const passkeyId = crypto.randomUUID();
  await h.sql(
    "insert into passkeys (id, user_id, credential_id, public_key, name) values ($1, $2, $3, 'AA', 'Laptop')",
    [passkeyId, project.owner.id, `cred-${passkeyId}`],
  );
  await h.request('POST', '/auth/login', { body: { email: project.owner.email, password: project.owner.password } });
  const [otherSession] = await h.sql('select id from sessions where user_id = $1 order by created_at desc limit 1', [
    project.owner.id,
  ]);

  return {
    project,
    member,
    guest,
    spare: { contact: spareContact.id, step: exit.id },
    domain: domain.domain,
    eventName,
    emailId,
    ids: {
      project: project.id,
      member: member.id,
      contact: contact.id,
      template: template.id,
      campaign: campaign.data.id,
      segment: segment.id,
      staticSegment: staticSegment.id,
      workflow: workflow.id,
      step: step.id,
      transition: transition.id,
      execution: execution.id,
      domain: domain.id,
      importJob: importJob.jobId,
      bulkJob: bulkJob.jobId,
      invitation: invitation.invitationId,
      webhookEndpoint: endpoint.id,
      webhookDelivery: delivery.id,
      topic: topic.id,
      form: form.id,
      transport: transport.id,
      email: emailId,
      apiKey: apiKey.id,
      export: dataExport.id,
      passkey: passkeyId,
      session: otherSession.id,
    },
    upload: { projectId: project.id, file: new URL(uploaded.url).pathname.split('/').pop()! },
    tokens: {
      open: openToken(h.deps.secret, emailId),
      click: clickToken(h.deps.secret, emailId, 'https://example.com/x'),
      contact: contactToken(h.deps.secret, contact.id),
    },
  };
}
