import { sql } from 'drizzle-orm';
import type { Tx } from '../../db/tx.js';
import type { EmailRow } from '../emails.repo.js';
import { recordEmailEvent } from '../email-events.js';

/**
 * Opens and clicks of delivered mail, part of the module of email status changes (outcomes.ts,
 * which re-exports this): `OPENED` and `CLICKED` move up the order as outcomes.ts describes, the raw
 * times and events as Plunk counts them, the human times only for a person's hit (machine activity
 * is judged in emails/tracking/machine.ts and handed in as a verdict).
 */

type Row = EmailRow & { was_opened: boolean };
const rowOf = (r: Record<string, unknown>): Row =>
  ({
    id: r.id,
    projectId: r.project_id,
    contactId: r.contact_id,
    messageId: r.message_id,
    toEmail: r.to_email,
    subject: r.subject,
    templateId: r.template_id,
    campaignId: r.campaign_id,
    workflowExecutionId: r.workflow_execution_id,
    sourceType: r.source_type,
    sentAt: r.sent_at == null ? null : new Date(r.sent_at as string),
    deliveredAt: r.delivered_at == null ? null : new Date(r.delivered_at as string),
    was_opened: r.was_opened,
  }) as Row;

/**
 * What a tracking hit found: `missing` (the email was deleted, or its contact was, so the hit is no
 * longer anyone's: the link answers 404 and nothing is recorded), `untracked` (the email exists but
 * was never delivered, e.g. it bounced: nothing recorded), or `recorded`.
 */
export type TrackOutcome = 'missing' | 'untracked' | 'recorded';

/** Repeated clicks of one link of one email within this many seconds record one `email.click`. */
export const CLICK_DEDUPE_SECONDS = 60;

async function untrackedOrMissing(tx: Tx, emailId: string): Promise<TrackOutcome> {
  const r = await tx.execute(sql`select 1 from emails where id = ${emailId} and contact_id is not null`);
  return r.rows.length ? 'untracked' : 'missing';
}

/**
 * Who made a tracking hit: a person (`machine: false`, `reason: null`) or a machine, and why. The
 * rules that decide it are emails/tracking/machine.ts's (this stage may not import tracking: the
 * tracking routes hand the verdict and the sweep rule in).
 */
export interface Verdict {
  machine: boolean;
  reason: string | null;
}

const HUMAN: Verdict = { machine: false, reason: null };

/** What a click of an email says toward a sweep of its links (machine.ts `SweepFacts`). */
export interface SweepFacts {
  at: Date;
  windowEnd: Date | null;
  links: number | null;
  clicked: ReadonlySet<string>;
}

/** The delivery-time link sweep rule, as machine.ts `linkSweep` implements it. */
export interface SweepRule {
  /** End of an email's sweep window from its sent and delivered times; null when never sent. */
  windowEnd(sentAt: Date | null, deliveredAt: Date | null): Date | null;
  /** True when the click may complete a sweep (worth reading what was clicked before). */
  mayBeSweep(facts: Omit<SweepFacts, 'clicked'>): boolean;
  /** The verdict on the click given every distinct URL clicked so far. */
  classify(facts: SweepFacts): Verdict;
}

/** The `machine` fields of an `email.open` / `email.click` event's data (`machineReason` only when true). */
const machineData = (v: Verdict) => (v.machine ? { machine: true, machineReason: v.reason } : { machine: false });

/**
 * The open pixel loaded: OPENED when lower in the order; `email.open` on the first open only (image
 * proxies and re-reads load the pixel again), with `machine` as `verdict` says (machine.ts).
 * `human_opened_at` is set by the first open that is not machine activity, also when an earlier
 * machine open (Apple's MPP prefetch) already wrote the event: that later human open writes no second
 * `email.open`, so the event keeps meaning "first opened" for webhooks and workflow triggers, and
 * human figures read the column. Mail that bounced, failed or was never sent is left alone.
 * Concurrent opens queue on the email's row lock, so only the first sees no earlier open.
 */
export async function recordOpen(tx: Tx, emailId: string, at: Date, verdict: Verdict): Promise<TrackOutcome> {
  const when = at.toISOString();
  const res = await tx.execute(sql`
    with prev as (select id, opened_at from emails where id = ${emailId} and contact_id is not null for update)
    update emails e set
      status = case when e.status in ('SENT', 'DELIVERED') then 'OPENED' else e.status end,
      opened_at = coalesce(e.opened_at, ${when}::timestamptz),
      human_opened_at = ${verdict.machine ? sql`e.human_opened_at` : sql`coalesce(e.human_opened_at, ${when}::timestamptz)`},
      updated_at = ${when}::timestamptz
    from prev where e.id = prev.id and e.status in ('SENT', 'DELIVERED', 'OPENED', 'CLICKED', 'COMPLAINED')
    returning e.*, (prev.opened_at is not null) as was_opened`);
  const r = res.rows[0];
  if (!r) return untrackedOrMissing(tx, emailId);
  const row = rowOf(r);
  if (!row.was_opened) await recordEmailEvent(tx, row, 'email.open', at, machineData(verdict));
  return 'recorded';
}

/** One followed tracked link, as its click token names it (render/tokens.ts `readClickToken`). */
export interface ClickedLink {
  emailId: string;
  url: string;
  /** The link's 0-based position among the email's tracked links; null for tokens older than issue 36. */
  position: number | null;
  /** How many distinct URLs the email's tracked links have; null for older tokens. */
  links: number | null;
}

