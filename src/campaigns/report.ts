import { projectTopic } from '../topics/topics.service.js';
import { and, asc, eq, gt, sql } from 'drizzle-orm';
import { emails } from '../db/schema.js';
import type { EmailStatus } from '../db/schema/messaging.js';
import type { Deps } from '../deps.js';
import { countRecipients } from './audience.js';
import type { CampaignRow } from './campaigns.repo.js';
import { loadCampaign } from './campaigns.service.js';
import type { AudienceCountInput, CampaignEmailsQuery } from './campaigns.schema.js';

/**
 * What the dashboard reads around a campaign that is not the campaign itself: the eligible audience
 * before sending, the recipients of a send and its activity over time.
 */

/**
 * `POST /campaigns/audience-count`: recipients a send starting now would have (the marketing rule
 * skips unsubscribed, suppressed and snoozed contacts). @throws AppError 422 on a bad audience.
 */
export async function audienceCount(
  deps: Deps,
  projectId: string,
  input: AudienceCountInput,
): Promise<{ count: number }> {
  const count = await countRecipients(
    deps.db,
    {
      projectId,
      audienceType: input.audienceType,
      segmentId: input.audienceType === 'SEGMENT' ? (input.segmentId ?? null) : null,
      audienceCondition:
        input.audienceType === 'FILTERED'
          ? ((input.audienceCondition ?? null) as CampaignRow['audienceCondition'])
          : null,
      type: input.type,
      topicId: await projectTopic(deps.db, projectId, input.topicId),
    },
    deps.clock.now(),
  );
  return { count };
}

/**
 * `GET /campaigns/:id/emails`: the campaign's emails in creation order (ids are time-ordered),
 * cursor-paged by id; `total` on the first page only. @throws AppError 404.
 */
export async function campaignEmails(deps: Deps, projectId: string, id: string, q: CampaignEmailsQuery) {
  const c = await loadCampaign(deps, projectId, id);
  const base = and(
    eq(emails.projectId, projectId),
    eq(emails.campaignId, c.id),
    q.status ? eq(emails.status, q.status as EmailStatus) : undefined,
  );
  const after = q.cursor && /^[0-9a-f-]{36}$/i.test(q.cursor) ? gt(emails.id, q.cursor) : undefined;
  const rows = await deps.db
    .select({
      id: emails.id,
      to: emails.toEmail,
      contactId: emails.contactId,
      status: emails.status,
      error: emails.error,
      sentAt: emails.sentAt,
      deliveredAt: emails.deliveredAt,
      openedAt: emails.openedAt,
      clickedAt: emails.clickedAt,
      bouncedAt: emails.bouncedAt,
      complainedAt: emails.complainedAt,
      variant: emails.variant,
    })
    .from(emails)
    .where(and(base, after))
    .orderBy(asc(emails.id))
    .limit(q.limit + 1);
  const hasMore = rows.length > q.limit;
  const page = rows.slice(0, q.limit);
  const iso = (d: Date | null) => (d ? d.toISOString() : null);
  let total = 0;
  if (!q.cursor) {
    const [r] = await deps.db
      .select({ n: sql<number>`count(*)::int` })
      .from(emails)
      .where(base);
    total = r.n;
  }
  return {
    data: page.map((e) => ({
      ...e,
      sentAt: iso(e.sentAt),
      deliveredAt: iso(e.deliveredAt),
      openedAt: iso(e.openedAt),
      clickedAt: iso(e.clickedAt),
      bouncedAt: iso(e.bouncedAt),
      complainedAt: iso(e.complainedAt),
    })),
    cursor: hasMore ? page[page.length - 1].id : null,
    hasMore,
    total,
  };
}

type Kind = 'sent' | 'delivered' | 'opened' | 'clicked' | 'bounced' | 'complained';

/**
 * `GET /campaigns/:id/timeline`: how many of the campaign's emails were sent, delivered, opened,
 * clicked, bounced and complained about in each UTC hour that had any of these. @throws AppError 404.
 */
export async function campaignTimeline(deps: Deps, projectId: string, id: string) {
  const c = await loadCampaign(deps, projectId, id);
  const r = await deps.db.execute<{ hour: string; kind: Kind; n: number }>(sql`
    select to_char(date_trunc('hour', v.t) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:00:00.000"Z"') as hour, v.kind, count(*)::int as n
    from emails e, lateral (values ('sent', e.sent_at), ('delivered', e.delivered_at), ('opened', e.opened_at),
      ('clicked', e.clicked_at), ('bounced', e.bounced_at), ('complained', e.complained_at)) as v(kind, t)
    where e.project_id = ${projectId} and e.campaign_id = ${c.id} and v.t is not null
    group by 1, 2 order by 1`);
  const byHour = new Map<string, Record<Kind, number>>();
  for (const row of r.rows) {
    let point = byHour.get(row.hour);
    if (!point)
      byHour.set(row.hour, (point = { sent: 0, delivered: 0, opened: 0, clicked: 0, bounced: 0, complained: 0 }));
    point[row.kind] = row.n;
  }
  return { interval: 'hour' as const, data: [...byHour].map(([date, p]) => ({ date, ...p })) };
}
