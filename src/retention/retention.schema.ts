import { sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import type { RetentionSettings } from '../db/schema/accounts.js';

/** The three periods of a project's data retention (docs/data-protection.md). */
export const RETENTION_FIELDS = ['eventsDays', 'emailContentsDays', 'emailsDays'] as const;

const days = z
  .number()
  .int('Whole days')
  .min(1, 'At least 1 day')
  .max(3650, 'At most 3,650 days (ten years)')
  .nullable()
  .optional();

/**
 * `retention` of the project update body: each field given sets its period in days (1–3650) or, null,
 * keeps that data forever; fields left out keep their setting. `eventsDays`: events are deleted;
 * `emailContentsDays`: email subjects, bodies, headers and variables are blanked; `emailsDays`: email
 * rows are deleted (their events and clicks with them).
 */
export const retentionPatch = z.strictObject({
  eventsDays: days.meta({ description: 'Delete events older than this many days; null keeps them' }),
  emailContentsDays: days.meta({ description: 'Blank email contents older than this many days; null keeps them' }),
  emailsDays: days.meta({ description: 'Delete email rows older than this many days; null keeps them' }),
});
export type RetentionPatch = z.infer<typeof retentionPatch>;

/** `retention` of the project read shape: each period in days, null for "keep forever". */
export const retentionOut = z.object({
  eventsDays: z.number().int().nullable(),
  emailContentsDays: z.number().int().nullable(),
  emailsDays: z.number().int().nullable(),
});

/** The read shape of a stored setting. */
export const retentionView = (r: RetentionSettings | null | undefined): z.infer<typeof retentionOut> => ({
  eventsDays: r?.eventsDays ?? null,
  emailContentsDays: r?.emailContentsDays ?? null,
  emailsDays: r?.emailsDays ?? null,
});

/** The new value of `projects.retention` after `patch`, as SQL over the stored column (one statement). */
export function retentionUpdateSql(patch: RetentionPatch): SQL {
  const set: Record<string, number> = {};
  const drop: string[] = [];
  for (const f of RETENTION_FIELDS) {
    const v = patch[f];
    if (v === null) drop.push(f);
    else if (v !== undefined) set[f] = v;
  }
  return sql`(retention || ${JSON.stringify(set)}::jsonb) - ${`{${drop.join(',')}}`}::text[]`;
}
