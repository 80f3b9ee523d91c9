import type pg from 'pg';
import { forceUnlockWorkers, staleLockOwners } from './graphile.js';

// Advisory-lock class of "this Graphile worker id is alive" locks; any constant unique to Pigeon.
const LIVENESS_CLASS = 0x70776b72; // 'pwkr'
/** A lock older than this whose owner holds no liveness lock belongs to a dead process. */
export const STALE_AFTER_SECONDS = 10;

/** Waits between attempts to take the liveness locks back after the connection was lost, in ms. */
const RECONNECT_DELAYS_MS = [250, 1000, 2000, 5000];

/**
 * Holds one session advisory lock per Graphile worker id of this process, on one dedicated
 * connection. A process that dies (SIGKILL, OOM, lost machine) loses its connection and with it the
 * locks, which is how other workers tell its jobs from a live worker's (see {@link unlockDeadWorkers}).
 *
 * A live process can lose the connection too (a restarted database, a network cut): its locks are gone
 * and other processes may take its running jobs over. Then the locks are taken back on a new
 * connection, retried until it works, and {@link whenHeld} holds back new jobs until they are: a job
 * started meanwhile could be run by another process as well. Jobs already running go on; their writes
 * are conditional (an email's claim token, see src/emails/delivery/outcomes.ts), so the run that lost its claim
 * changes nothing.
 */
export class LivenessLocks {
  private client?: pg.PoolClient;
  private pending: Promise<void> = Promise.resolve();
  private readonly ids = new Set<string>();
  private lost = false;
  private closed = false;
  private waiters: Array<() => void> = [];

  constructor(
    private readonly pool: pg.Pool,
    private readonly onLost: (err: Error) => void = () => undefined,
  ) {}

  /** Takes the lock of `workerId` (and keeps it across reconnections); calls are serialised. */
  hold(workerId: string): Promise<void> {
    this.ids.add(workerId);
    return this.serial(async () => {
      const client = await this.connection();
      await client.query('select pg_advisory_lock($1::int, hashtext($2))', [LIVENESS_CLASS, workerId]);
    });
  }

  /** True while every lock is held (false from a lost connection until they are taken back). */
  get held(): boolean {
    return !this.lost;
  }

  /** Resolves at once while the locks are held, else when they are taken back (or on release). */
  whenHeld(): Promise<void> {
    if (!this.lost || this.closed) return Promise.resolve();
    return new Promise((r) => this.waiters.push(r));
  }

  /** Releases every lock by closing the connection. */
  async release(): Promise<void> {
    this.closed = true;
    await this.pending.catch(() => undefined);
    // Destroy rather than return to the pool: session advisory locks would otherwise stay held.
    this.client?.release(true);
    this.client = undefined;
    this.wake();
  }

  private serial(fn: () => Promise<void>): Promise<void> {
    const next = this.pending.then(fn);
    this.pending = next.catch(() => undefined);
    return next;
  }

  private async connection(): Promise<pg.PoolClient> {
    if (this.client) return this.client;
    const client = await this.pool.connect();
    // Without a listener, a checked-out client's connection error would be thrown as an uncaught
    // 'error' event; with it, the loss is noticed and repaired.
    client.on('error', (err) => this.connectionLost(client, err));
    this.client = client;
    return client;
  }

  private connectionLost(client: pg.PoolClient, err: Error): void {
    if (this.client !== client || this.closed) return;
    this.client = undefined;
    this.lost = true;
    client.release(err);
    this.onLost(err);
    void this.serial(() => this.retake());
  }

  private async retake(): Promise<void> {
    for (let i = 0; !this.closed; i++) {
      try {
        const client = await this.connection();
        for (const id of this.ids)
          await client.query('select pg_advisory_lock($1::int, hashtext($2))', [LIVENESS_CLASS, id]);
        this.lost = false;
        this.wake();
        return;
      } catch {
        this.client?.release(true);
        this.client = undefined;
        await new Promise((r) => setTimeout(r, RECONNECT_DELAYS_MS[Math.min(i, RECONNECT_DELAYS_MS.length - 1)]));
      }
    }
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }
}

/**
 * Unlocks the jobs and queues of Graphile workers that are gone: their lock is older than
 * {@link STALE_AFTER_SECONDS} and nobody holds their liveness lock. Without this, jobs of a killed
 * worker wait for Graphile's 4-hour lock timeout; with it they run again within seconds on any live
 * worker (job handlers are idempotent: they take rows with conditional updates).
 * @returns the worker ids unlocked.
 */
export async function unlockDeadWorkers(pool: pg.Pool): Promise<string[]> {
  const client = await pool.connect();
  try {
    const dead: string[] = [];
    for (const id of await staleLockOwners(client, STALE_AFTER_SECONDS)) {
      const probe = await client.query<{ free: boolean }>(
        'select pg_try_advisory_lock($1::int, hashtext($2)) as free',
        [LIVENESS_CLASS, id],
      );
      if (probe.rows[0].free) {
        await client.query('select pg_advisory_unlock($1::int, hashtext($2))', [LIVENESS_CLASS, id]);
        dead.push(id);
      }
    }
    if (dead.length) await forceUnlockWorkers(client, dead);
    return dead;
  } finally {
    client.release();
  }
}
