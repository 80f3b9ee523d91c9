import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type pg from 'pg';
import { safeAgents } from '../../lib/safe-http.js';
import type { Deps } from '../../deps.js';
import { DELIVERIES_CHANNEL, recordAttempts, type AttemptRecord } from '../deliveries.state.js';
import { claimEndpoints, releaseLeases, renewLeases, type LeasedEndpoint } from './dispatch.repo.js';
import { EndpointPump, type PumpContext } from './pump.js';

/** How long a lease lasts unless renewed, in ms: a dead worker's endpoints wait this long for another. */
export const LEASE_MS = 30_000;
/** Renewal period of the leases of running pumps, in ms. */
const RENEW_MS = 10_000;
/**
 * Period of the look for due deliveries, in ms: retries falling due, endpoints of a worker that died,
 * and anything a lost notification left behind.
 */
export const LOOK_MS = 2_000;
/** Attempts recorded per statement, at most. */
const WRITE_BATCH = 500;
/** Waits between attempts to LISTEN again after the connection was lost, in ms. */
const RECONNECT_DELAYS_MS = [250, 1000, 2000, 5000];

/**
 * The event webhook dispatcher of a worker process: it delivers the PENDING rows of
 * `webhook_deliveries` (queued by fanout.ts in the statements that write events), one
 * {@link EndpointPump} per endpoint it holds, each with its own concurrency, so a slow or failing
 * endpoint never delays another's deliveries and no delivery costs a job of the worker's queue.
 *
 * Wake-up: it LISTENs on {@link DELIVERIES_CHANNEL} (one pooled connection), which the insert trigger
 * notifies at commit with the endpoint's id, and looks every {@link LOOK_MS} for due deliveries of
 * endpoints nobody holds (retries falling due, a dead worker's endpoints, a notification lost with a
 * connection).
 *
 * Several worker processes share the endpoints by leases (`webhook_endpoints.lease_owner/until`): one
 * process at a time delivers for an endpoint, so its concurrency limit and per-subject order hold across
 * processes. A pump's lease is renewed while it runs and left to lapse when it ends; a stopping
 * worker releases its leases. Delivery is at least once: a worker that dies between an attempt and its
 * record leaves the delivery PENDING, and whoever holds the endpoint next sends it again (same
 * `webhook-id`, which receivers deduplicate on).
 *
 * Connections to receivers are kept alive between attempts (lib/safe-http.ts `safeAgents`), so a busy
 * endpoint costs no TCP or TLS handshake per delivery.
 *
 * Attempts are recorded in batches: one transaction for all the attempts that ended while the previous
 * one was committing (deliveries.state.ts `recordAttempts`).
 */
export class WebhookDispatcher {
  /** This process's name in `lease_owner`. */
  readonly owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly pumps = new Map<string, EndpointPump>();
  private readonly toClaim = new Set<string>();
  private claiming = false;
  private lookAgain = false;
  private listener?: pg.PoolClient;
  private timers: NodeJS.Timeout[] = [];
  private stopped = false;
  private writes: Array<{ rec: AttemptRecord; done: (err?: unknown) => void }> = [];
  private writing = false;

  private readonly pumpContext: PumpContext;

  constructor(private readonly deps: Pick<Deps, 'db' | 'pool' | 'config' | 'clock' | 'secret' | 'log'>) {
    this.pumpContext = {
      deps,
      agents: safeAgents(deps.config.WEBHOOK_ALLOW_PRIVATE_ADDRESSES),
      record: (rec) =>
        new Promise<void>((resolve, reject) => {
          this.writes.push({ rec, done: (err) => (err ? reject(err) : resolve()) });
          void this.write();
        }),
      ended: (endpointId) => void this.pumps.delete(endpointId),
    };
  }

  /** Starts listening and looking; resolves once the first look is done. */
  async start(): Promise<void> {
    await this.listen(0);
    this.timers.push(
      setInterval(() => void this.look(), LOOK_MS),
      setInterval(() => void this.renew(), RENEW_MS),
    );
    for (const t of this.timers) t.unref();
    await this.look();
  }

  /** Endpoints delivered for now, with their attempts in flight and current limit (metrics, tests). */
  get state(): Array<{ endpointId: string; active: number; limit: number }> {
    return [...this.pumps.values()].map((p) => ({ endpointId: p.id, active: p.active, limit: p.limit.current }));
  }

