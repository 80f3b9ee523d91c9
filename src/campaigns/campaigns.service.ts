import { rate } from '../analytics/range.js';
import { projectTopic } from '../topics/topics.service.js';
import { assertWithinLimit } from '../billing/billing.service.js';
import type { Deps } from '../deps.js';
import { assertVerifiedSender } from '../domains/verified.js';
import { assertTemplatesParse } from '../emails/render/render.js';
import { contentOut, contentToCreate, contentToReplace } from '../content/save.js';
import type { ContentFormat } from '../content/format.schema.js';
import { AppError, notFound } from '../http/errors.js';
import { isUuid, newId } from '../lib/ids.js';
import { removeJob } from '../worker/graphile.js';
import { enqueue } from '../worker/jobs.js';
import { checkAudience, countRecipients } from './audience.js';
import { fanoutCampaignJob } from './campaigns.jobs.js';
import * as repo from './campaigns.repo.js';
import { assertMarketingNotPaused } from '../projects/health.js';
import { CAMPAIGN_STATUSES, type CampaignInput, type ListCampaignsQuery } from './campaigns.schema.js';
import { cancelSending, fanoutKey, startSending } from './fanout.js';
import { checkExperiment, sendersOf } from './experiment.js';
import { countersOf, figuresOf } from './figures.js';
import { assertDeliveryFitsExperiment, deliveryOutOf, deliveryToStore } from './delivery.js';
import type { Tx } from '../db/tx.js';

/** A campaign as every endpoint returns it; counters are live (one aggregate). */
export function campaignOut(c: repo.CampaignRow, counts?: repo.EmailCounts) {
  const live = counts && c.status !== 'DRAFT' && c.status !== 'SCHEDULED';
  return {
    id: c.id,
    name: c.name,
    description: c.description,
    subject: c.subject,
    ...contentOut(c),
    from: c.from,
    fromName: c.fromName,
    replyTo: c.replyTo,
    type: c.type,
    status: c.status,
    statusReason: c.statusReason,
    audienceType: c.audienceType,
    audienceCondition: c.audienceCondition,
    segmentId: c.segmentId,
    topicId: c.topicId,
    variants: c.variants,
    experiment: c.experiment,
    winner: c.winnerKey,
    delivery: deliveryOutOf(c.delivery, c.deliveryEndsAt),
    scheduledFor: c.scheduledFor?.toISOString() ?? null,
    totalRecipients: c.totalRecipients,
    sentCount: live ? counts.sent : c.sentCount,
    deliveredCount: live ? counts.delivered : c.deliveredCount,
    openedCount: live ? counts.opened : c.openedCount,
    clickedCount: live ? counts.clicked : c.clickedCount,
    bouncedCount: live ? counts.bounced : c.bouncedCount,
    projectId: c.projectId,
    sentAt: c.sentAt?.toISOString() ?? null,
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
  };
}
export type CampaignOut = ReturnType<typeof campaignOut>;

/** Loads a campaign of the project. @throws AppError 404 for unknown ids, other projects' ids and non-uuids. */
export async function loadCampaign(deps: Deps, projectId: string, id: string): Promise<repo.CampaignRow> {
  const row = isUuid(id) ? await repo.getCampaign(deps.db, projectId, id) : undefined;
  if (!row) throw notFound('Campaign');
  return row;
}

/** Locks a campaign of the project in `tx`. @throws AppError 404. */
async function lock(tx: Tx, projectId: string, id: string): Promise<repo.CampaignRow> {
  const row = isUuid(id) ? await repo.lockCampaign(tx, projectId, id) : undefined;
  if (!row) throw notFound('Campaign');
  return row;
}

async function withCounts(deps: Deps, c: repo.CampaignRow): Promise<CampaignOut> {
  return campaignOut(c, (await countersOf(deps, [c])).get(c.id));
}

/**
 * The stored fields of a create/replace body, checked; `row` is the campaign a replace replaces (its
 * format is kept when the body names none, content/save.ts).
 * @throws AppError 422 template syntax, MJML, a blocks image without alt text; 403 sender domain; 422 audience.
 */
