import { sql, type SQL } from 'drizzle-orm';
import type { ConditionTree } from '../db/schema.js';
import { isMarketing, marketingEligibleSql } from '../emails/eligibility.js';
import { AppError, type FieldError } from '../http/errors.js';
import { isUuid } from '../lib/ids.js';
import { compileCondition } from '../segments/compile.js';
import { getSegment } from '../segments/segments.repo.js';
import type { CampaignRow } from './campaigns.repo.js';
import type { Tx } from '../db/tx.js';

/**
 * Who a campaign goes to (`audienceType`: ALL, a segment or a FILTERED condition, and the type rules).
 * Everything here is SQL over the contacts table aliased `c`, so an audience of any size is selected
 * and counted by the database, never loaded into memory.
 */

/** The audience part of a campaign: what {@link audiencePredicate} needs. */
export type Audience = Pick<CampaignRow, 'projectId' | 'audienceType' | 'segmentId' | 'audienceCondition'>;

const unprocessable = (errors: FieldError[]): AppError =>
  new AppError('VALIDATION_ERROR', `Invalid audience: ${errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`, {
    errors,
  });

/**
 * The audience as a boolean SQL predicate over `contacts c` (without the project filter):
 * ALL → true; SEGMENT → membership of a STATIC segment (`segment_members`) or the condition of a
 * DYNAMIC one, compiled live; FILTERED → the compiled `audienceCondition`.
 * @param now business time for relative windows (`within 7 days`).
 * @throws AppError 422 VALIDATION_ERROR: SEGMENT without a segment of this project (`segmentId`),
 * FILTERED without a condition (`audienceCondition`), or a condition the compiler refuses.
 */
export async function audiencePredicate(db: Tx, a: Audience, now: Date): Promise<SQL> {
  if (a.audienceType === 'ALL') return sql`true`;
  if (a.audienceType === 'SEGMENT') {
    const segment = a.segmentId && isUuid(a.segmentId) ? await getSegment(db, a.projectId, a.segmentId) : undefined;
    if (!segment) {
      throw unprocessable([
        a.segmentId
          ? {
              field: 'segmentId',
              code: 'segment_not_found',
              message: 'No segment with this id in the project',
              received: a.segmentId,
            }
          : {
              field: 'segmentId',
              code: 'invalid_type',
              message: 'Required when audienceType is SEGMENT',
              received: 'undefined',
            },
      ]);
    }
    if (segment.type === 'STATIC') {
      return sql`exists (select 1 from segment_members m where m.segment_id = ${segment.id} and m.contact_id = c.id)`;
    }
    return compileCondition(segment.condition ?? { logic: 'AND', groups: [] }, {
      db,
      projectId: a.projectId,
      now,
      prefix: 'segment.condition',
      segmentStack: [segment.id],
    });
  }
  if (a.audienceCondition === null || a.audienceCondition === undefined) {
    throw unprocessable([
      {
        field: 'audienceCondition',
        code: 'invalid_type',
        message: 'Required when audienceType is FILTERED',
        received: 'undefined',
      },
    ]);
  }
  return compileCondition(a.audienceCondition, { db, projectId: a.projectId, now, prefix: 'audienceCondition' });
}

/**
 * Who of the audience may receive this type of mail: MARKETING skips
 * unsubscribed contacts, suppressed addresses (hard bounces, complaints), contacts snoozed past
 * `now` and, with a `topicId`, contacts not in that topic; TRANSACTIONAL and HEADLESS go out whatever
 * the subscription state and topics, as on `/v1/send`.
 */
export function eligibility(type: CampaignRow['type'], now: Date, topicId?: string | null): SQL {
  const topic = topicId ? sql`${topicId}::uuid` : undefined;
  return isMarketing(type) ? marketingEligibleSql('c', now, undefined, topic) : sql`true`;
}

/**
 * The full recipient filter of a send that started at `startedAt`: the project, contacts that existed
 * then (the audience is frozen when sending starts; ids are UUIDv7 and later
 * contacts are excluded by time), the audience and the type rules (with the campaign's topic).
 */
export async function recipientFilter(
  db: Tx,
  c: Audience & Pick<CampaignRow, 'type'> & { topicId?: string | null },
  startedAt: Date,
): Promise<SQL> {
  const audience = await audiencePredicate(db, c, startedAt);
  return sql`c.project_id = ${c.projectId} and c.created_at <= ${startedAt.toISOString()}::timestamptz
    and ${audience} and ${eligibility(c.type, startedAt, c.topicId)}`;
}

/** Number of recipients a send starting at `startedAt` would have, in one query. @throws AppError 422. */
export async function countRecipients(
  db: Tx,
  c: Audience & Pick<CampaignRow, 'type'> & { topicId?: string | null },
  startedAt: Date,
): Promise<number> {
  const where = await recipientFilter(db, c, startedAt);
  const r = await db.execute<{ n: number }>(sql`select count(*)::int as n from contacts c where ${where}`);
  return r.rows[0].n;
}

/** Validates the audience fields of a create/replace body; returns the values to store. @throws AppError 422. */
export async function checkAudience(
  db: Tx,
  projectId: string,
  input: { audienceType: CampaignRow['audienceType']; segmentId?: string | null; audienceCondition?: unknown },
  now: Date,
) {
  const a: Audience = {
    projectId,
    audienceType: input.audienceType,
    segmentId: input.audienceType === 'SEGMENT' ? (input.segmentId ?? null) : null,
    audienceCondition:
      input.audienceType === 'FILTERED' ? ((input.audienceCondition ?? null) as ConditionTree | null) : null,
  };
  await audiencePredicate(db, a, now);
  return { segmentId: a.segmentId, audienceCondition: a.audienceCondition };
}