  /**
   * Stops: no new attempts; waits for those in flight (each at most attempt.ts `TIMEOUT_MS`) to be
   * recorded, then releases this process's leases so another worker takes its endpoints at once.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    const l = this.listener;
    this.listener = undefined;
    if (l) {
      l.removeAllListeners('notification');
      l.release(true);
    }
    const ids = [...this.pumps.keys()];
    await Promise.all([...this.pumps.values()].map((p) => p.stop()));
    await releaseLeases(this.deps.db, this.owner, ids).catch((err: unknown) =>
      this.deps.log.error({ err }, 'releasing webhook endpoint leases failed'),
    );
    this.pumpContext.agents.destroy();
  }

  private async listen(attempt: number): Promise<void> {
    if (this.stopped) return;
    try {
      const client = await this.deps.pool.connect();
      client.on('notification', (n) => n.payload && this.wake(n.payload));
      client.on('error', (err) => {
        this.deps.log.warn({ err }, 'the webhook dispatcher lost its LISTEN connection');
        if (this.listener !== client) return;
        this.listener = undefined;
        client.release(err);
        void this.listen(0);
      });
      await client.query(`listen ${DELIVERIES_CHANNEL}`);
      this.listener = client;
      if (attempt) void this.look();
    } catch (err) {
      this.deps.log.warn({ err }, 'the webhook dispatcher cannot LISTEN; looking periodically meanwhile');
      const delay = RECONNECT_DELAYS_MS[Math.min(attempt, RECONNECT_DELAYS_MS.length - 1)];
      setTimeout(() => void this.listen(attempt + 1), delay).unref();
    }
  }

  /** A delivery was queued for `endpointId`. */
  private wake(endpointId: string): void {
    if (this.stopped) return;
    const pump = this.pumps.get(endpointId);
    if (pump) return pump.poke();
    this.toClaim.add(endpointId);
    void this.claim();
  }

  /** The periodic look: due deliveries of endpoints nobody holds; this process's pumps read again. */
  private async look(): Promise<void> {
    if (this.stopped) return;
    for (const p of this.pumps.values()) p.poke();
    this.lookAgain = true;
    await this.claim();
  }

  /** Claims what {@link wake} and {@link look} asked for, one statement at a time. */
  private async claim(): Promise<void> {
    if (this.claiming) return;
    this.claiming = true;
    try {
      while (!this.stopped && (this.toClaim.size || this.lookAgain)) {
        const ids = [...this.toClaim].filter((id) => !this.pumps.has(id));
        this.toClaim.clear();
        const look = this.lookAgain;
        this.lookAgain = false;
        const got: LeasedEndpoint[] = [];
        if (ids.length) got.push(...(await claimEndpoints(this.deps.db, this.owner, LEASE_MS, ids)));
        if (look)
          got.push(...(await claimEndpoints(this.deps.db, this.owner, LEASE_MS, null, [...this.pumps.keys(), ...ids])));
        for (const e of got) {
          const running = this.pumps.get(e.id);
          if (running) running.poke();
          else this.pumps.set(e.id, new EndpointPump(this.pumpContext, e));
        }
      }
    } catch (err) {
      this.deps.log.error({ err }, 'claiming webhook endpoints failed');
    } finally {
      this.claiming = false;
    }
  }

  private async renew(): Promise<void> {
    if (this.stopped || !this.pumps.size) return;
    try {
      const ids = [...this.pumps.keys()];
      const kept = new Map((await renewLeases(this.deps.db, this.owner, LEASE_MS, ids)).map((e) => [e.id, e]));
      for (const id of ids) {
        const pump = this.pumps.get(id);
        const e = kept.get(id);
        if (!pump) continue;
        if (e) pump.update(e);
        // Deleted, or taken over after this process's lease lapsed: the other holder delivers now.
        else void pump.stop();
      }
    } catch (err) {
      this.deps.log.error({ err }, 'renewing webhook endpoint leases failed');
    }
  }

  private async write(): Promise<void> {
    if (this.writing) return;
    this.writing = true;
    while (this.writes.length) {
      const batch = this.writes.splice(0, WRITE_BATCH);
      try {
        await recordAttempts(
          this.deps.db,
          batch.map((b) => b.rec),
        );
        for (const b of batch) b.done();
      } catch (err) {
        for (const b of batch) b.done(err);
      }
    }
    this.writing = false;
  }
}