async function contentOf(deps: Deps, projectId: string, input: CampaignInput, row?: repo.CampaignRow) {
  assertTemplatesParse({ subject: input.subject });
  const content = row
    ? await contentToReplace(row, input, input.subject, input.type)
    : await contentToCreate(input, input.subject, input.type);
  assertVariantsFit(content.format, input);
  await assertVerifiedSender(deps.db, projectId, input.from, deps);
  const audience = await checkAudience(deps.db, projectId, input, deps.clock.now());
  const topicId = await projectTopic(deps.db, projectId, input.topicId);
  const experiment = await checkExperiment(deps, projectId, input);
  const delivery = deliveryToStore(input.delivery);
  assertDeliveryFitsExperiment(delivery, experiment.experiment);
  return {
    ...experiment,
    delivery,
    name: input.name,
    description: input.description ?? null,
    subject: input.subject,
    ...content,
    from: input.from,
    fromName: input.fromName ?? null,
    replyTo: input.replyTo ?? null,
    type: input.type,
    audienceType: input.audienceType,
    ...audience,
    topicId,
  };
}

/**
 * A/B variants with a body of their own are HTML: in an MJML or visual-editor campaign they vary the
 * subject and sender only. @throws AppError 422 naming the variant's body.
 */
function assertVariantsFit(format: ContentFormat, input: CampaignInput): void {
  if (format === 'html') return;
  const v = input.variants?.find((x) => x.body !== undefined);
  if (v)
    throw new AppError(
      'VALIDATION_ERROR',
      `Variant ${v.key}: a variant's own body is HTML, and this campaign is ${format}`,
      {
        errors: [
          {
            field: `variants.${v.key}.body`,
            code: 'invalid_format',
            message: 'In an MJML or visual-editor campaign, variants vary the subject and the sender, not the body',
          },
        ],
      },
    );
}

/** `POST /campaigns`: a DRAFT. @throws AppError 403 unverified sender domain, 422. */
export async function createCampaign(deps: Deps, projectId: string, input: CampaignInput): Promise<CampaignOut> {
  const content = await contentOf(deps, projectId, input);
  const now = deps.clock.now();
  const row = await repo.insertCampaign(deps.db, {
    id: newId(),
    projectId,
    ...content,
    status: 'DRAFT',
    createdAt: now,
    updatedAt: now,
  });
  return campaignOut(row);
}

export async function getCampaign(deps: Deps, projectId: string, id: string): Promise<CampaignOut> {
  return withCounts(deps, await loadCampaign(deps, projectId, id));
}

/**
 * `GET /campaigns` offset envelope, counters of the page in one aggregate.
 * @throws AppError 400 BAD_REQUEST for an unknown `status`.
 */
export async function listCampaigns(deps: Deps, projectId: string, q: ListCampaignsQuery) {
  if (q.status !== undefined && !(CAMPAIGN_STATUSES as readonly string[]).includes(q.status)) {
    throw new AppError('BAD_REQUEST', `Unknown status "${q.status}"; use one of ${CAMPAIGN_STATUSES.join(', ')}`);
  }
  const { rows, total } = await repo.listCampaigns(deps.db, projectId, q);
  const counts = await countersOf(deps, rows);
  return {
    data: rows.map((r) => campaignOut(r, counts.get(r.id))),
    page: q.page,
    pageSize: q.pageSize,
    total,
    totalPages: Math.ceil(total / q.pageSize),
  };
}

const editable = (c: repo.CampaignRow, what: string) => {
  if (c.status !== 'DRAFT' && c.status !== 'SCHEDULED') {
    throw new AppError('CONFLICT', `A ${c.status} campaign cannot be ${what}; only DRAFT and SCHEDULED campaigns can`);
  }
};

