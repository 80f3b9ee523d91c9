import { sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { compileCondition, compileStaged } from './compile.js';
import { contactMatches, countMatching, matchingContacts, segmentAudience } from './match.js';
import { addContact, addEvent, matching, one } from '../../test/segments-helpers.js';

const NOW = new Date('2025-06-15T12:00:00.000Z');
const DAY = 86_400_000;
const ago = (ms: number) => new Date(NOW.getTime() - ms);

describe('condition compiler', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(async () => h.close());

  const m = (projectId: string, tree: unknown) => matching(h, projectId, tree, { now: NOW });
  const rejects = (projectId: string, tree: unknown) =>
    compileCondition(tree, { db: h.deps.db, projectId, now: NOW }).then(
      () => null,
      (e) => e,
    );

  it('data equals / notEquals: text-form equality, numbers and booleans, missing keys', async () => {
    const { id: p } = await createProject(h);
    await addContact(h, p, 'a@x.test', { plan: 'pro', n: 42, flag: true, nested: { tier: 'gold' } });
    await addContact(h, p, 'b@x.test', { plan: 'free', n: '42', flag: 'true' });
    await addContact(h, p, 'c@x.test', { plan: 'PRO', n: ' 42.0 ', flag: false });
    await addContact(h, p, 'd@x.test', {});
    expect(await m(p, one('data.plan', 'equals', 'pro'))).toEqual(['a@x.test']);
    // A number value compares numerically with numbers and with strings that look like numbers.
    expect(await m(p, one('data.n', 'equals', 42))).toEqual(['a@x.test', 'b@x.test', 'c@x.test']);
    expect(await m(p, one('data.n', 'equals', '42'))).toEqual(['a@x.test', 'b@x.test', 'c@x.test']);
    expect(await m(p, one('data.flag', 'equals', true))).toEqual(['a@x.test', 'b@x.test']);
    expect(await m(p, one('data.flag', 'equals', 'false'))).toEqual(['c@x.test']);
    expect(await m(p, one('data.nested.tier', 'equals', 'gold'))).toEqual(['a@x.test']);
    // notEquals includes contacts without the key.
    expect(await m(p, one('data.plan', 'notEquals', 'pro'))).toEqual(['b@x.test', 'c@x.test', 'd@x.test']);
  });

  it('data contains / notContains are case-insensitive; exists / notExists treat JSON null as missing', async () => {
    const { id: p } = await createProject(h);
    await addContact(h, p, 'a@x.test', { city: 'Amsterdam' });
    await addContact(h, p, 'b@x.test', { city: 'Rotterdam' });
    await addContact(h, p, 'c@x.test', { city: null });
    await addContact(h, p, 'd@x.test', { other: 1 });
    expect(await m(p, one('data.city', 'contains', 'AMSTER'))).toEqual(['a@x.test']);
    expect(await m(p, one('data.city', 'contains', '%'))).toEqual([]);
    expect(await m(p, one('data.city', 'notContains', 'dam'))).toEqual(['c@x.test', 'd@x.test']);
    expect(await m(p, one('data.city', 'exists'))).toEqual(['a@x.test', 'b@x.test']);
    expect(await m(p, one('data.city', 'notExists'))).toEqual(['c@x.test', 'd@x.test']);
  });

  it('data ordering: numbers, strings that look like numbers, junk never matches and never fails', async () => {
    const { id: p } = await createProject(h);
    await addContact(h, p, 'a@x.test', { age: 42 });
    await addContact(h, p, 'b@x.test', { age: '50' });
    await addContact(h, p, 'c@x.test', { age: 'fifty' });
    await addContact(h, p, 'd@x.test', { age: '1e99999' });
    await addContact(h, p, 'e@x.test', { age: 30 });
    await addContact(h, p, 'f@x.test', {});
    // Up to 1,000 characters a numeric string is a number however many digits it has; longer text
    // is not (a cast of it could overflow `numeric`), and never fails the query.
    await addContact(h, p, 'g@x.test', { age: ` ${'9'.repeat(300)}.5 ` });
    await addContact(h, p, 'h@x.test', { age: '9'.repeat(1001) });
    expect(await m(p, one('data.age', 'greaterThan', 40))).toEqual(['a@x.test', 'b@x.test', 'g@x.test']);
    expect(await m(p, one('data.age', 'greaterThan', '1e299'))).toEqual(['g@x.test']);
    expect(await m(p, one('data.age', 'lessThan', 31))).toEqual(['e@x.test']);
    expect(await m(p, one('data.age', 'notEquals', 42))).toEqual([
      'b@x.test',
      'c@x.test',
      'd@x.test',
      'e@x.test',
      'f@x.test',
      'g@x.test',
      'h@x.test',
    ]);
    expect(await m(p, one('data.age', 'greaterThan', '40'))).toEqual(['a@x.test', 'b@x.test', 'g@x.test']);
    expect(await m(p, one('data.age', 'greaterThanOrEqual', 42))).toEqual(['a@x.test', 'b@x.test', 'g@x.test']);
    expect(await m(p, one('data.age', 'lessThan', 42))).toEqual(['e@x.test']);
    expect(await m(p, one('data.age', 'lessThanOrEqual', 42.0))).toEqual(['a@x.test', 'e@x.test']);
  });

  it('data dates: ISO strings, date-only values as whole UTC days, offsets, within / olderThan', async () => {
    const { id: p } = await createProject(h);
    await addContact(h, p, 'a@x.test', { since: '2024-05-01' });
    await addContact(h, p, 'b@x.test', { since: '2024-05-01T10:00:00Z' });
    await addContact(h, p, 'c@x.test', { since: '2024-05-01T23:30:00-02:00' }); // 2024-05-02T01:30Z
    await addContact(h, p, 'd@x.test', { since: '2024-02-31' }); // no such day: never matches, never fails
    await addContact(h, p, 'e@x.test', { since: 'yesterday' });
    await addContact(h, p, 'f@x.test', { since: ago(2 * DAY).toISOString() });
    await addContact(h, p, 'g@x.test', {
      since: ago(10 * DAY)
        .toISOString()
        .slice(0, 10),
    });
    expect(await m(p, one('data.since', 'equals', '2024-05-01'))).toEqual(['a@x.test', 'b@x.test']);
    expect(await m(p, one('data.since', 'greaterThan', '2024-05-01'))).toEqual(['c@x.test', 'f@x.test', 'g@x.test']);
    expect(await m(p, one('data.since', 'lessThanOrEqual', '2024-05-01'))).toEqual(['a@x.test', 'b@x.test']);
    expect(await m(p, one('data.since', 'lessThan', '2024-05-01T10:00:00Z'))).toEqual(['a@x.test']);
    expect(await m(p, one('data.since', 'within', 7, 'days'))).toEqual(['f@x.test']);
    expect(await m(p, one('data.since', 'olderThan', 7, 'days'))).toEqual([
      'a@x.test',
      'b@x.test',
      'c@x.test',
      'g@x.test',
    ]);
    expect(await m(p, one('data.since', 'within', 49, 'hours'))).toEqual(['f@x.test']);
    expect(await m(p, one('data.since', 'within', 47 * 60, 'minutes'))).toEqual([]);
  });

  it('contact fields: email, subscribed, createdAt / updatedAt', async () => {
    const { id: p } = await createProject(h);
    await addContact(h, p, 'ann@shop.test', {}, { subscribed: true, createdAt: ago(1 * DAY) });
    await addContact(
      h,
      p,
      'bob@mail.test',
      {},
      { subscribed: false, createdAt: new Date('2024-05-01T08:00:00Z'), updatedAt: ago(60_000) },
    );
    expect(await m(p, one('email', 'equals', '  ANN@shop.test'))).toEqual(['ann@shop.test']);
    expect(await m(p, one('email', 'notEquals', 'ann@shop.test'))).toEqual(['bob@mail.test']);
    expect(await m(p, one('email', 'contains', 'SHOP'))).toEqual(['ann@shop.test']);
    expect(await m(p, one('email', 'notContains', 'shop'))).toEqual(['bob@mail.test']);
    expect(await m(p, one('subscribed', 'equals', false))).toEqual(['bob@mail.test']);
    expect(await m(p, one('subscribed', 'notEquals', false))).toEqual(['ann@shop.test']);
    expect(await m(p, one('createdAt', 'within', 2, 'days'))).toEqual(['ann@shop.test']);
    expect(await m(p, one('createdAt', 'olderThan', 2, 'days'))).toEqual(['bob@mail.test']);
    expect(await m(p, one('createdAt', 'equals', '2024-05-01'))).toEqual(['bob@mail.test']);
    expect(await m(p, one('createdAt', 'notEquals', '2024-05-01'))).toEqual(['ann@shop.test']);
    expect(await m(p, one('createdAt', 'greaterThan', '2024-05-01'))).toEqual(['ann@shop.test']);
    expect(await m(p, one('createdAt', 'lessThan', '2024-05-02'))).toEqual(['bob@mail.test']);
    expect(await m(p, one('updatedAt', 'within', 5, 'minutes'))).toEqual(['bob@mail.test']);
    expect(await m(p, one('createdAt', 'lessThan', Date.parse('2024-05-02T00:00:00Z')))).toEqual(['bob@mail.test']);
    expect((await rejects(p, one('createdAt', 'lessThan', 1e20))).errors[0]).toMatchObject({
      field: 'condition.groups.0.filters.0.value',
      code: 'invalid_type',
    });
  });

  it('events: triggered, notTriggered, windows; notTriggeredWithin includes contacts that never had the event', async () => {
    const { id: p } = await createProject(h);
    const recent = await addContact(h, p, 'recent@x.test');
    const old = await addContact(h, p, 'old@x.test');
    await addContact(h, p, 'never@x.test');
    const other = await addContact(h, p, 'other@x.test');
    await addEvent(h, p, recent, 'purchase', ago(2 * DAY));
    await addEvent(h, p, recent, 'purchase', ago(40 * DAY));
    await addEvent(h, p, old, 'purchase', ago(40 * DAY));
    await addEvent(h, p, other, 'signup', ago(1 * DAY));
    expect(await m(p, one('event.purchase', 'triggered'))).toEqual(['old@x.test', 'recent@x.test']);
    expect(await m(p, one('event.purchase', 'notTriggered'))).toEqual(['never@x.test', 'other@x.test']);
    expect(await m(p, one('event.purchase', 'triggeredWithin', 30, 'days'))).toEqual(['recent@x.test']);
    expect(await m(p, one('event.purchase', 'triggeredOlderThan', 30, 'days'))).toEqual(['old@x.test']);
    expect(await m(p, one('event.purchase', 'notTriggeredWithin', 30, 'days'))).toEqual([
      'never@x.test',
      'old@x.test',
      'other@x.test',
    ]);
    expect(await m(p, one('event.purchase', 'triggeredWithin', 3, 'hours'))).toEqual([]);
  });

  it('email activity: email.<kind> over the contact emails timestamps', async () => {
    const { id: p } = await createProject(h);
    const a = await addContact(h, p, 'a@x.test');
    await addContact(h, p, 'b@x.test');
    await h.sql(
      `insert into emails (id, project_id, contact_id, to_email, from_email, subject, body, source_type, status, sent_at, opened_at)
      values (gen_random_uuid(), $1, $2, 'a@x.test', 'f@x.test', 's', 'b', 'TRANSACTIONAL', 'OPENED', $3, $4)`,
      [p, a, ago(3 * DAY), ago(2 * DAY)],
    );
    expect(await m(p, one('email.opened', 'triggered'))).toEqual(['a@x.test']);
    expect(await m(p, one('email.open', 'triggeredWithin', 1, 'days'))).toEqual([]);
    expect(await m(p, one('email.opened', 'triggeredWithin', 3, 'days'))).toEqual(['a@x.test']);
    expect(await m(p, one('email.clicked', 'notTriggered'))).toEqual(['a@x.test', 'b@x.test']);
    expect(await m(p, one('email.sent', 'notTriggeredWithin', 1, 'days'))).toEqual(['a@x.test', 'b@x.test']);
    expect(await m(p, one('email.sent', 'triggeredOlderThan', 1, 'days'))).toEqual(['a@x.test']);
  });

  it('logic: AND / OR of groups, filters and nested conditions ANDed in a group, empty trees match all', async () => {
    const { id: p } = await createProject(h);
    await addContact(h, p, 'a@x.test', { plan: 'pro', age: 20 });
    await addContact(h, p, 'b@x.test', { plan: 'pro', age: 40 });
    await addContact(h, p, 'c@x.test', { plan: 'free', age: 40 });
    const pro = { field: 'data.plan', operator: 'equals', value: 'pro' };
    const old = { field: 'data.age', operator: 'greaterThan', value: 30 };
    expect(await m(p, { logic: 'AND', groups: [{ filters: [pro] }, { filters: [old] }] })).toEqual(['b@x.test']);
    expect(await m(p, { logic: 'OR', groups: [{ filters: [pro] }, { filters: [old] }] })).toEqual([
      'a@x.test',
      'b@x.test',
      'c@x.test',
    ]);
    expect(await m(p, { logic: 'OR', groups: [{ filters: [pro, old] }] })).toEqual(['b@x.test']);
    const nested = {
      logic: 'AND',
      groups: [
        {
          filters: [old],
          conditions: {
            logic: 'OR',
            groups: [{ filters: [pro] }, { filters: [{ field: 'email', operator: 'equals', value: 'c@x.test' }] }],
          },
        },
      ],
    };
    expect(await m(p, nested)).toEqual(['b@x.test', 'c@x.test']);
    expect(await m(p, { logic: 'AND', groups: [] })).toEqual(['a@x.test', 'b@x.test', 'c@x.test']);
    expect(await m(p, { logic: 'OR', groups: [{ filters: [] }, { filters: [pro] }] })).toEqual([
      'a@x.test',
      'b@x.test',
      'c@x.test',
    ]);
  });

  it('422 names the wrong filter: operator misfit, missing unit, wrong value type, unknown field, malformed tree', async () => {
    const { id: p } = await createProject(h);
    const tree = {
      logic: 'AND',
      groups: [
        {
          filters: [
            { field: 'email', operator: 'contains', value: 'x' },
            { field: 'email', operator: 'greaterThan', value: 3 },
            { field: 'event.buy', operator: 'triggeredWithin', value: 3 },
            { field: 'subscribed', operator: 'equals', value: 'maybe' },
            { field: 'phone', operator: 'equals', value: '1' },
            { field: "data.a'b", operator: 'equals', value: '1' },
            { field: 'data.n', operator: 'greaterThan', value: 'abc' },
          ],
        },
      ],
    };
    const e = await rejects(p, tree);
    expect(e).toMatchObject({ status: 422, code: 'VALIDATION_ERROR' });
    expect(e.errors).toEqual([
      expect.objectContaining({ field: 'condition.groups.0.filters.1.operator', code: 'invalid_operator' }),
      expect.objectContaining({ field: 'condition.groups.0.filters.2.unit', code: 'unit_required' }),
      expect.objectContaining({ field: 'condition.groups.0.filters.3.value', code: 'invalid_type' }),
      expect.objectContaining({ field: 'condition.groups.0.filters.4.field', code: 'invalid_field' }),
      expect.objectContaining({ field: 'condition.groups.0.filters.5.field', code: 'invalid_field' }),
      expect.objectContaining({ field: 'condition.groups.0.filters.6.value', code: 'invalid_type' }),
    ]);
    const bad = await rejects(p, { logic: 'XOR', groups: [{ filters: [{ field: 'email', operator: 'nope' }] }] });
    expect(bad.status).toBe(422);
    expect(bad.errors.map((x: { field: string }) => x.field).sort()).toEqual([
      'condition.groups.0.filters.0.operator',
      'condition.logic',
    ]);
    expect((await rejects(p, 'not a tree')).status).toBe(422);
    const nested = await rejects(p, {
      logic: 'AND',
      groups: [
        {
          filters: [],
          conditions: {
            logic: 'OR',
            groups: [{ filters: [{ field: 'createdAt', operator: 'within', value: -1, unit: 'days' }] }],
          },
        },
      ],
    });
    expect(nested.errors[0].field).toBe('condition.groups.0.conditions.groups.0.filters.0.value');
  });

  it('values are bound parameters: SQL in a value matches nothing and breaks nothing', async () => {
    const { id: p } = await createProject(h);
    await addContact(h, p, 'a@x.test', { plan: 'pro' });
    expect(await m(p, one('data.plan', 'equals', "pro' or 1=1 --"))).toEqual([]);
    expect(await m(p, one("event.x') or true --", 'notTriggered'))).toEqual(['a@x.test']);
    expect(await m(p, one('data.plan some key', 'notExists'))).toEqual(['a@x.test']);
  });

  it("segment.<id>: static members, a dynamic segment inline, another project's segment is 422", async () => {
    const { id: p, secretKey } = await createProject(h);
    await addContact(h, p, 'a@x.test', { plan: 'pro' });
    await addContact(h, p, 'b@x.test', { plan: 'free' });
    const st = await h.request('POST', '/segments', { key: secretKey, body: { name: 'VIP', type: 'STATIC' } });
    await h.request('POST', `/segments/${st.body.id}/members`, { key: secretKey, body: { emails: ['b@x.test'] } });
    const dyn = await h.request('POST', '/segments', {
      key: secretKey,
      body: { name: 'Pro', condition: one('data.plan', 'equals', 'pro') },
    });
    expect(await m(p, one(`segment.${st.body.id}`, 'memberOfSegment'))).toEqual(['b@x.test']);
    expect(await m(p, one(`segment.${st.body.id}`, 'notMemberOfSegment'))).toEqual(['a@x.test']);
    expect(await m(p, one(`segment.${dyn.body.id}`, 'memberOfSegment'))).toEqual(['a@x.test']);
    expect(await m(p, one(`segment.${dyn.body.id}`, 'notMemberOfSegment'))).toEqual(['b@x.test']);
    const audience = async (projectId: string, id: string) => {
      const q = await segmentAudience(h.deps, projectId, id);
      return (
        await h.deps.db.execute<{ email: string }>(sql`select email from contacts where id in (${q}) order by email`)
      ).rows.map((r) => r.email);
    };
    expect(await audience(p, st.body.id)).toEqual(['b@x.test']);
    expect(await audience(p, dyn.body.id)).toEqual(['a@x.test']);
    const { id: q } = await createProject(h);
    const e = await rejects(q, one(`segment.${dyn.body.id}`, 'memberOfSegment'));
    await expect(segmentAudience(h.deps, q, dyn.body.id)).rejects.toMatchObject({
      status: 422,
      errors: [expect.objectContaining({ field: 'segmentId' })],
    });
    expect(e.errors[0]).toMatchObject({ field: 'condition.groups.0.filters.0.field', code: 'segment_not_found' });
    const e2 = await rejects(p, one(`segment.${dyn.body.id}`, 'equals', 1));
    expect(e2.errors[0]).toMatchObject({ field: 'condition.groups.0.filters.0.operator', code: 'invalid_operator' });
  });

  it('staged evaluation: per-row data reads run after the index and join filters, with the same members', async () => {
    const { id: p } = await createProject(h);
    const ids = new Map<string, string>();
    for (const [email, data, bought] of [
      ['a@x.test', { plan: 'pro', age: 40 }, true],
      ['b@x.test', { plan: 'pro', age: '45' }, false],
      ['c@x.test', { plan: 'pro', age: 20 }, true],
      ['d@x.test', { plan: 'free', age: 50 }, true],
      ['e@x.test', { plan: 'pro', age: 'old', city: 'Amsterdam' }, true],
      ['f@x.test', { plan: 'pro', age: ' 31 ', city: 'Delft' }, true],
    ] as const) {
      const id = await addContact(h, p, email, data);
      ids.set(email, id);
      if (bought) await addEvent(h, p, id, 'purchase', ago(DAY));
    }
    const pro = { field: 'data.plan', operator: 'equals', value: 'pro' };
    const old = { field: 'data.age', operator: 'greaterThan', value: 30 };
    const bought = { field: 'event.purchase', operator: 'triggeredWithin', value: 30, unit: 'days' };
    const inCity = { field: 'data.city', operator: 'contains', value: 'DAM' };
    const trees: [unknown, string[], 'split' | 'whole'][] = [
      [{ logic: 'AND', groups: [{ filters: [pro, old, bought] }] }, ['a@x.test', 'f@x.test'], 'split'],
      [
        {
          logic: 'AND',
          groups: [
            { filters: [pro] },
            { filters: [bought], conditions: { logic: 'AND', groups: [{ filters: [old] }] } },
          ],
        },
        ['a@x.test', 'f@x.test'],
        'split',
      ],
      [
        { logic: 'AND', groups: [{ filters: [bought, { ...old, operator: 'lessThanOrEqual' }] }] },
        ['c@x.test'],
        'split',
      ],
      [
        { logic: 'OR', groups: [{ filters: [old, bought] }, { filters: [inCity] }] },
        ['a@x.test', 'd@x.test', 'e@x.test', 'f@x.test'],
        'whole',
      ],
      [
        { logic: 'AND', groups: [{ filters: [pro, bought] }] },
        ['a@x.test', 'c@x.test', 'e@x.test', 'f@x.test'],
        'whole',
      ],
    ];
    const dialect = new PgDialect();
    for (const [tree, members, shape] of trees) {
      const staged = await compileStaged(tree, { db: h.deps.db, projectId: p, now: NOW });
      expect(staged.later === null ? 'whole' : 'split').toBe(shape);
      const text = dialect.sqlToQuery(matchingContacts(p, staged, sql`c.id`)).sql;
      expect(text.includes('offset 0')).toBe(shape === 'split');
      expect(await m(p, tree)).toEqual(members);
      expect(await countMatching({ db: h.deps.db, clock: { now: () => NOW } }, p, tree)).toBe(members.length);
      // The unstaged predicate (workflow CONDITION steps) agrees contact by contact.
      for (const [email, id] of ids) {
        expect(await contactMatches({ db: h.deps.db, clock: { now: () => NOW } }, p, id, tree)).toBe(
          members.includes(email),
        );
      }
    }
  });

  it('contactMatches answers for one contact (workflow CONDITION steps), never across projects', async () => {
    const { id: p } = await createProject(h);
    const { id: q } = await createProject(h);
    const a = await addContact(h, p, 'a@x.test', { plan: 'pro' });
    const b = await addContact(h, p, 'b@x.test', { plan: 'free' });
    const tree = one('data.plan', 'equals', 'pro');
    expect(await contactMatches(h.deps, p, a, tree)).toBe(true);
    expect(await contactMatches(h.deps, p, b, tree)).toBe(false);
    expect(await contactMatches(h.deps, q, a, tree)).toBe(false);
    const e = await contactMatches(h.deps, p, a, one('data.plan', 'within', 3), { prefix: 'config' }).catch((x) => x);
    expect(e.errors[0]).toMatchObject({ field: 'config.groups.0.filters.0.unit', code: 'unit_required' });
  });
});
