import { sql, type SQL } from 'drizzle-orm';
import { splitData, TIME_ZONE_KEY } from '../contacts/contact-data.js';
import { nextOpening } from '../campaigns/delivery-window.js';
import { isTimeZone } from '../projects/time-zone.js';
import { timeZoneOf } from '../projects/projects.repo.js';
import { setSubscription } from '../contacts/subscription.js';
import type { Deps } from '../deps.js';
import { isMarketing, isMarketingEligible, mailTopic, MARKETING_SKIPPED } from '../emails/eligibility.js';
import { queueEmailDeferred } from '../emails/queue/queue.js';
import { assertWithinLimit } from '../billing/billing.service.js';
import { AppError } from '../http/errors.js';
import { newId } from '../lib/ids.js';
import { executePrepared } from '../db/prepared.js';
import type { BillingLimits } from '../db/schema.js';
import type { TemplateType } from '../db/schema/messaging.js';
import { marketingPause } from '../projects/health.js';
import { contactWebhookEvent, queueWebhookDeliveries } from '../webhook-endpoints/fanout.js';
import { conditionStep, splitStep, switchStep, type Choice } from './steps.branch.js';
import { UNIT_SECONDS, type StepConfigOf } from './steps.config.js';
import type { ExecutionRow, StepRow } from './workflows.repo.js';
import type { StoredTranslations } from '../content/stored.js';
import { translationFor } from '../content/translations.js';
import type { Tx } from '../db/tx.js';

/** Why a waiting step goes on: its delay ran out, the awaited event came, or the wait timed out. */
export type ResumeOutcome = 'DELAY' | 'EVENT' | 'TIMEOUT';

/** What one step did; the engine records it and moves the execution (engine.ts moveOn). */
export type StepResult = (
  | { kind: 'next'; match?: { branch?: string }; output?: Record<string, unknown> }
  | { kind: 'wait'; outcome: Exclude<ResumeOutcome, 'EVENT'>; resumeAt?: Date; output?: Record<string, unknown> }
  | { kind: 'exit'; reason: string; output?: Record<string, unknown> }
  | { kind: 'fail'; error: string; output?: Record<string, unknown> }
) &
  StepWrites;

/**
 * What a step leaves for the engine to write with its record (engine.ts moveOn), so the step costs
 * no statement of its own: `write`, a data-modifying statement run as a CTE of the statement that
 * records the step (e.g. its email row), and `jobs`, job specs (worker/jobs.ts `jobSpec`) the engine
 * adds with the chain's other jobs in one Graphile call before the transaction commits.
 */
export interface StepWrites {
  write?: SQL;
  jobs?: SQL[];
}

export interface StepCtx {
  deps: Deps;
  tx: Tx;
  exec: ExecutionRow;
  step: StepRow;
  now: Date;
  /**
   * When set, a SEND_EMAIL step's PENDING email joins this list instead of queueing its own
   * `emails:send` job: the caller (workflows/dispatch.ts, a transaction of many starts) adds one
   * `emails:send-batch` job for the list in the same transaction.
   */
  mails?: string[];
  /** When set, what SEND_EMAIL steps read, shared by the steps of a transaction of many starts. */
  prefetch?: SendPrefetch;
}

/**
 * What the SEND_EMAIL steps of a transaction of many starts (workflows/dispatch.ts) read once instead
 * of once a step: the transaction's contacts, read by the caller in it before the steps run, and each
 * template with the project's caps, read by the first step that sends it. A contact missing from
 * `contacts` is read by its step, as without a prefetch.
 */
export interface SendPrefetch {
  /** The contacts the transaction's executions are for (id, address, raw `data.locale`), by id. */
  contacts: Map<string, { id: string; email: string; locale: string | null }>;
  /** By `<projectId>:<templateId>`: the template (null when it no longer exists) and the project's caps. */
  templates: Map<string, Pick<SendInputs, 'tpl' | 'limits'>>;
}

type ContactRow = {
  id: string;
  email: string;
  subscribed: boolean;
  snoozed_until: string | null;
  data: Record<string, unknown>;
};

export async function loadContact(tx: Pick<Tx, 'execute'>, contactId: string): Promise<ContactRow | undefined> {
  return (
    await tx.execute<ContactRow>(
      sql`select id, email, subscribed, snoozed_until, data from contacts where id = ${contactId}`,
    )
  ).rows[0];
}

/**
 * The zone a contact's wait reads its window in: the contact's `timezone` when Intl knows it, else the
 * project's `time_zone`.
 */
async function contactZone(ctx: StepCtx): Promise<string> {
  const contact = ctx.exec.contactId ? await loadContact(ctx.tx, ctx.exec.contactId) : undefined;
  const tz = contact?.data?.[TIME_ZONE_KEY];
  if (typeof tz === 'string' && isTimeZone(tz)) return tz;
  return timeZoneOf(ctx.tx, ctx.exec.projectId);
}

