import type pg from 'pg';
import type { BreakerState } from '../db/schema.js';

/** Breaker settings: failures that open it, the window they count in, the back-off before a probe. */
export interface BreakerOptions {
  /** Consecutive transport failures within {@link windowMs} that open the breaker (default 5). */
  threshold: number;
  /** How long failures count together, ms (default 60,000). */
  windowMs: number;
  /** The first back-off before a half-open probe, ms (default 30,000); doubled at each reopening, up to 10 minutes. */
  retryMs: number;
  /** A probe not settled after this long (its process died) lets another one through, ms (default 120,000). */
  probeStaleMs: number;
  /** How long a process trusts its copy of a breaker's row, ms (default 1,000). */
  cacheMs: number;
}

export const DEFAULT_BREAKER: BreakerOptions = {
  threshold: 5,
  windowMs: 60_000,
  retryMs: 30_000,
  probeStaleMs: 120_000,
  cacheMs: 1_000,
};

const MAX_RETRY_MS = 10 * 60_000;

/** A breaker's row as read (transport_health); a missing row is closed with no failure. */
export interface BreakerRow {
  state: BreakerState;
  failures: number;
  firstFailureAt: Date | null;
  openedAt: Date | null;
  retryAt: Date | null;
  openings: number;
  lastError: string | null;
  updatedAt: Date | null;
}

const CLOSED: BreakerRow = {
  state: 'closed',
  failures: 0,
  firstFailureAt: null,
  openedAt: null,
  retryAt: null,
  openings: 0,
  lastError: null,
  updatedAt: null,
};

/** What a breaker lets a mail do: go, go as the one half-open probe, or go to the next transport. */
export type Admission = 'send' | 'probe' | 'skip';

/** A change of a breaker that its project hears of (transport.degraded / transport.recovered). */
export interface BreakerChange {
  transport: string;
  projectId: string | null;
  change: 'degraded' | 'recovered';
  error: string | null;
  retryAt: Date | null;
}

interface Raw {
  state: BreakerState;
  failures: number;
  first_failure_at: Date | null;
  opened_at: Date | null;
  retry_at: Date | null;
  openings: number;
  last_error: string | null;
  updated_at: Date | null;
}

const fromRaw = (r: Raw | undefined): BreakerRow =>
  r
    ? {
        state: r.state,
        failures: r.failures,
        firstFailureAt: r.first_failure_at,
        openedAt: r.opened_at,
        retryAt: r.retry_at,
        openings: r.openings,
        lastError: r.last_error,
        updatedAt: r.updated_at,
      }
    : CLOSED;

/**
 * Circuit breakers of transports, their state in PostgreSQL (`transport_health`) so that every
 * worker process sees the same one (issue 37). Closed: mail goes. After {@link BreakerOptions.threshold}
 * consecutive transport failures (connection refused or timed out, 421, a refused login: see
 * failures.ts) within the window it opens: the route's mail goes to the next transport. After the
 * back-off one process takes the half-open probe (a conditional update, so one at a time): its mail
 * goes, and its outcome closes the breaker or opens it again with the back-off doubled.
 * A closed breaker with no failure costs no write; its row is read at most once a {@link BreakerOptions.cacheMs}.
 */
