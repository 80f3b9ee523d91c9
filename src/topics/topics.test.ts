import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createVerifiedUser, type TestProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';

// Subscription topics (issue 35): the API, the membership rule for opt-in and opt-out topics, and
// what a change records (consent entry, topic.joined / topic.left event), once per real change.
describe('topics', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(async () => h.close());

  const topic = async (p: TestProject, body: Record<string, unknown>) => {
    const res = await h.request('POST', '/topics', { key: p.secretKey, body });
    expect(res.status, res.text).toBe(201);
    return res.body as { id: string; name: string; members: number };
  };
  const contact = async (p: TestProject, email: string, extra: Record<string, unknown> = {}) => {
    const res = await h.request('POST', '/contacts', { key: p.secretKey, body: { email, ...extra } });
    expect(res.status, res.text).toBe(201);
    return res.body as { id: string } & Record<string, unknown>;
  };
  const consent = (contactId: string) =>
    h.sql<{ action: string; topic_id: string | null; source: string }>(
      // Topic entries only: the contact's own `subscribed` entries are consent.test.ts's.
      'select action, topic_id, source from consent_events where contact_id = $1 and topic_id is not null order by id',
      [contactId],
    );
  const topicEvents = (contactId: string) =>
    h.sql<{ name: string; data: Record<string, unknown> }>(
      `select name, data from events where contact_id = $1 and name like 'topic.%' order by id`,
      [contactId],
    );

  it('creates, lists by name, renames and deletes topics; refuses a duplicate name in any case and a bad default', async () => {
    const p = await createProject(h);
    const news = await topic(p, { name: 'Product news', default: 'opt-out', description: 'What ships' });
    expect(news).toMatchObject({
      name: 'Product news',
      description: 'What ships',
      default: 'opt-out',
      public: true,
      members: 0,
    });
    await topic(p, { name: 'Digest', default: 'opt-in', public: false });

    const dup = await h.request('POST', '/topics', {
      key: p.secretKey,
      body: { name: 'product NEWS', default: 'opt-in' },
    });
    expect(dup.status).toBe(409);
    expect(dup.body.error.message).toBe('The project already has a topic named "product NEWS"');
    const bad = await h.request('POST', '/topics', { key: p.secretKey, body: { name: 'X', default: 'maybe' } });
    expect(bad.status).toBe(422);
    const noName = await h.request('POST', '/topics', { key: p.secretKey, body: { name: ' ', default: 'opt-in' } });
    expect(noName.status).toBe(422);

    const list = await h.request('GET', '/topics', { key: p.secretKey });
    expect(list.status).toBe(200);
    expect(list.body.map((t: { name: string }) => t.name)).toEqual(['Digest', 'Product news']);

    const renamed = await h.request('PATCH', `/topics/${news.id}`, {
      key: p.secretKey,
      body: { name: 'Releases', description: null },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'Releases', description: null, default: 'opt-out' });
    const clash = await h.request('PATCH', `/topics/${news.id}`, { key: p.secretKey, body: { name: 'digest' } });
    expect(clash.status).toBe(409);

    // Another project sees none of them.
    const other = await createProject(h);
    expect((await h.request('GET', `/topics/${news.id}`, { key: other.secretKey })).status).toBe(404);
    expect((await h.request('DELETE', `/topics/${news.id}`, { key: other.secretKey })).status).toBe(404);
    expect((await h.request('GET', '/topics', { key: other.secretKey })).body).toEqual([]);

    // A MEMBER reads topics but does not change them.
    const member = await createVerifiedUser(h);
    const added = await h.request('POST', `/projects/${p.id}/members`, {
      cookie: p.owner.cookie,
      body: { email: member.email, role: 'MEMBER' },
    });
    expect(added.status, added.text).toBe(201);
    const asMember = { cookie: member.cookie, headers: { 'x-project-id': p.id } };
    expect((await h.request('GET', '/topics', asMember)).status).toBe(200);
    const refusedMember = await h.request('DELETE', `/topics/${news.id}`, asMember);
    expect(refusedMember.status).toBe(403);
    expect(refusedMember.body.error.message).toBe('This needs the OWNER or ADMIN role in the project');

    expect((await h.request('DELETE', `/topics/${news.id}`, { key: p.secretKey })).status).toBe(204);
    expect((await h.request('GET', `/topics/${news.id}`, { key: p.secretKey })).status).toBe(404);
    expect((await h.request('GET', '/topics/not-a-uuid', { key: p.secretKey })).status).toBe(404);
  });

  it('puts every subscribed contact in an opt-out topic and only joiners in an opt-in one; a change records consent and an event once', async () => {
    const p = await createProject(h);
    const news = await topic(p, { name: 'News', default: 'opt-out' });
    const digest = await topic(p, { name: 'Digest', default: 'opt-in' });
    const ann = await contact(p, 'ann@topics.test');
    await contact(p, 'bob@topics.test');
    await contact(p, 'cat@topics.test', { subscribed: false });

    const detail = await h.request('GET', `/contacts/${ann.id}`, { key: p.secretKey });
    expect(detail.status).toBe(200);
    expect(detail.body.topics).toEqual([
      { id: digest.id, name: 'Digest', subscribed: false },
      { id: news.id, name: 'News', subscribed: true },
    ]);
    const counts = async () =>
      Object.fromEntries(
        (await h.request('GET', '/topics', { key: p.secretKey })).body.map((t: { name: string; members: number }) => [
          t.name,
          t.members,
        ]),
      );
    // The unsubscribed contact is in no topic's count: the master switch.
    expect(await counts()).toEqual({ Digest: 0, News: 2 });

    // By name (any case) and by id.
    const put = await h.request('PUT', `/contacts/${ann.id}/topics`, {
      key: p.secretKey,
      body: { topics: { news: false, [digest.id]: true } },
    });
    expect(put.status, put.text).toBe(200);
    expect(put.body.topics).toEqual([
      { id: digest.id, name: 'Digest', subscribed: true },
      { id: news.id, name: 'News', subscribed: false },
    ]);
    expect(await counts()).toEqual({ Digest: 1, News: 1 });
    expect(await consent(ann.id)).toEqual([
      { action: 'joined', topic_id: digest.id, source: 'api' },
      { action: 'left', topic_id: news.id, source: 'api' },
    ]);
    expect(await topicEvents(ann.id)).toEqual([
      { name: 'topic.joined', data: { topicId: digest.id, topicName: 'Digest' } },
      { name: 'topic.left', data: { topicId: news.id, topicName: 'News' } },
    ]);

    // The same choices again change nothing and record nothing.
    const again = await h.request('PUT', `/contacts/${ann.id}/topics`, {
      key: p.secretKey,
      body: { topics: { News: false, Digest: true } },
    });
    expect(again.status).toBe(200);
    expect(await consent(ann.id)).toHaveLength(2);
    expect(await topicEvents(ann.id)).toHaveLength(2);

    // From the dashboard, the entry says so.
    const session = await h.request('PUT', `/contacts/${ann.id}/topics`, {
      cookie: p.owner.cookie,
      headers: { 'x-project-id': p.id },
      body: { topics: { News: true } },
    });
    expect(session.status, session.text).toBe(200);
    expect((await consent(ann.id)).at(-1)).toEqual({ action: 'joined', topic_id: news.id, source: 'dashboard' });
  });

  it('keeps an explicit join of an opt-out topic when the topic turns opt-in, without a second event', async () => {
    const p = await createProject(h);
    const news = await topic(p, { name: 'News', default: 'opt-out' });
    const chose = await contact(p, 'chose@topics.test');
    const silent = await contact(p, 'silent@topics.test');
    const put = await h.request('PUT', `/contacts/${chose.id}/topics`, {
      key: p.secretKey,
      body: { topics: { News: true } },
    });
    expect(put.status).toBe(200);
    // Already in by default: the choice is stored, but no membership changed, so nothing is recorded.
    expect(await topicEvents(chose.id)).toEqual([]);
    expect(await consent(chose.id)).toEqual([]);
    const turned = await h.request('PATCH', `/topics/${news.id}`, { key: p.secretKey, body: { default: 'opt-in' } });
    expect(turned.status).toBe(200);
    const inNews = async (id: string) =>
      (await h.request('GET', `/contacts/${id}`, { key: p.secretKey })).body.topics[0].subscribed as boolean;
    expect(await inNews(chose.id)).toBe(true);
    expect(await inNews(silent.id)).toBe(false);
  });

  it('refuses an unknown topic and a foreign contact without changing anything', async () => {
    const p = await createProject(h);
    const news = await topic(p, { name: 'News', default: 'opt-in' });
    const ann = await contact(p, 'ann@refused.test');
    const res = await h.request('PUT', `/contacts/${ann.id}/topics`, {
      key: p.secretKey,
      body: { topics: { News: true, Nope: true } },
    });
    expect(res.status).toBe(422);
    expect(res.body.error.message).toBe('No topic "Nope" in this project');
    expect(await consent(ann.id)).toEqual([]);
    expect(await h.sql('select 1 from contact_topics where contact_id = $1', [ann.id])).toEqual([]);

    const other = await createProject(h);
    const theirs = await h.request('PUT', `/contacts/${ann.id}/topics`, {
      key: other.secretKey,
      body: { topics: {} },
    });
    expect(theirs.status).toBe(404);
    // Another project's topic id is unknown here.
    const foreign = await topic(other, { name: 'Theirs', default: 'opt-in' });
    const cross = await h.request('PUT', `/contacts/${ann.id}/topics`, {
      key: p.secretKey,
      body: { topics: { [foreign.id]: true } },
    });
    expect(cross.status).toBe(422);
    expect(news.members).toBe(0);
  });

  it('takes topics on POST /contacts, in the same transaction; without them the answer is as before', async () => {
    const p = await createProject(h);
    const digest = await topic(p, { name: 'Digest', default: 'opt-in' });
    const plain = await contact(p, 'plain@topics.test');
    expect(Object.keys(plain).sort()).toEqual(
      ['_meta', 'createdAt', 'data', 'email', 'id', 'snoozedUntil', 'subscribed', 'updatedAt'].sort(),
    );
    expect(await consent(plain.id)).toEqual([]);

    const joined = await contact(p, 'joiner@topics.test', { topics: { Digest: true } });
    expect((await h.request('GET', `/contacts/${joined.id}`, { key: p.secretKey })).body.topics).toEqual([
      { id: digest.id, name: 'Digest', subscribed: true },
    ]);
    expect(await consent(joined.id)).toEqual([{ action: 'joined', topic_id: digest.id, source: 'api' }]);

    const refused = await h.request('POST', '/contacts', {
      key: p.secretKey,
      body: { email: 'nobody@topics.test', topics: { Weekly: true } },
    });
    expect(refused.status).toBe(422);
    expect(await h.sql('select 1 from contacts where email = $1', ['nobody@topics.test'])).toEqual([]);

    // The service's own topic events cannot be forged through /v1/track.
    const forged = await h.request('POST', '/v1/track', {
      key: p.publicKey,
      body: { email: 'plain@topics.test', event: 'topic.joined', data: { topicId: digest.id } },
    });
    expect(forged.status).toBe(422);
    expect(forged.body.error.errors[0].code).toBe('reserved_event');
  });
});