/** Runs the step of `ctx` inside the engine's transaction (every type but WEBHOOK). */
export async function runStepHandler(ctx: StepCtx): Promise<StepResult> {
  // Stored configs were validated on save (steps.config.ts): each case reads its type's shape.
  const config = ctx.step.config;
  switch (ctx.step.type) {
    case 'SEND_EMAIL':
      return sendEmail(ctx, config as StepConfigOf<'SEND_EMAIL'>);
    case 'DELAY': {
      const c = config as StepConfigOf<'DELAY'>;
      const resumeAt =
        c.until === 'window' && c.window
          ? nextOpening(ctx.now, await contactZone(ctx), c.window)
          : new Date(ctx.now.getTime() + c.amount! * UNIT_SECONDS[c.unit!] * 1000);
      return { kind: 'wait', outcome: 'DELAY', resumeAt, output: { resumeAt: resumeAt.toISOString() } };
    }
    case 'WAIT_FOR_EVENT': {
      const c = config as StepConfigOf<'WAIT_FOR_EVENT'>;
      const resumeAt = c.timeout ? new Date(ctx.now.getTime() + c.timeout * 1000) : undefined;
      return {
        kind: 'wait',
        outcome: 'TIMEOUT',
        resumeAt,
        output: { eventName: c.eventName, timeoutAt: resumeAt?.toISOString() ?? null },
      };
    }
    case 'CONDITION':
      return chosen(await conditionStep(ctx, config as StepConfigOf<'CONDITION'>));
    case 'SWITCH':
      return chosen(await switchStep(ctx, config as StepConfigOf<'SWITCH'>));
    case 'SPLIT':
      return chosen(splitStep(ctx, config as StepConfigOf<'SPLIT'>));
    case 'UPDATE_CONTACT':
      return updateContact(ctx, config as StepConfigOf<'UPDATE_CONTACT'>);
    case 'EXIT':
      return { kind: 'exit', reason: (config as StepConfigOf<'EXIT'>).reason || 'Reached an EXIT step' };
    case 'TRIGGER':
      return { kind: 'next' };
    default:
      return { kind: 'fail', error: `Step type ${ctx.step.type} cannot run here` };
  }
}

/** A branching step's choice (steps.branch.ts) as the engine's result: the edge of its branch, or a failure. */
function chosen(c: Choice): StepResult {
  return 'error' in c
    ? { kind: 'fail', error: c.error }
    : { kind: 'next', match: { branch: c.branch }, output: c.output };
}

/**
 * SEND_EMAIL: an `emails` row (source WORKFLOW) and its `emails:send` job, queued the one way mail is
 * (emails.repo.ts `queueEmailDeferred`), both left to the engine's statement that records the step.
 * Variables: the trigger event's data, then the execution context (contact data is added at render).
 * MARKETING templates skip unsubscribed, snoozed and suppressed recipients, and those not in the
 * step's topic (`config.topicId`, else the template's); past the
 * project's monthly `workflows` cap the step FAILS, and so does a MARKETING one while the project's
 * sender health pauses marketing mail (error `SENDING_PAUSED: …`).
 */
async function sendEmail(
  ctx: StepCtx,
  c: { templateId: string; recipient?: { type: 'CONTACT' | 'CUSTOM'; email?: string }; topicId?: string },
): Promise<StepResult> {
  const { tx, exec } = ctx;
  const { tpl, contact, limits } = await sendInputsOf(ctx, ctx.step.templateId ?? c.templateId);
  if (!tpl) return { kind: 'fail', error: 'The template of this step no longer exists' };
  if (!contact) return { kind: 'fail', error: 'The contact no longer exists' };
  const custom = c.recipient?.type === 'CUSTOM' && c.recipient.email;
  const to = custom ? c.recipient!.email!.trim().toLowerCase() : contact.email;
  const topicId = mailTopic(tpl.type, c.topicId ?? tpl.topicId);
  const skip = isMarketing(tpl.type) && !(await isMarketingEligible(tx, contact.id, ctx.now, to, topicId));
  if (!skip && isMarketing(tpl.type)) {
    // A critical bounce or complaint rate pauses MARKETING mail (projects/health.ts); the step fails
    // with the reason rather than sending, transactional templates still go.
    const paused = await marketingPause(tx, exec.projectId, ctx.now);
    if (paused) return { kind: 'fail', error: `${paused.code}: ${paused.message}` };
  }
  if (!skip) {
    // The monthly cap of workflow mail ends the execution as FAILED.
    try {
      await assertWithinLimit(tx, exec.projectId, 'workflows', 1, ctx.now, limits);
    } catch (err) {
      if (err instanceof AppError && err.code === 'BILLING_LIMIT_EXCEEDED') return { kind: 'fail', error: err.message };
      throw err;
    }
  }
  const emailId = newId();
  // The template's translation of the contact's language (content/translations.ts), else its own words.
  const tr = translationFor(tpl.translations, contact.locale);
  const queued = queueEmailDeferred({
    id: emailId,
    projectId: exec.projectId,
    contactId: contact.id,
    toEmail: to,
    toName: null,
    fromEmail: tpl.from,
    fromName: tr ? (tr.t.fromName ?? tpl.fromName) : tpl.fromName,
    replyTo: tpl.replyTo,
    subject: tr?.t.subject ?? tpl.subject,
    body: tr?.t.body ?? tpl.body,
    locale: tr?.tag ?? null,
    headers: {},
    variables: { ...exec.triggerData, ...exec.context },
    type: tpl.type,
    sourceType: 'WORKFLOW',
    templateId: tpl.id,
    workflowExecutionId: exec.id,
    workflowStepId: ctx.step.id,
    topicId,
    status: skip ? 'SUPPRESSED' : 'PENDING',
    error: skip ? MARKETING_SKIPPED : null,
    createdAt: ctx.now,
    updatedAt: ctx.now,
  });
  if (queued.job && ctx.mails) {
    ctx.mails.push(emailId);
    return { kind: 'next', output: { emailId, to, suppressed: skip }, write: queued.insert };
  }
  return {
    kind: 'next',
    output: { emailId, to, suppressed: skip },
    write: queued.insert,
    jobs: queued.job ? [queued.job] : [],
  };
}

