import type pg from 'pg';

// Advisory-lock class of "this Graphile worker id is alive" locks; any constant unique to Pigeon.
const LIVENESS_CLASS = 0x70776b72; // 'pwkr'
/** A lock older than this whose owner holds no liveness lock belongs to a dead process. */
export const STALE_AFTER_SECONDS = 10;

/**
 * Holds one session advisory lock per Graphile worker id of this process, on one dedicated
 * connection. A process that dies (SIGKILL, OOM, lost machine) loses its connection and with it the
 * locks, which is how other workers tell its jobs from a live worker's (see {@link unlockDeadWorkers}).
 */
export class LivenessLocks {
  private client?: pg.PoolClient;
  private pending = Promise.resolve();

  constructor(private readonly pool: pg.Pool) {}

  /** Takes the lock of `workerId`; calls are serialised on the one connection. */
  hold(workerId: string): Promise<void> {
    this.pending = this.pending.then(async () => {
      this.client ??= await this.pool.connect();
      await this.client.query('select pg_advisory_lock($1::int, hashtext($2))', [LIVENESS_CLASS, workerId]);
    });
    return this.pending;
  }

  /** Releases every lock by closing the connection. */
  async release(): Promise<void> {
    await this.pending.catch(() => undefined);
    // Destroy rather than return to the pool: session advisory locks would otherwise stay held.
    this.client?.release(true);
    this.client = undefined;
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
    const { rows } = await client.query<{ id: string }>(`
      select distinct locked_by as id from graphile_worker._private_jobs
        where locked_by is not null and locked_at < now() - make_interval(secs => $1)
      union
      select distinct locked_by from graphile_worker._private_job_queues
        where locked_by is not null and locked_at < now() - make_interval(secs => $1)`, [STALE_AFTER_SECONDS]);
    const dead: string[] = [];
    for (const { id } of rows) {
      const probe = await client.query<{ free: boolean }>('select pg_try_advisory_lock($1::int, hashtext($2)) as free', [LIVENESS_CLASS, id]);
      if (probe.rows[0].free) {
        await client.query('select pg_advisory_unlock($1::int, hashtext($2))', [LIVENESS_CLASS, id]);
        dead.push(id);
      }
    }
    if (dead.length) await client.query('select graphile_worker.force_unlock_workers($1::text[])', [dead]);
    return dead;
  } finally {
    client.release();
  }
}
