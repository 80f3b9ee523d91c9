import { sql } from 'drizzle-orm';
import { splitData } from '../contacts/contact-data.js';
import { contactUpsertRow, contactUpsertSetCtes, type UpColumns } from '../contacts/contacts.upsert.js';
import { subscriptionChangeCtes } from '../contacts/subscription.js';
import type { Deps } from '../deps.js';
import { groupCommitPerPool } from '../db/group-commit.js';
import { executePrepared } from '../db/prepared.js';
import type { Transaction } from '../db/tx.js';
import { invalid } from '../http/errors.js';
import { newId } from '../lib/ids.js';
import { setContactTopics } from '../topics/membership.js';
import { resolveTopicChoices } from '../topics/topics.service.js';
import { contactUpsertEvents, webhookDeliveries } from '../webhook-endpoints/fanout.js';
import { isReservedEventName, workflowDispatchJobs } from './emit.js';
import type { TrackBody } from './track.schema.js';
import { cte, relation, unionAll } from '../db/relation.js';
import type { EventColumns } from './event-relation.js';

export interface TrackOutcome {
  contact: string;
  event: string;
  timestamp: string;
}

/** One `/v1/track` request: its contact upsert row plus the event's fields (JSON keys are columns). */
interface TrackRow extends ReturnType<typeof contactUpsertRow> {
  project: string;
  /** Generated after the row's `sub_event_id`, so a subscription change sorts before it (UUIDv7). */
  event_id: string;
  name: string;
  /** The event's data: persistent and one-off values. */
  event_data: Record<string, unknown>;
  /** Estimated JSON length, for the batch's byte cap. */
  bytes: number;
}

/**
 * The `/v1/track` statement for a batch of requests of one project with distinct emails: per row the
 * contact upserted (contacts.upsert.ts, the one upsert rule), the subscription event when an existing
 * contact's state flips (as recordEvent would write it), the tracked event, the workflow dispatch jobs
 * of both and the event webhook deliveries of all three (with `contact.created` for a new contact, and
 * `contact.updated` for an existing one whose data or subscription the track changed).
 */
function trackStatement(projectId: string, rows: TrackRow[]) {
  const u = contactUpsertSetCtes(projectId, rows.map(statementRow), sql`, event_id uuid, name text, event_data jsonb`);
  const upserted = cte<UpColumns | 'sub_event_id' | 'event_id' | 'name' | 'event_data' | 'at'>(
    'rows',
    sql`select up.*, r.sub_event_id, r.event_id, r.name, r.event_data, r.at from ${u.up.from} join input r on r.email = up.email`,
  );
  const subscription = subscriptionChangeCtes('subscription', projectId, upserted.rel, { source: 'track' });
  const tracked = cte<EventColumns>(
    'tracked',
    sql`
      insert into events (id, project_id, contact_id, name, data, created_at, causation_depth)
      select r.event_id, ${projectId}, r.id, r.name, r.event_data, r.at, 0 from ${upserted.rel.from} r
      returning id, contact_id, name, data, created_at`,
  );
  const written = cte<EventColumns>(
    'written',
    sql`select * from ${subscription.rel.from} union all select * from ${tracked.rel.from}`,
  );
  const announced = contactUpsertEvents(
    relation(sql`(select * from ${upserted.rel.from} x where x.is_new or x.changed)`),
    sql`r.at`,
  );
  return sql`
    with ${u.ctes},
    ${upserted.def},
    ${subscription.def},
    ${tracked.def},
    ${written.def},
    webhooks as (${webhookDeliveries(unionAll(written.rel, announced), projectId)}),
    jobs as (${workflowDispatchJobs(written.rel, projectId)})
    select r.email, r.id, (select count(*) from jobs) as jobs from rows r`;
}

/** A row without the fields only the batching reads (a replacer would also drop such keys of `data`). */
const statementRow = ({ project, bytes, ...row }: TrackRow) => row;

