import { sql, type SQL } from 'drizzle-orm';
import type { Deps } from '../deps.js';
import type { RetentionSettings } from '../db/schema/accounts.js';

/** Rows a retention statement touches at most: each is its own short transaction, so no lock is held long. */
export const RETENTION_BATCH = 5000;

const DAY_MS = 24 * 60 * 60 * 1000;

/** What one run did to one project, counted. */
export interface RetentionResult {
  eventsDeleted: number;
  emailContentsBlanked: number;
  emailsDeleted: number;
  contentsDeleted: number;
}

/** Runs `statement` (which touches at most {@link RETENTION_BATCH} rows) until it touches fewer. @returns the rows touched. */
async function inBatches(deps: Deps, statement: SQL): Promise<number> {
  let total = 0;
  for (;;) {
    const r = await deps.db.execute(statement);
    const n = r.rowCount ?? 0;
    total += n;
    if (n < RETENTION_BATCH) return total;
  }
}

/**
 * Applies project `projectId`'s retention at `deps.clock.now()` (docs/data-protection.md): events older
 * than `eventsDays` deleted; emails older than `emailContentsDays` blanked (subject, body, headers,
 * variables, attachments; the row, its status and times stay for reports); emails older than
 * `emailsDays` deleted (attachments and link clicks go with them by foreign key); then shared contents
 * no mail uses any more, older than the shortest email period, deleted. Every statement handles at most
 * {@link RETENTION_BATCH} rows in its own transaction.
 */
export async function applyRetention(deps: Deps, projectId: string, r: RetentionSettings): Promise<RetentionResult> {
  const now = deps.clock.now().getTime();
  const cutoff = (days: number) => new Date(now - days * DAY_MS).toISOString();
  const out: RetentionResult = { eventsDeleted: 0, emailContentsBlanked: 0, emailsDeleted: 0, contentsDeleted: 0 };
  if (r.eventsDays) {
    out.eventsDeleted = await inBatches(
      deps,
      sql`delete from events where id in (select id from events where project_id = ${projectId}
        and created_at < ${cutoff(r.eventsDays)}::timestamptz limit ${RETENTION_BATCH})`,
    );
  }
  if (r.emailsDays) {
    out.emailsDeleted = await inBatches(
      deps,
      sql`delete from emails where id in (select id from emails where project_id = ${projectId}
        and created_at < ${cutoff(r.emailsDays)}::timestamptz limit ${RETENTION_BATCH})`,
    );
  }
  if (r.emailContentsDays) {
    // Mail still queued keeps its content: it has not gone out yet.
    out.emailContentsBlanked = await inBatches(
      deps,
      sql`with b as (select id from emails where project_id = ${projectId}
            and created_at < ${cutoff(r.emailContentsDays)}::timestamptz and status not in ('PENDING', 'SENDING')
            and (subject <> '' or body <> '' or content_id is not null or headers <> '{}' or variables <> '{}')
          limit ${RETENTION_BATCH}),
        a as (delete from email_attachments where email_id in (select id from b))
        update emails e set subject = '', body = '', content_id = null, headers = '{}', variables = '{}'
        from b where e.id = b.id`,
    );
  }
  const contentDays = Math.min(r.emailContentsDays ?? Infinity, r.emailsDays ?? Infinity);
  if (Number.isFinite(contentDays)) {
    out.contentsDeleted = await inBatches(
      deps,
      sql`delete from email_contents where id in (select c.id from email_contents c where c.project_id = ${projectId}
        and c.created_at < ${cutoff(contentDays)}::timestamptz
        and not exists (select 1 from emails e where e.content_id = c.id) limit ${RETENTION_BATCH})`,
    );
  }
  return out;
}

/** Every project with a retention setting and its setting. */
export async function projectsWithRetention(deps: Deps): Promise<{ id: string; retention: RetentionSettings }[]> {
  const r = await deps.db.execute<{ id: string; retention: RetentionSettings }>(
    sql`select id, retention from projects where retention <> '{}'::jsonb order by id`,
  );
  return r.rows;
}