export interface SendInputs {
  tpl: {
    id: string;
    from: string;
    fromName: string | null;
    replyTo: string | null;
    subject: string;
    body: string;
    type: TemplateType;
    topicId: string | null;
    translations: StoredTranslations | null;
  } | null;
  contact: { id: string; email: string; locale: string | null } | null;
  limits: BillingLimits;
}

/** {@link sendInputs}, from `ctx.prefetch` when it holds them (and into it when it does not). */
async function sendInputsOf(ctx: StepCtx, templateId: string): Promise<SendInputs> {
  const { exec, prefetch } = ctx;
  const key = `${exec.projectId}:${templateId}`;
  const contact = prefetch?.contacts.get(exec.contactId);
  const known = prefetch?.templates.get(key);
  if (contact && known) return { ...known, contact };
  const inputs = await sendInputs(ctx.tx, exec.projectId, templateId, exec.contactId);
  prefetch?.templates.set(key, { tpl: inputs.tpl, limits: inputs.limits });
  return inputs;
}

/**
 * What a SEND_EMAIL step reads, in one prepared statement: the step's template (null when it was
 * deleted), the contact (null when deleted) and the project's monthly caps.
 */
async function sendInputs(tx: Tx, projectId: string, templateId: string, contactId: string): Promise<SendInputs> {
  const r = await executePrepared<SendInputs>(
    tx,
    sql`select
      (select json_build_object('id', t.id, 'from', t."from", 'fromName', t.from_name, 'replyTo', t.reply_to,
        'subject', t.subject, 'body', t.body, 'type', t.type, 'topicId', t.topic_id, 'translations', t.translations) from templates t where t.project_id = p.id and t.id = ${templateId}) as tpl,
      (select json_build_object('id', c.id, 'email', c.email, 'locale', c.data->>'locale') from contacts c where c.id = ${contactId} and c.project_id = p.id) as contact,
      p.billing_limits as limits
    from projects p where p.id = ${projectId}`,
  );
  return r.rows[0] ?? { tpl: null, contact: null, limits: { transactional: null, campaigns: null, workflows: null } };
}

/**
 * UPDATE_CONTACT: `updates` under the contact data rules (splitData: null deletes, '' ignored,
 * reserved keys dropped), and subscribe/unsubscribe with its `contact.*` event when the state flips,
 * one causation level deeper than this execution (causation.ts).
 */
async function updateContact(
  ctx: StepCtx,
  c: { updates?: Record<string, unknown>; subscriptionAction?: string },
): Promise<StepResult> {
  const { tx, exec } = ctx;
  const patch = splitData(c.updates, { invalidTimeZone: 'drop' });
  const sub = c.subscriptionAction === 'subscribe' ? true : c.subscriptionAction === 'unsubscribe' ? false : null;
  const r = await tx.execute<{ subscribed: boolean; id: string; email: string; data: Record<string, unknown> }>(sql`
    update contacts c set
      data = (c.data || ${JSON.stringify(patch.set)}::jsonb) - array(select jsonb_array_elements_text(${JSON.stringify(patch.unset)}::jsonb)),
      updated_at = ${ctx.now.toISOString()}::timestamptz
    where c.id = ${exec.contactId}
    returning c.subscribed, c.id, c.email, c.data`);
  const updated = r.rows[0];
  if (!updated) return { kind: 'fail', error: 'The contact no longer exists' };
  // The step is one write of the contact: one contact.updated, announced here with the final state.
  const moved =
    sub === null
      ? []
      : await setSubscription(tx, exec.projectId, [exec.contactId], sub, ctx.now, {
          origin: { source: 'workflow' },
          eventData: { source: 'workflow', workflowId: exec.workflowId, executionId: exec.id },
          causationDepth: exec.causationDepth + 1,
          announce: false,
        });
  const row = moved.length ? { ...updated, subscribed: moved[0].subscribed } : updated;
  await queueWebhookDeliveries(tx, exec.projectId, [contactWebhookEvent('contact.updated', row, ctx.now)]);
  return { kind: 'next', output: { set: Object.keys(patch.set), unset: patch.unset, subscribed: row.subscribed } };
}