/** Runs the track statement for `rows` on `db` (the database or a transaction): the contact id of each row, in order. */
async function writeTracks(db: Deps['db'] | Transaction, projectId: string, rows: TrackRow[]): Promise<string[]> {
  const res = await executePrepared<{ email: string; id: string }>(db, trackStatement(projectId, rows));
  const ids = new Map(res.rows.map((x) => [x.email, x.id]));
  return rows.map((r) => ids.get(r.email)!);
}

/**
 * Tracks in flight: half the pool at most, so tracks leave connections to every other route however busy
 * they get; two per project, so a busy project's tracks gather into batches (bench/send-track.ts: with 32
 * connections on one project, throughput falls as more statements of one project run at once).
 */
const committer = groupCommitPerPool(2, (deps: Deps) => ({
  maxInFlightPerKey: 2,
  maxBatch: 100,
  maxBytes: 1024 * 1024,
  key: (r: TrackRow) => r.project,
  distinct: (r: TrackRow) => r.email,
  size: (r: TrackRow) => r.bytes,
  run: (projectId: string, rows: TrackRow[]) => writeTracks(deps.db, projectId, rows),
}));

/**
 * `POST /v1/track`: upserts the contact (new contacts subscribed unless
 * `subscribed: false`; existing ones keep their state unless it is given) and records a new event
 * every time, in one statement. Persistent `data` (primitives and plain objects) is stored on the
 * contact; the event's data holds the persistent and the one-off (`persistent: false`) values.
 * A subscription change made here emits `contact.subscribed`/`contact.unsubscribed` like `/v1/send`
 * does, so workflows and segments see every change of state.
 *
 * Concurrent tracks of one project are group-committed (db/group-commit.ts): under load one statement
 * writes many requests' rows, with one round trip and one commit; each reply still comes only after
 * its own rows have committed, and a lone request goes at once.
 *
 * `topics` (ids or names, as on `POST /contacts`) joins and leaves topics after the upsert, in one
 * transaction of its own with the contact and the event (topics/membership.ts setContactTopics, consent
 * source `track`); the membership is recorded even for an unsubscribed contact, since the master switch
 * is the marketing rule's (emails/eligibility.ts). Requests without topics (every Plunk client) stay on
 * the group-committed statement, unchanged.
 * @throws AppError 422 with an `errors` entry of code `reserved_event` for a reserved name (emit.ts);
 *   422 with one `unknown_topic` entry per key of `topics` that names no topic of the project. Either
 *   way nothing is written.
 */
export async function trackEvent(deps: Deps, projectId: string, input: TrackBody): Promise<TrackOutcome> {
  if (isReservedEventName(input.event)) {
    throw invalid(
      'event',
      `"${input.event}" is a reserved event name emitted by the service`,
      'reserved_event',
      input.event,
    );
  }
  const data = splitData(input.data, { allowTransient: true, allowObjects: true });
  // Unknown topics are refused before anything is written.
  const topics = input.topics ? await resolveTopicChoices(deps.db, projectId, input.topics) : undefined;
  const now = deps.clock.now();
  const upsert = contactUpsertRow({
    email: input.email,
    data,
    subscribed: input.subscribed,
    defaultSubscribed: true,
    now,
  });
  // After the upsert row's ids, so the subscription change sorts before the tracked event (UUIDv7).
  const eventId = newId();
  const row: TrackRow = {
    ...upsert,
    project: projectId,
    event_id: eventId,
    name: input.event,
    event_data: { ...data.set, ...data.transient },
    // The data travels twice (contact and event); the rest of a row is under 400 bytes.
    bytes: 2 * JSON.stringify(input.data ?? null).length + 400,
  };
  const contact = topics?.size
    ? await deps.db.transaction(async (tx) => {
        const [id] = await writeTracks(tx, projectId, [row]);
        await setContactTopics(tx, projectId, id, topics, now, { source: 'track' });
        return id;
      })
    : await committer(deps).submit(row);
  return { contact, event: eventId, timestamp: row.at };
}
