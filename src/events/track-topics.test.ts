import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';

// POST /v1/track with `topics` (issue 35): joins and leaves by id or name in the track's own
// transaction, with consent source `track` and topic.joined / topic.left events; an unknown topic
// writes nothing; a track without topics answers and writes as before.
describe('POST /v1/track with topics', () => {
  let h: Harness;
  let p: TestProject;
  let news: { id: string };
  let digest: { id: string };
  beforeAll(async () => {
    h = await createHarness();
    p = await createProject(h);
    const topic = async (body: Record<string, unknown>) => {
      const res = await h.request('POST', '/topics', { key: p.secretKey, body });
      expect(res.status, res.text).toBe(201);
      return res.body as { id: string };
    };
    news = await topic({ name: 'News', default: 'opt-out' });
    digest = await topic({ name: 'Digest', default: 'opt-in' });
  });
  afterAll(async () => h?.close());

  const track = (body: unknown) => h.request('POST', '/v1/track', { key: p.publicKey, body });
  const topicsOf = async (contactId: string) =>
    (await h.request('GET', `/contacts/${contactId}`, { key: p.secretKey })).body.topics as Array<{
      name: string;
      subscribed: boolean;
    }>;
  const consent = (contactId: string) =>
    h.sql(
      'select action, topic_id, source from consent_events where contact_id = $1 and topic_id is not null order by id',
      [contactId],
    );
  const events = (contactId: string) =>
    h.sql(`select id, name, data from events where contact_id = $1 order by id`, [contactId]);

  it('joins and leaves by id or name, with consent source track and the topic events after the tracked one', async () => {
    const res = await track({
      email: 'Joiner@Track.test',
      event: 'signed-up',
      topics: { digest: true, [news.id]: false },
    });
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual(['contact', 'event', 'timestamp']);
    const id = res.body.data.contact as string;
    expect(await topicsOf(id)).toEqual([
      { id: digest.id, name: 'Digest', subscribed: true },
      { id: news.id, name: 'News', subscribed: false },
    ]);
    expect(await consent(id)).toEqual([
      { action: 'joined', topic_id: digest.id, source: 'track' },
      { action: 'left', topic_id: news.id, source: 'track' },
    ]);
    const written = await events(id);
    expect(written.map((e) => e.name)).toEqual(['signed-up', 'topic.joined', 'topic.left']);
    expect(written[0].id).toBe(res.body.data.event);
    expect(written[1].data).toEqual({ topicId: digest.id, topicName: 'Digest' });
    expect(written[2].data).toEqual({ topicId: news.id, topicName: 'News' });

    // Again with the same choices: the event is tracked, no membership changes, nothing more recorded.
    const again = await track({ email: 'joiner@track.test', event: 'visit', topics: { Digest: true, News: false } });
    expect(again.status).toBe(200);
    expect(again.body.data.contact).toBe(id);
    expect(await consent(id)).toHaveLength(2);
    expect((await events(id)).map((e) => e.name)).toEqual(['signed-up', 'topic.joined', 'topic.left', 'visit']);

    // Leaving the opt-in topic and rejoining the opt-out one.
    await track({ email: 'joiner@track.test', event: 'visit', topics: { Digest: false, News: true } });
    expect((await topicsOf(id)).map((t) => t.subscribed)).toEqual([false, true]);
    expect((await consent(id)).slice(2)).toEqual([
      { action: 'left', topic_id: digest.id, source: 'track' },
      { action: 'joined', topic_id: news.id, source: 'track' },
    ]);
  });

  it('records the membership of an unsubscribed contact (the master switch stays in the marketing rule)', async () => {
    const res = await track({ email: 'off@track.test', event: 'e', subscribed: false, topics: { Digest: true } });
    expect(res.status).toBe(200);
    const id = res.body.data.contact as string;
    expect(await h.sql('select subscribed from contacts where id = $1', [id])).toEqual([{ subscribed: false }]);
    expect(await consent(id)).toEqual([{ action: 'joined', topic_id: digest.id, source: 'track' }]);
    expect((await topicsOf(id)).find((t) => t.name === 'Digest')?.subscribed).toBe(true);
  });

  it('refuses an unknown topic with 422 naming it, and writes no contact and no event', async () => {
    const res = await track({ email: 'ghost@track.test', event: 'e', topics: { Digest: true, Weekly: true } });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.message).toContain('"Weekly"');
    expect(res.body.error.errors).toEqual([expect.objectContaining({ field: 'topics.Weekly', code: 'unknown_topic' })]);
    expect(
      await h.sql('select 1 from contacts where project_id = $1 and email = $2', [p.id, 'ghost@track.test']),
    ).toEqual([]);
    // An existing contact gets neither the event nor the data either.
    const known = await track({ email: 'known@track.test', event: 'first', data: { a: 1 } });
    const id = known.body.data.contact as string;
    const bad = await track({ email: 'known@track.test', event: 'second', data: { a: 2 }, topics: { nope: false } });
    expect(bad.status).toBe(422);
    expect((await events(id)).map((e) => e.name)).toEqual(['first']);
    expect(await h.sql('select data from contacts where id = $1', [id])).toEqual([{ data: { a: 1 } }]);
    expect(
      (await track({ email: 'known@track.test', event: 'e', topics: { Digest: 'yes' } })).body.error.errors[0],
    ).toMatchObject({ field: 'topics.Digest', code: 'invalid_type' });
  });

  it('without topics (or with none) answers and writes as before: no topic entries, no topic events', async () => {
    for (const extra of [{}, { topics: {} }]) {
      const res = await track({ email: 'plain@track.test', event: 'visit', ...extra });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body.data).sort()).toEqual(['contact', 'event', 'timestamp']);
      const id = res.body.data.contact as string;
      expect(await consent(id)).toEqual([]);
      expect((await events(id)).every((e) => !String(e.name).startsWith('topic.'))).toBe(true);
    }
  });
});