export class Breakers {
  private cache = new Map<string, { row: BreakerRow; at: number }>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly now: () => Date,
    private readonly opts: BreakerOptions = DEFAULT_BREAKER,
  ) {}

  /** The breaker of `transport`, from this process's copy when fresh enough. */
  async read(transport: string): Promise<BreakerRow> {
    const hit = this.cache.get(transport);
    const t = this.now().getTime();
    if (hit && t - hit.at < this.opts.cacheMs) return hit.row;
    const r = await this.pool.query<Raw>('select * from transport_health where transport = $1', [transport]);
    return this.keep(transport, fromRaw(r.rows[0]));
  }

  /** Whether a mail may go through `transport` now (see the class). */
  async admit(transport: string): Promise<Admission> {
    const row = await this.read(transport);
    if (row.state === 'closed') return 'send';
    const now = this.now();
    const due =
      row.state === 'open'
        ? row.retryAt !== null && row.retryAt <= now
        : row.updatedAt !== null && now.getTime() - row.updatedAt.getTime() >= this.opts.probeStaleMs;
    if (!due) return 'skip';
    // One process wins the probe; the others keep skipping until it settles.
    const r = await this.pool.query<Raw>(
      `update transport_health set state = 'half_open', updated_at = $2
       where transport = $1 and ((state = 'open' and retry_at <= $2) or (state = 'half_open' and updated_at <= $3))
       returning *`,
      [transport, now, new Date(now.getTime() - this.opts.probeStaleMs)],
    );
    if (r.rows[0]) {
      this.keep(transport, fromRaw(r.rows[0]));
      return 'probe';
    }
    this.cache.delete(transport);
    return 'skip';
  }

  /** A mail went through `transport`: a failing or open breaker closes. @returns the change, if it recovered. */
  async success(transport: string, projectId: string | null): Promise<BreakerChange | null> {
    const row = await this.read(transport);
    if (row.state === 'closed' && row.failures === 0) return null;
    const now = this.now();
    const r = await this.pool.query<Raw & { was: BreakerState }>(
      `with prev as (select transport, state from transport_health where transport = $1 for update)
       update transport_health h set state = 'closed', failures = 0, first_failure_at = null, retry_at = null,
         openings = 0, updated_at = $2
       from prev where h.transport = prev.transport
       returning h.*, prev.state as was`,
      [transport, now],
    );
    const updated = r.rows[0];
    this.keep(transport, fromRaw(updated));
    return updated && updated.was !== 'closed'
      ? { transport, projectId, change: 'recovered', error: null, retryAt: null }
      : null;
  }

  /**
   * `transport` failed as a transport (never a recipient's refusal): counted, and the breaker opens at
   * the threshold, or again after a failed probe.
   * @returns the change when the breaker opened from closed (a reopening after a probe is no news).
   */
  async failure(transport: string, projectId: string | null, error: string): Promise<BreakerChange | null> {
    const now = this.now();
    const client = await this.pool.connect();
    try {
      await client.query('begin');
      await client.query(
        `insert into transport_health (transport, project_id, updated_at) values ($1, $2, $3) on conflict do nothing`,
        [transport, projectId, now],
      );
      const cur = fromRaw(
        (await client.query<Raw>('select * from transport_health where transport = $1 for update', [transport]))
          .rows[0],
      );
      const inWindow = cur.firstFailureAt !== null && now.getTime() - cur.firstFailureAt.getTime() < this.opts.windowMs;
      const failures = cur.state === 'closed' && !inWindow ? 1 : cur.failures + 1;
      const firstFailureAt = cur.state === 'closed' && !inWindow ? now : (cur.firstFailureAt ?? now);
      const opens = cur.state === 'half_open' || (cur.state === 'closed' && failures >= this.opts.threshold);
      const openings = opens ? cur.openings + 1 : cur.openings;
      const retryAt = opens
        ? new Date(now.getTime() + Math.min(MAX_RETRY_MS, this.opts.retryMs * 2 ** (openings - 1)))
        : cur.retryAt;
      const state: BreakerState = opens ? 'open' : cur.state;
      const r = await client.query<Raw>(
        `update transport_health set state = $2, failures = $3, first_failure_at = $4, opened_at = $5, retry_at = $6,
           openings = $7, last_error = $8, updated_at = $9
         where transport = $1 returning *`,
        [
          transport,
          state,
          failures,
          firstFailureAt,
          opens && cur.state === 'closed' ? now : cur.openedAt,
          retryAt,
          openings,
          error.slice(0, 500),
          now,
        ],
      );
      await client.query('commit');
      this.keep(transport, fromRaw(r.rows[0]));
      return opens && cur.state === 'closed'
        ? { transport, projectId, change: 'degraded', error: error.slice(0, 500), retryAt }
        : null;
    } catch (err) {
      await client.query('rollback').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  private keep(transport: string, row: BreakerRow): BreakerRow {
    this.cache.set(transport, { row, at: this.now().getTime() });
    return row;
  }
}
