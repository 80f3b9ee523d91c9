import type { RouteOptions } from 'fastify';
import type { AuthMode } from '../../src/http/auth.js';
import type { Kind, World } from './world.js';

/** One registered route, as the contract suite walks it. */
export interface Route {
  method: string;
  /** Fastify's path, e.g. `/workflows/:id/steps/:stepId`. */
  url: string;
  auth: AuthMode;
  params: string[];
  hasBody: boolean;
  options: RouteOptions;
}

/**
 * Every route the app registered (test/harness.ts records them with an onRoute hook), one entry per
 * method, without Fastify's HEAD twins and the docs page's static assets. New routes are covered by
 * construction: nothing here lists them.
 */
export function routesOf(registered: RouteOptions[]): Route[] {
  const out: Route[] = [];
  for (const r of registered) {
    if (r.url.startsWith('/docs')) continue;
    for (const method of Array.isArray(r.method) ? r.method : [r.method]) {
      if (method === 'HEAD') continue;
      out.push({
        method,
        url: r.url,
        options: r,
        auth: (r.config as { auth?: AuthMode } | undefined)?.auth ?? 'dashboard',
        params: [...r.url.matchAll(/:(\w+)|\*/g)].map((m) => m[1] ?? '*'),
        hasBody: Boolean(r.schema?.body),
      });
    }
  }
  return out;
}

export const routeName = (r: Pick<Route, 'method' | 'url'>) => `${r.method} ${r.url}`;

/**
 * What each id path parameter names, by the path it is in. A new id parameter that matches none of
 * these fails the suite (`kindOf`), so that its cross-project check is written, not skipped.
 */