/** `PUT /campaigns/:id`: full replace of a DRAFT or SCHEDULED campaign (its schedule is kept). @throws 404, 409, 403, 422. */
export async function replaceCampaign(
  deps: Deps,
  projectId: string,
  id: string,
  input: CampaignInput,
): Promise<CampaignOut> {
  const current = await loadCampaign(deps, projectId, id);
  const content = await contentOf(deps, projectId, input, current);
  const row = await deps.db.transaction(async (tx) => {
    editable(await lock(tx, projectId, id), 'changed');
    return repo.updateCampaign(tx, projectId, id, { ...content, updatedAt: deps.clock.now() });
  });
  return campaignOut(row!);
}

/** `DELETE /campaigns/:id`: 409 while SENDING; a schedule is removed. */
export async function deleteCampaign(deps: Deps, projectId: string, id: string): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const c = await lock(tx, projectId, id);
    if (c.status === 'SENDING') {
      throw new AppError('CONFLICT', 'The campaign is being sent; cancel it before deleting it', {
        suggestion: 'POST /campaigns/:id/cancel first.',
      });
    }
    await removeJob(tx, fanoutKey(id));
    await repo.deleteCampaign(tx, projectId, id);
  });
}

/** `POST /campaigns/:id/duplicate`: a new DRAFT "<name> (copy)" with the content and audience. */
export async function duplicateCampaign(deps: Deps, projectId: string, id: string): Promise<CampaignOut> {
  const c = await loadCampaign(deps, projectId, id);
  const now = deps.clock.now();
  const row = await repo.insertCampaign(deps.db, {
    id: newId(),
    projectId,
    name: `${c.name} (copy)`,
    description: c.description,
    subject: c.subject,
    body: c.body,
    format: c.format,
    source: c.source,
    blocks: c.blocks,
    from: c.from,
    fromName: c.fromName,
    replyTo: c.replyTo,
    type: c.type,
    audienceType: c.audienceType,
    audienceCondition: c.audienceCondition,
    segmentId: c.segmentId,
    topicId: c.topicId,
    variants: c.variants,
    experiment: c.experiment,
    delivery: c.delivery,
    status: 'DRAFT',
    createdAt: now,
    updatedAt: now,
  });
  return campaignOut(row);
}

/** `scheduledFor` of the send body: null = now; a Date; @throws AppError 400 when it does not parse. */
export function parseScheduledFor(v: unknown): Date | null {
  if (v === undefined || v === null) return null;
  const d = typeof v === 'string' && v.trim() ? new Date(v) : typeof v === 'number' ? new Date(v) : null;
  if (!d || Number.isNaN(d.getTime()) || Math.abs(d.getTime()) > 8.64e15) {
    throw new AppError('BAD_REQUEST', 'scheduledFor must be a date (ISO 8601, e.g. 2030-01-01T09:00:00Z)', {
      details: { scheduledFor: v },
    });
  }
  return d;
}

/**
 * `POST /campaigns/:id/send`. From DRAFT or SCHEDULED:
 * a future `scheduledFor` → SCHEDULED with a `campaign:<id>` job at that time (replacing an earlier
 * schedule); none or a past one → SENDING now. The billing cap is checked against the audience size.
 * @throws AppError 404; 409 from other states; 400 bad date; 403 sender no longer verified; 403
 * SENDING_PAUSED at a critical bounce or complaint rate (projects/health.ts); 422 audience; 429
 * BILLING_LIMIT_EXCEEDED.
 */