/**
 * A tracked link was followed: CLICKED when lower in the order, `email.click` with `{link, position,
 * machine}` (once per link and kind, machine or human, within {@link CLICK_DEDUPE_SECONDS}: double
 * clicks and repeated scans record one, and a person's click after a scanner's still counts), and
 * `email.open` too when no open was seen yet (the pixel may have been blocked). A human click sets
 * `human_clicked_at` and, as it implies one, `human_opened_at`. Each `email.click` written is also
 * counted in `email_link_clicks` (per email and link, human or not) for the per-link reports.
 * `verdict` is the request's (machine.ts `classifyRequest`); a human click that completes a sweep of
 * every link at delivery (`sweep`, machine.ts `linkSweep`) becomes machine activity, and so does all
 * that was tracked of the email before it: its events are flagged and its human times cleared.
 * Race-safe: the first statement takes the email's row lock, held until commit, so concurrent clicks
 * of one email run one after the other and each later one's checks (a new statement, a new snapshot
 * under READ COMMITTED) see what the earlier one committed.
 */
export async function recordClick(
  tx: Tx,
  click: ClickedLink,
  at: Date,
  verdict: Verdict,
  sweep: SweepRule,
): Promise<TrackOutcome> {
  const when = at.toISOString();
  const human = !verdict.machine;
  const res = await tx.execute(sql`
    with prev as (select id, opened_at from emails where id = ${click.emailId} and contact_id is not null for update)
    update emails e set
      status = case when e.status in ('SENT', 'DELIVERED', 'OPENED') then 'CLICKED' else e.status end,
      opened_at = coalesce(e.opened_at, ${when}::timestamptz),
      clicked_at = coalesce(e.clicked_at, ${when}::timestamptz),
      human_opened_at = ${human ? sql`coalesce(e.human_opened_at, ${when}::timestamptz)` : sql`e.human_opened_at`},
      human_clicked_at = ${human ? sql`coalesce(e.human_clicked_at, ${when}::timestamptz)` : sql`e.human_clicked_at`},
      updated_at = ${when}::timestamptz
    from prev where e.id = prev.id and e.status in ('SENT', 'DELIVERED', 'OPENED', 'CLICKED', 'COMPLAINED')
    returning e.*, (prev.opened_at is not null) as was_opened`);
  const r = res.rows[0];
  if (!r) return untrackedOrMissing(tx, click.emailId);
  const row = rowOf(r);
  if (human) verdict = await sweepVerdict(tx, row, click, at, sweep);
  if (!row.was_opened) await recordEmailEvent(tx, row, 'email.open', at, machineData(verdict));
  // (project, contact, name, created_at) is the events index; the email and link narrow it further.
  const since = new Date(at.getTime() - CLICK_DEDUPE_SECONDS * 1000).toISOString();
  const recent = await tx.execute(sql`
    select 1 from events where project_id = ${row.projectId} and contact_id = ${row.contactId} and name = 'email.click'
      and created_at > ${since}::timestamptz and email_id = ${click.emailId} and data->>'link' = ${click.url}
      and coalesce(data->>'position', '') = ${click.position === null ? '' : String(click.position)}
      and coalesce((data->>'machine')::boolean, false) = ${verdict.machine} limit 1`);
  if (recent.rows.length) return 'recorded';
  await recordEmailEvent(tx, row, 'email.click', at, {
    link: click.url,
    position: click.position,
    ...machineData(verdict),
  });
  // The per-link reports' summary (db/schema/messaging.ts emailLinkClicks) counts the event just written.
  await tx.execute(sql`
    insert into email_link_clicks as l (email_id, project_id, campaign_id, workflow_step_id, position, url, clicks, human_clicks)
    values (${row.id}, ${row.projectId}, ${row.campaignId}, ${(r.workflow_step_id as string | null) ?? null},
      ${click.position}, ${click.url}, 1, ${verdict.machine ? 0 : 1})
    on conflict (email_id, (coalesce(position, -1)), (md5(url)))
    do update set clicks = l.clicks + 1, human_clicks = l.human_clicks + excluded.human_clicks`);
  return 'recorded';
}

/**
 * The verdict on a human-looking click of `row` given what was clicked before (`sweep`, machine.ts
 * `linkSweep`). On a sweep, what the email recorded so far becomes machine activity: its human
 * `email.open` / `email.click` events are flagged `link-sweep` (machine ones keep their reason), its
 * human open and click times and its links' human clicks cleared (every one of them lies in the sweep
 * window, as this click does). Webhooks already sent for those events keep what they said.
 */
async function sweepVerdict(tx: Tx, row: Row, click: ClickedLink, at: Date, sweep: SweepRule): Promise<Verdict> {
  const facts = { at, windowEnd: sweep.windowEnd(row.sentAt, row.deliveredAt), links: click.links };
  const since = row.sentAt ?? row.deliveredAt;
  if (!since || !sweep.mayBeSweep(facts)) return HUMAN;
  const res = await tx.execute<{ link: string }>(sql`
    select distinct data->>'link' as link from events
    where project_id = ${row.projectId} and contact_id = ${row.contactId} and name = 'email.click'
      and created_at >= ${since.toISOString()}::timestamptz and email_id = ${row.id}`);
  const clicked = new Set([...res.rows.map((x) => x.link), click.url]);
  const verdict = sweep.classify({ ...facts, clicked });
  if (!verdict.machine) return verdict;
  await tx.execute(sql`update emails set human_opened_at = null, human_clicked_at = null where id = ${row.id}`);
  await tx.execute(sql`update email_link_clicks set human_clicks = 0 where email_id = ${row.id}`);
  await tx.execute(sql`
    update events set data = data || ${JSON.stringify(machineData(verdict))}::jsonb
    where project_id = ${row.projectId} and contact_id = ${row.contactId} and name in ('email.open', 'email.click')
      and created_at >= ${since.toISOString()}::timestamptz and email_id = ${row.id}
      and (data->>'machine') is distinct from 'true'`);
  return verdict;
}