const ID_PARAMS: Array<[RegExp, Record<string, Kind>]> = [
  [/^\/contacts\/import\//, { jobId: 'importJob' }],
  [/^\/contacts\/bulk\//, { jobId: 'bulkJob' }],
  [/^\/contacts\//, { id: 'contact' }],
  [/^\/templates\//, { id: 'template' }],
  [/^\/campaigns\//, { id: 'campaign' }],
  [/^\/segments\/:id\/members/, { id: 'staticSegment' }],
  [/^\/segments\//, { id: 'segment' }],
  [/^\/workflows\//, { id: 'workflow', stepId: 'step', transitionId: 'transition', executionId: 'execution' }],
  [/^\/events\/contact\//, { contactId: 'contact' }],
  [/^\/domains\/project\//, { projectId: 'project' }],
  [/^\/domains\//, { id: 'domain' }],
  [/^\/(users\/@me\/)?projects\//, { id: 'project', userId: 'member', invitationId: 'invitation', keyId: 'apiKey' }],
  [/^\/users\/@me\/invitations\//, { invitationId: 'invitation' }],
  [/^\/users\/@me\/passkeys\//, { id: 'passkey' }],
  [/^\/users\/@me\/sessions\//, { id: 'session' }],
  [/^\/webhook-endpoints\//, { id: 'webhookEndpoint', deliveryId: 'webhookDelivery' }],
  [/^\/topics\//, { id: 'topic' }],
  [/^\/forms\//, { id: 'form' }],
  [/^\/transports\//, { id: 'transport' }],
  [/^\/emails\//, { id: 'email' }],
  [/^\/exports\//, { id: 'export' }],
];

/**
 * Parameters that are not ids of a project's resource: names, tokens and public file paths. Their
 * values come from the world; another project's value of them is not a secret (public image URLs)
 * or proves nothing (an event name, a field name).
 */
const OTHER_PARAMS: Record<string, (w: World, r: Route) => string> = {
  field: () => 'plan',
  eventName: (w) => w.eventName,
  token: (w, r) => (r.url.startsWith('/t/o/') ? w.tokens.open : w.tokens.contact),
  '*': (w) => w.tokens.click,
  provider: () => 'stripe',
  projectId: (w) => w.upload.projectId,
  file: (w) => w.upload.file,
  // The invitation mail's link: a redirect to the dashboard page, the same for any value.
  invitationLink: () => '00000000-0000-4000-8000-000000000000',
  // A suppressed address: another project's list is looked up by (project, email), never across.
  email: () => 'suppressed@example.test',
  // A hosted form's public pages: anyone may post to any form.
  formId: (w) => w.ids.form,
  // A starter template of the gallery: Pigeon's own, the same for every project.
  key: () => 'welcome',
};

/** A well-formed WebAuthn response that verifies against nothing. */
const NO_WEBAUTHN = {
  id: 'AAAA',
  rawId: 'AAAA',
  type: 'public-key',
  response: { clientDataJSON: 'e30' },
  clientExtensionResults: {},
};

/** The resource kind of an id parameter, or null for the parameters of {@link OTHER_PARAMS}. */
export function kindOf(r: Route, param: string): Kind | null {
  const rule = ID_PARAMS.find(([re, kinds]) => re.test(r.url) && kinds[param]);
  if (rule) return rule[1][param];
  if (OTHER_PARAMS[param]) return null;
  throw new Error(
    `The contract suite does not know what :${param} of ${routeName(r)} names: add it to ID_PARAMS or OTHER_PARAMS (test/contracts/routes.ts)`,
  );
}

/** The route's path with `values` (by parameter), the world's own ids elsewhere. */
export function pathOf(r: Route, w: World, values: Record<string, string> = {}): string {
  return r.url.replace(/:(\w+)|\*/g, (_m, name: string | undefined) => {
    const p = name ?? '*';
    // Every byte encoded: a given value may hold '/', NUL or an unpaired surrogate (U+FFFD in UTF-8).
    if (values[p] !== undefined)
      return [...Buffer.from(values[p], 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
    const kind = kindOf(r, p);
    return encodeURIComponent(kind ? w.ids[kind] : OTHER_PARAMS[p](w, r));
  });
}

/**
 * A body each route accepts for the world `w`: the base the fuzzer mutates, and the body of the
 * cross-project checks (a route validates its body before it looks up its ids). Routes without an
 * entry get `{}`.
 */
export function exampleBody(r: Route, w: World): unknown {
  const from = `hi@${w.domain}`;
  const bodies: Record<string, unknown> = {
    'POST /auth/signup': { email: `fuzz-${Math.floor(Math.random() * 1e9)}@example.test`, password: 'a long password' },
    'POST /auth/login': { email: w.project.owner.email, password: w.project.owner.password },
    'POST /auth/verify-email': { token: 'not-a-token' },
    'POST /auth/request-password-reset': { email: w.project.owner.email },
    'POST /auth/reset-password': { token: 'not-a-token', password: 'another long password' },
    'POST /users/@me/projects': { name: 'Fuzzed' },
    'PATCH /users/@me/projects/:id': { name: 'Renamed', tracking: 'ENABLED' },
    'PATCH /projects/:id': { timeZone: 'Europe/Paris', retention: { eventsDays: 365 } },
    'POST /auth/login/verify': { token: 'not-a-token', code: '123456' },
    'POST /auth/passkey': { token: 'not-a-token', response: NO_WEBAUTHN },
    'POST /users/@me/totp/confirm': { code: '123456' },
    'DELETE /users/@me/totp': { code: '123456' },
    'POST /users/@me/recovery-codes': { code: '123456' },
    'POST /users/@me/passkeys': { name: 'Laptop', response: NO_WEBAUTHN },
    'PATCH /users/@me/passkeys/:id': { name: 'Phone' },
    'POST /suppressions': { emails: ['suppressed@example.test'], reason: 'manual' },
    'POST /exports': { kind: 'events', format: 'jsonl', filter: { name: 'fuzzed', from: '2020-01-01T00:00:00Z' } },
    // Not the contact's address: the world's contact is not erased (422), another project's is 404 first.
    'POST /contacts/:id/erase': { confirm: 'not-the-address@example.test' },
    'PUT /users/@me/projects/:id/billing-limits': { transactional: 1000, campaigns: null, workflows: 50 },
    'POST /projects/:id/members': { email: w.guest.email, role: 'MEMBER' },
    'PATCH /projects/:id/members/:userId': { role: 'ADMIN' },
    'POST /projects/:id/api-keys': { name: 'Fuzzed', scopes: ['send', 'contacts:read'], allowedIps: ['10.0.0.0/8'] },
    'POST /v1/send': {
      to: ['a@example.test', { name: 'B', email: 'b@example.test' }],
      from,
      subject: 'Hi',
      body: '<p>Hi</p>',
      data: { plan: 'pro' },
    },
    'POST /v1/track': { email: 'track@example.test', event: 'fuzzed', data: { plan: 'pro' } },
    'POST /events/track': { email: 'track@example.test', event: 'fuzzed', data: { plan: 'pro' } },
    'POST /v1/verify': { email: 'someone@example.test' },
    'POST /contacts': { email: 'new@example.test', subscribed: true, data: { plan: 'free' } },
    'PATCH /contacts/:id': { subscribed: false, data: { plan: 'team', seats: null } },
    'POST /contacts/lookup': { emails: ['a@example.test', 'B@example.test'] },
    'POST /contacts/bulk-subscribe': { contactIds: [w.ids.contact] },
    'POST /contacts/bulk-unsubscribe': { contactIds: [w.ids.contact] },
    'POST /contacts/bulk-delete': { contactIds: [w.ids.contact] },
    'POST /templates': { name: 'T', subject: 'S', body: '<p>B</p>', from },
    'PATCH /templates/:id': { subject: 'New subject', fromName: 'Pigeon' },
    'PUT /email-style': { brandColor: '#0f766e', fontFamily: 'Georgia, Times, serif', width: 640 },
    'POST /campaigns': {
      name: 'C',
      subject: 'S',
      body: '<p>B</p>',
      from,
      audienceType: 'SEGMENT',
      segmentId: w.ids.segment,
      delivery: {
        mode: 'local-time',
        localTime: '09:00',
        window: { from: '08:00', to: '18:00', days: ['mon', 'tue', 'wed', 'thu', 'fri'] },
      },
    },
    'PUT /campaigns/:id': {
      name: 'C2',
      subject: 'S2',
      body: '<p>B2</p>',
      from,
      delivery: { mode: 'spread', spreadHours: 6 },
    },
    'POST /campaigns/:id/send': { scheduledFor: '2099-01-01T00:00:00Z' },
    'POST /campaigns/:id/test': { email: 'tester@example.test' },
    'POST /campaigns/:id/winner': { key: 'A' },
    'POST /segments': {
      name: 'S',
      condition: { logic: 'OR', groups: [{ filters: [{ field: 'data.seats', operator: 'greaterThan', value: 2 }] }] },
    },
    'PATCH /segments/:id': { name: 'S2', trackMembership: false },
    'POST /webhook-endpoints': {
      url: 'https://example.com/hook',
      events: ['email.delivered', 'contact.*'],
      description: 'd',
    },
    'PATCH /webhook-endpoints/:id': { events: ['*'], enabled: true },
    'POST /transports': {
      name: `Relay ${Math.floor(Math.random() * 1e9)}`,
      kind: 'smtp',
      settings: { url: 'smtp://user:pass@smtp.example.com:587' },
      maxPerSecond: 10,
    },
    'PATCH /transports/:id': { maxConnections: 3, enabled: true },
    'PUT /transports/rules': { rules: [{ match: { stream: 'marketing' }, transports: [w.ids.transport, 'default'] }] },
    'POST /topics': { name: `Topic ${Math.floor(Math.random() * 1e9)}`, default: 'opt-in', description: 'd' },
    'PATCH /topics/:id': { description: 'About releases', public: false },
    'PUT /contacts/:id/topics': { topics: { [w.ids.topic]: false } },
    'POST /forms': {
      name: 'Signup',
      topics: [w.ids.topic],
      fields: [
        { key: 'email', label: 'Email', type: 'email', required: true },
        { key: 'plan', label: 'Plan', type: 'select', options: ['free', 'pro'] },
      ],
      redirectUrl: 'https://example.com/thanks',
    },
    'PATCH /forms/:id': { name: 'Renamed', successMessage: 'Welcome', topics: [] },
    'POST /f/:formId': { email: 'signup@example.test', plan: 'pro' },
    'POST /segments/:id/members': { emails: ['member@example.test'], createMissing: true },
    'DELETE /segments/:id/members': { emails: ['member@example.test'] },
    'POST /domains': { domain: `new-${Math.floor(Math.random() * 1e9)}.example.test` },
    'POST /workflows': { name: 'W', eventName: 'fuzzed', allowReentry: true },
    'PATCH /workflows/:id': { name: 'W2', description: 'd' },
    'POST /workflows/:id/steps': { type: 'SEND_EMAIL', name: 'Mail', config: { templateId: w.ids.template } },
    'PATCH /workflows/:id/steps/:stepId': { name: 'Wait more', config: { amount: 2, unit: 'hours' } },
    'POST /workflows/:id/transitions': { fromStepId: w.ids.step, toStepId: w.spare.step },
    'POST /workflows/:id/executions': { contactId: w.spare.contact, context: { coupon: 'Y' } },
  };
  return bodies[routeName(r)] ?? (r.hasBody ? {} : undefined);
}

/** More valid bodies of some routes, each exercising other rules (operators, step types, options): fuzzing bases. */
export function moreBodies(r: Route, w: World): unknown[] {
  const from = `hi@${w.domain}`;
  const tree = (...filters: unknown[]) => ({
    logic: 'AND',
    groups: [
      {
        filters,
        conditions: { logic: 'OR', groups: [{ filters: [{ field: 'subscribed', operator: 'equals', value: true }] }] },
      },
    ],
  });
  const conditions = [
    tree(
      { field: 'createdAt', operator: 'within', value: 30, unit: 'days' },
      { field: 'data.plan', operator: 'contains', value: 'pr' },
    ),
    tree(
      { field: `event.${w.eventName}`, operator: 'triggeredWithin', value: 7, unit: 'days' },
      { field: 'email.opened', operator: 'exists' },
    ),
    tree(
      { field: `segment.${w.ids.staticSegment}`, operator: 'memberOfSegment' },
      { field: 'data.seats', operator: 'lessThanOrEqual', value: 10 },
    ),
    tree(
      { field: 'updatedAt', operator: 'olderThan', value: 2, unit: 'hours' },
      { field: `event.${w.eventName}`, operator: 'notTriggered' },
    ),
  ];
  const bodies: Record<string, unknown[]> = {
    'POST /segments': conditions.map((condition, i) => ({
      name: `S${i}`,
      description: 'd',
      condition,
      trackMembership: i % 2 === 0,
    })),
    'PATCH /segments/:id': conditions.map((condition) => ({ condition })),
    'POST /campaigns': conditions.map((audienceCondition) => ({
      name: 'C',
      subject: 'S',
      body: 'B',
      from,
      audienceType: 'FILTERED',
      audienceCondition,
      type: 'MARKETING',
    })),
    'POST /workflows/:id/steps': [
      { type: 'WAIT_FOR_EVENT', name: 'Wait', config: { eventName: 'paid', timeout: 3600 } },
      { type: 'CONDITION', name: 'If', config: { field: 'data.plan', operator: 'equals', value: 'pro' } },
      {
        type: 'WEBHOOK',
        name: 'Hook',
        config: { url: 'https://example.com/hook', method: 'POST', headers: { 'x-a': 'b' }, body: { x: 1 } },
      },
      {
        type: 'UPDATE_CONTACT',
        name: 'Tag',
        config: { updates: { vip: true, plan: null }, subscriptionAction: 'unsubscribe' },
      },
      {
        type: 'SEND_EMAIL',
        name: 'Mail',
        config: { templateId: w.ids.template, recipient: { type: 'CUSTOM', email: 'ops@example.test' } },
      },
      { type: 'DELAY', name: 'Later', config: { amount: 3, unit: 'minutes' } },
      { type: 'EXIT', name: 'Out', config: { reason: 'done' } },
    ],
    'POST /v1/send': [
      {
        to: 'x@example.test',
        template: w.ids.template,
        data: { name: 'X', once: { value: 'v', persistent: false } },
        headers: { 'X-Tag': 'a' },
        reply: from,
        subscribed: true,
      },
      {
        to: { name: 'N', email: 'n@example.test' },
        from: { name: 'Me', email: from },
        subject: 'S',
        body: 'B',
        attachments: [{ filename: 'a.txt', content: 'aGVsbG8=', contentType: 'text/plain' }],
      },
    ],
    'POST /v1/track': [
      {
        email: 't@example.test',
        event: 'paid',
        subscribed: false,
        data: { amount: 5, meta: { a: 1 }, once: { value: 1, persistent: false } },
      },
    ],
    'POST /workflows/:id/executions': [{ contactId: w.spare.contact, context: { nested: { a: [1, 2] } } }],
    'POST /transports': [
      { name: 'SES', kind: 'ses', settings: { region: 'eu-west-1', accessKeyId: 'AKIA', secretAccessKey: 's' } },
    ],
    'PATCH /transports/:id': [{ settings: { url: 'smtp://localhost:2526' }, clearCredentials: true }],
    'PUT /transports/rules': [
      { rules: [{ match: { fromDomain: 'example.com', toDomain: 'gmail.com' }, transports: ['default'] }] },
    ],
    'PATCH /workflows/:id': [
      { triggerType: 'MANUAL', enabled: true, allowReentry: true, triggerConfig: { eventName: 'x' } },
    ],
  };
  return bodies[routeName(r)] ?? [];
}

/**
 * Ids inside bodies: each case puts another project's id where the route expects one of its own.
 * Such a body must be answered exactly as the same body with an id that exists nowhere (so nothing
 * tells another project's ids from unknown ones), and never with a success that used the id. Where
 * the route treats the id as a field of what it stores (a campaign's segment, a step's template, a
 * transition's steps, a segment condition), that answer is the 422 of an unknown reference
 * (existing tests); where it names the thing to act on, 404; bulk jobs are queued (202) and their
 * job reports the id as not found.
 */
export function bodyIdCases(): Array<{
  route: string;
  kind: Kind;
  statuses: number[];
  body: (own: World, id: string) => unknown;
}> {
  return [
    {
      route: 'POST /v1/send',
      kind: 'template',
      statuses: [404],
      body: (_x, t) => ({ to: 'x@example.test', template: t }),
    },
    {
      route: 'POST /campaigns',
      kind: 'segment',
      statuses: [422],
      body: (x, s) => ({
        name: 'C',
        subject: 'S',
        body: 'B',
        from: `hi@${x.domain}`,
        audienceType: 'SEGMENT',
        segmentId: s,
      }),
    },
    {
      route: 'PUT /campaigns/:id',
      kind: 'segment',
      statuses: [422],
      body: (x, s) => ({
        name: 'C',
        subject: 'S',
        body: 'B',
        from: `hi@${x.domain}`,
        audienceType: 'SEGMENT',
        segmentId: s,
      }),
    },
    {
      route: 'POST /segments',
      kind: 'segment',
      statuses: [422],
      body: (_x, s) => ({
        name: 'S',
        condition: { logic: 'AND', groups: [{ filters: [{ field: `segment.${s}`, operator: 'memberOfSegment' }] }] },
      }),
    },
    {
      route: 'POST /workflows/:id/steps',
      kind: 'template',
      statuses: [422],
      body: (_x, t) => ({ type: 'SEND_EMAIL', name: 'Mail', config: { templateId: t } }),
    },
    {
      route: 'POST /workflows/:id/transitions',
      kind: 'step',
      statuses: [404, 422],
      body: (x, s) => ({ fromStepId: x.ids.step, toStepId: s }),
    },
    { route: 'POST /workflows/:id/executions', kind: 'contact', statuses: [404], body: (_x, c) => ({ contactId: c }) },
    { route: 'POST /forms', kind: 'topic', statuses: [422], body: (_x, t) => ({ name: 'F', topics: [t] }) },
    {
      route: 'POST /forms',
      kind: 'template',
      statuses: [422],
      body: (_x, t) => ({ name: 'F', confirmationTemplateId: t }),
    },
    {
      route: 'PUT /transports/rules',
      kind: 'transport',
      statuses: [422],
      body: (_x, t) => ({ rules: [{ match: {}, transports: ['default', t] }] }),
    },
    { route: 'POST /contacts/bulk-delete', kind: 'contact', statuses: [202], body: (_x, c) => ({ contactIds: [c] }) },
  ];
}
