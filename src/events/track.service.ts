import { splitData } from '../contacts/contact-data.js';
import { upsertContact } from '../contacts/contacts.upsert.js';
import type { Deps } from '../deps.js';
import { invalid } from '../http/errors.js';
import { isReservedEventName, recordEvent } from './emit.js';
import type { TrackBody } from './track.schema.js';

export interface TrackOutcome {
  contact: string;
  event: string;
  timestamp: string;
}

/**
 * `POST /v1/track` (api.md §4.1, §2.1, §3.2): upserts the contact (new contacts subscribed unless
 * `subscribed: false`; existing ones keep their state unless it is given) and records a new event
 * every time, in one transaction. Persistent `data` (primitives and plain objects) is stored on the
 * contact; the event's data holds the persistent and the one-off (`persistent: false`) values.
 * A subscription change made here emits `contact.subscribed`/`contact.unsubscribed` like `/v1/send`
 * does, so workflows and segments see every change of state.
 * @throws AppError 422 with an `errors` entry of code `reserved_event` for a reserved name (api.md §6).
 */
export async function trackEvent(deps: Deps, projectId: string, input: TrackBody): Promise<TrackOutcome> {
  if (isReservedEventName(input.event)) {
    throw invalid('event', `"${input.event}" is a reserved event name emitted by the service`, 'reserved_event', input.event);
  }
  const data = splitData(input.data, { allowTransient: true, allowObjects: true });
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    const { contact } = await upsertContact(tx, {
      projectId, email: input.email, data, subscribed: input.subscribed, defaultSubscribed: true,
      emitSubscriptionEvents: true, now,
    });
    const event = await recordEvent(tx, {
      projectId, contactId: contact.id, name: input.event, data: { ...data.set, ...data.transient }, createdAt: now,
    });
    return { contact: contact.id, event: event.id, timestamp: now.toISOString() };
  });
}
