import { sql } from 'drizzle-orm';
import type { Deps } from '../deps.js';
import type { Tx } from '../db/tx.js';
import { enqueue } from '../worker/jobs.js';
import { figuresJob } from './campaigns.jobs.js';
import * as repo from './campaigns.repo.js';
import { experimentStats } from './experiment.stats.js';
import { languageFigures, type LanguageFigures } from './language.stats.js';

/**
 * A campaign's figures (its email counters, and an experiment's variants and holdout) as the stats,
 * the campaign and the list answer them. They are aggregates over the campaign's emails, exact and
 * live up to {@link LIVE_MAX_RECIPIENTS} recipients. Past that an aggregate costs about half a
 * second per million emails, too long for a page that polls, so such a campaign is answered from a
 * snapshot (`campaign_figures`) no older than {@link SNAPSHOT_MAX_AGE_MS}: a reader who finds it older
 * still gets it at once, and the `campaigns:figures` job (one per campaign, by its key) computes the
 * next. Only a campaign's very first read computes while the reader waits. `asOf` says when the
 * figures were counted.
 */

/** Up to this many recipients a campaign's figures are counted on every read. */
export const LIVE_MAX_RECIPIENTS = 50_000;
/** Past it, the age after which a read has the snapshot counted again (in the background). */
export const SNAPSHOT_MAX_AGE_MS = 30_000;

/** The figures of one campaign and when they were counted. */
export type CampaignFigures = {
  counts: repo.EmailCounts;
  asOf: string;
  languages?: LanguageFigures[] | null;
} & Awaited<ReturnType<typeof experimentStats>>;

const jobKey = (campaignId: string) => `campaign-figures:${campaignId}`;

/** True when the campaign's figures come from a snapshot (a started send past {@link LIVE_MAX_RECIPIENTS}). */
export function fromSnapshot(c: repo.CampaignRow): boolean {
  return c.status !== 'DRAFT' && c.status !== 'SCHEDULED' && c.totalRecipients > LIVE_MAX_RECIPIENTS;
}

/** Counts the figures now, in `db`. */
export async function countFigures(db: Tx, c: repo.CampaignRow): Promise<CampaignFigures> {
  const asOf = new Date().toISOString();
  const counts = (await repo.countEmails(db, c.projectId, [c.id])).get(c.id)!;
  return { counts, asOf, ...(await experimentStats(db, c, counts.sent)), languages: await languageFigures(db, c) };
}

/** Counts and stores the snapshot of campaign `campaignId` (the `campaigns:figures` job); gone campaigns are skipped. */
export async function refreshFigures(deps: Deps, campaignId: string): Promise<void> {
  const c = await repo.getCampaignById(deps.db, campaignId);
  if (c) await store(deps.db, c, await countFigures(deps.db, c));
}

async function store(db: Tx, c: repo.CampaignRow, f: CampaignFigures): Promise<void> {
  await db.execute(sql`insert into campaign_figures (campaign_id, data, counted_at)
    values (${c.id}::uuid, ${JSON.stringify(f)}::jsonb, ${f.asOf}::timestamptz)
    on conflict (campaign_id) do update set data = excluded.data, counted_at = excluded.counted_at`);
}

/**
 * The snapshots of `rows` (all past {@link LIVE_MAX_RECIPIENTS}): stored ones as they are, a refresh
 * queued for those older than {@link SNAPSHOT_MAX_AGE_MS}; missing ones counted now and stored.
 */
async function snapshots(deps: Deps, rows: repo.CampaignRow[]): Promise<Map<string, CampaignFigures>> {
  const out = new Map<string, CampaignFigures>();
  if (!rows.length) return out;
  const r = await deps.db.execute<{ campaign_id: string; data: CampaignFigures; stale: boolean }>(sql`
    select campaign_id, data, counted_at < now() - make_interval(secs => ${SNAPSHOT_MAX_AGE_MS / 1000}) as stale
    from campaign_figures
    where campaign_id in (select jsonb_array_elements_text(${JSON.stringify(rows.map((c) => c.id))}::jsonb)::uuid)`);
  const stale: string[] = [];
  for (const s of r.rows) {
    out.set(s.campaign_id, s.data);
    if (s.stale) stale.push(s.campaign_id);
  }
  for (const c of rows) {
    if (out.has(c.id)) continue;
    const f = await countFigures(deps.db, c);
    await store(deps.db, c, f);
    out.set(c.id, f);
  }
  for (const id of stale) await enqueue(deps.db, figuresJob, { campaignId: id }, { jobKey: jobKey(id) });
  return out;
}

/** The figures of one campaign: counted now, or its snapshot (see above). */
export async function figuresOf(deps: Deps, c: repo.CampaignRow): Promise<CampaignFigures> {
  if (!fromSnapshot(c)) return countFigures(deps.db, c);
  return (await snapshots(deps, [c])).get(c.id)!;
}

/**
 * The email counters of each campaign of `rows` that has begun sending: small ones in one aggregate,
 * the others from their snapshots (a list page answers as fast whatever its campaigns' sizes).
 */
export async function countersOf(deps: Deps, rows: repo.CampaignRow[]): Promise<Map<string, repo.EmailCounts>> {
  const started = rows.filter((r) => r.status !== 'DRAFT');
  const big = started.filter(fromSnapshot);
  const out = await repo.countEmails(
    deps.db,
    rows[0]?.projectId ?? '',
    started.filter((r) => !fromSnapshot(r)).map((r) => r.id),
  );
  for (const [id, f] of await snapshots(deps, big)) out.set(id, f.counts);
  return out;
}