export async function sendCampaign(deps: Deps, projectId: string, id: string, scheduledFor: unknown) {
  const when = parseScheduledFor(scheduledFor);
  const row = await deps.db.transaction(async (tx) => {
    const c = await lock(tx, projectId, id);
    if (c.status !== 'DRAFT' && c.status !== 'SCHEDULED') {
      throw new AppError('CONFLICT', `A ${c.status} campaign cannot be sent; only DRAFT and SCHEDULED campaigns can`);
    }
    for (const from of sendersOf(c)) await assertVerifiedSender(tx, projectId, from, deps);
    const now = deps.clock.now();
    await assertMarketingNotPaused(tx, projectId, now);
    await assertWithinLimit(tx, projectId, 'campaigns', await countRecipients(tx, c, now), now);
    if (when && when > now) {
      await enqueue(tx, fanoutCampaignJob, { campaignId: id }, { jobKey: fanoutKey(id), runAt: when });
      return repo.updateCampaign(tx, projectId, id, { status: 'SCHEDULED', scheduledFor: when, updatedAt: now });
    }
    // Sending now: a past date given is kept as asked; none clears an earlier schedule.
    const scheduled = await repo.updateCampaign(tx, projectId, id, { scheduledFor: when });
    return startSending(deps, tx, scheduled!, now, true);
  });
  const c = row!;
  return {
    data: { id: c.id, name: c.name, status: c.status, scheduledFor: c.scheduledFor?.toISOString() ?? null },
    message:
      c.status === 'SCHEDULED'
        ? `Campaign scheduled for ${c.scheduledFor!.toISOString()}`
        : `Campaign is being sent to ${c.totalRecipients} recipient${c.totalRecipients === 1 ? '' : 's'}`,
  };
}

/** `POST /campaigns/:id/cancel`: SCHEDULED or SENDING → CANCELLED (see {@link cancelSending}). @throws 404, 409. */
export async function cancelCampaign(deps: Deps, projectId: string, id: string): Promise<CampaignOut> {
  const row = await deps.db.transaction(async (tx) => {
    const c = await lock(tx, projectId, id);
    if (c.status !== 'SCHEDULED' && c.status !== 'SENDING') {
      throw new AppError(
        'CONFLICT',
        `A ${c.status} campaign cannot be cancelled; only SCHEDULED and SENDING campaigns can`,
      );
    }
    return cancelSending(deps, tx, c, deps.clock.now());
  });
  return withCounts(deps, row);
}

/** Rates of {@link campaignStats}: share in percent, two decimals; 0 when nothing was sent. */
const pct = rate;

/**
 * `GET /campaigns/:id/stats`: counts from the campaign's emails (figures.ts: live, or a snapshot at
 * most 30 s old past 50,000 recipients; `asOf` says when) and rates in percent:
 * deliveryRate = delivered / sent, openRate and clickRate = opened / delivered and clicked / delivered
 * (sent when the transport reports no delivery), bounceRate = bounced / (sent + bounced).
 * `deliveredCount` counts mail an SMTP relay accepted as delivered (Plunk's meaning); the
 * `confirmed*` fields count only what the feedback loop confirmed, and `deliveryReports` says whether
 * any confirmation arrived at all (never with a plain SMTP relay or the outbox).
 */
export async function campaignStats(deps: Deps, projectId: string, id: string) {
  const c = await loadCampaign(deps, projectId, id);
  const { counts: k, asOf, experiment, variants } = await figuresOf(deps, c);
  const base = k.delivered || k.sent;
  return {
    campaignId: c.id,
    status: c.status,
    totalRecipients: c.totalRecipients,
    emails: k.total,
    pendingCount: k.pending,
    sentCount: k.sent,
    deliveredCount: k.delivered,
    openedCount: k.opened,
    clickedCount: k.clicked,
    bouncedCount: k.bounced,
    complainedCount: k.complained,
    failedCount: k.failed,
    suppressedCount: k.suppressed,
    deliveryRate: pct(k.delivered, k.sent),
    confirmedDeliveredCount: k.confirmedDelivered,
    confirmedDeliveryRate: pct(k.confirmedDelivered, k.sent),
    deliveryReports: k.confirmedDelivered > 0,
    openRate: pct(k.opened, base),
    clickRate: pct(k.clicked, base),
    humanOpenedCount: k.humanOpened ?? 0,
    humanClickedCount: k.humanClicked ?? 0,
    humanOpenRate: pct(k.humanOpened ?? 0, base),
    humanClickRate: pct(k.humanClicked ?? 0, base),
    bounceRate: pct(k.bounced, k.sent + k.bounced),
    asOf,
    experiment,
    variants,
  };
}
