import type { Relation } from '../db/relation.js';

/**
 * The columns of an events relation as the writers of events give it to the fan-out fragments
 * (webhook deliveries, workflow dispatch): `INSERT INTO events … RETURNING id, contact_id, name,
 * data, created_at`, or any relation with those columns.
 */
export type EventColumns = 'id' | 'contact_id' | 'name' | 'data' | 'created_at';

/** Events as the fan-out fragments read them. */
export type EventRelation = Relation<EventColumns>;
