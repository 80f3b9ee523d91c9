import { events } from '../db/schema.js';
import { newId } from '../lib/ids.js';
import type { DbOrTx } from '../worker/queue.js';

/** Names the service emits itself; clients cannot track them (api.md §6). */
export function isReservedEventName(name: string): boolean {
  return (
    name === 'contact.subscribed' ||
    name === 'contact.unsubscribed' ||
    name.startsWith('email.') ||
    /^segment\..+\.(entry|exit)$/.test(name)
  );
}

export interface NewEvent {
  projectId: string;
  contactId: string | null;
  name: string;
  data?: Record<string, unknown>;
  emailId?: string | null;
  campaignId?: string | null;
  createdAt?: Date;
}

type Tx = DbOrTx & { insert: import('../db/pool.js').Db['insert'] };

/**
 * Records an event in the caller's transaction and returns its id. Every event (tracked or emitted)
 * goes through here, so workflow triggers can hook in at one place (issue: workflows).
 */
export async function recordEvent(tx: Tx, e: NewEvent): Promise<{ id: string; createdAt: Date }> {
  const id = newId();
  const createdAt = e.createdAt ?? new Date();
  await tx.insert(events).values({
    id,
    projectId: e.projectId,
    contactId: e.contactId,
    name: e.name,
    data: e.data ?? {},
    emailId: e.emailId ?? null,
    campaignId: e.campaignId ?? null,
    createdAt,
  });
  return { id, createdAt };
}
