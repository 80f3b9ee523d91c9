/**
 * Group commit: concurrent callers' writes of the same kind run as one set-based statement, so that
 * under load N requests cost one round trip and one commit instead of N. Each caller still gets its
 * own answer only after the statement that holds its row has committed (reply-after-commit holds).
 *
 * There is no timer and no added wait: an item is sent at once while its key has fewer than
 * `maxInFlightPerKey` statements running and all keys fewer than `maxInFlight` (a lone request goes
 * alone, as it would without this); only when those slots are busy do items queue, and each finished
 * statement sends what queued in the meantime as the next batch. The batch size follows the load.
 *
 * Batches never mix keys (a key is typically the project, so one statement stays within one tenant's
 * rows), never hold two items with the same `distinct` value (an `INSERT … ON CONFLICT DO UPDATE`
 * cannot touch one row twice in a statement; the second waits for the next batch, so the order of a
 * caller's writes to one row is kept), and stop at `maxBatch` items or `maxBytes` of `size`.
 * Keys take turns: a busy key cannot hold the slots while another key's items wait.
 *
 * When a batch of several items fails (a deadlock, one item's bad value), each of its items is run
 * again alone, so one bad item fails only its own caller and the others still commit. A batch of one
 * that fails rejects its caller with the statement's error. The items to run again go back to the
 * head of their key's queue, in the order they were submitted, and take slots like any batch: a
 * failure never puts more than `maxInFlight` statements (or `maxInFlightPerKey` of a key) in flight,
 * which is what the caps protect (the pool's connections, a tenant's share of them).
 */
export interface GroupCommitOptions<I, O> {
  /** Statements of this kind running at once, at most (≥ 1). */
  maxInFlight: number;
  /**
   * Statements of one key running at once, at most (≥ 1). Small, so that a busy key's items queue
   * into large batches (the fewer statements, the fewer round trips and commits), and so that a key
   * whose statements wait (on a lock another transaction of that tenant holds) takes only its own slots.
   */
  maxInFlightPerKey: number;
  /** Items per statement, at most. */
  maxBatch: number;
  /** Sum of `size` per statement, at most (a single larger item still goes, alone). */
  maxBytes: number;
  /** The batch an item may join: items of different keys never share a statement. */
  key(item: I): string;
  /** Items with the same value never share a statement. */
  distinct(item: I): string;
  /** The item's weight against `maxBytes` (e.g. its JSON length). */
  size(item: I): number;
  /** Writes `items` (all of `key`, distinct) in one statement; returns one result per item, in order. */
  run(key: string, items: I[]): Promise<O[]>;
}

interface Entry<I, O> {
  item: I;
  /** Submission order: retried items rejoin their queue where they stood, ahead of later writes to their row. */
  seq: number;
  /** Set when the item's batch failed: it is run again in a statement of its own. */
  alone?: boolean;
  resolve(o: O): void;
  reject(e: unknown): void;
}

/** See the module comment. */
export class GroupCommit<I, O> {
  private readonly queues = new Map<string, Array<Entry<I, O>>>();
  private inFlight = 0;
  private readonly busyByKey = new Map<string, number>();
  private seq = 0;

  constructor(private readonly opts: GroupCommitOptions<I, O>) {}

  /**
   * Queues `item` and resolves with its result once the statement that wrote it has committed.
   * @throws (rejects with) the statement's error when the item, run alone, fails.
   */
  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      const key = this.opts.key(item);
      let q = this.queues.get(key);
      if (!q) this.queues.set(key, (q = []));
      q.push({ item, seq: this.seq++, resolve, reject });
      this.pump();
    });
  }

  /** Starts batches while slots are free: one per key per pass, keys in turn, none past its own cap. */
  private pump(): void {
    for (const [key, queue] of [...this.queues]) {
      if (this.inFlight >= this.opts.maxInFlight) return;
      const busy = this.busyByKey.get(key) ?? 0;
      if (busy >= this.opts.maxInFlightPerKey) continue;
      const batch = this.take(queue);
      // The key goes to the back of the line if it still has items, so keys take turns.
      this.queues.delete(key);
      if (queue.length) this.queues.set(key, queue);
      this.inFlight++;
      this.busyByKey.set(key, busy + 1);
      void this.write(key, batch).finally(() => {
        this.inFlight--;
        const left = (this.busyByKey.get(key) ?? 1) - 1;
        if (left) this.busyByKey.set(key, left);
        else this.busyByKey.delete(key);
        this.pump();
      });
    }
  }

  /** Removes from `queue` the next batch: in order, distinct, within the item and byte caps. */
  private take(queue: Array<Entry<I, O>>): Array<Entry<I, O>> {
    const batch: Array<Entry<I, O>> = [];
    const seen = new Set<string>();
    let bytes = 0;
    for (let i = 0; i < queue.length && batch.length < this.opts.maxBatch;) {
      const e = queue[i];
      // An item of a failed batch goes alone, and the batch before it stops there (order kept).
      if (e.alone) {
        if (!batch.length) batch.push(...queue.splice(i, 1));
        break;
      }
      const d = this.opts.distinct(e.item);
      const size = this.opts.size(e.item);
      if (batch.length && bytes + size > this.opts.maxBytes) break;
      // A value already in this batch: this item and every later one of the same value wait (order kept).
      if (seen.has(d)) {
        i++;
        continue;
      }
      seen.add(d);
      bytes += size;
      batch.push(e);
      queue.splice(i, 1);
    }
    return batch;
  }

  private async write(key: string, batch: Array<Entry<I, O>>): Promise<void> {
    try {
      const out = await this.opts.run(
        key,
        batch.map((e) => e.item),
      );
      batch.forEach((e, i) => e.resolve(out[i]));
    } catch (err) {
      if (batch.length === 1) {
        batch[0].reject(err);
        return;
      }
      // Nothing of the batch committed: each item again on its own, so only a bad one fails. They
      // queue rather than run here, so that they wait for slots (the caller frees this one, then pumps).
      this.requeue(
        key,
        batch.map((e) => ({ ...e, alone: true })),
      );
    }
  }

  /**
   * Puts `entries` back into `key`'s queue by submission order (ahead of what was submitted after
   * them); a key still in line keeps its turn, one that had emptied its queue joins at the back.
   */
  private requeue(key: string, entries: Array<Entry<I, O>>): void {
    const queue = this.queues.get(key) ?? [];
    this.queues.set(
      key,
      [...entries, ...queue].sort((x, y) => x.seq - y.seq),
    );
  }
}

/** What {@link groupCommitPerPool} reads of a process's dependencies: the handle and its pool's size. */
interface PoolHandle {
  db: object;
  pool: { options: { max?: number } };
}

/**
 * A getter of one {@link GroupCommit} per database handle (the API's pool; tests build several), made
 * on first use with `options(deps)` and `maxInFlight` = the pool's connections divided by `poolDivisor`
 * (at least 1): the share of the pool that kind of statement may hold, so every other route keeps
 * connections however busy it gets.
 */
export function groupCommitPerPool<D extends PoolHandle, I, O>(
  poolDivisor: number,
  options: (deps: D) => Omit<GroupCommitOptions<I, O>, 'maxInFlight'>,
): (deps: D) => GroupCommit<I, O> {
  const made = new WeakMap<object, GroupCommit<I, O>>();
  return (deps) => {
    let c = made.get(deps.db);
    if (!c) {
      const maxInFlight = Math.max(1, Math.floor((deps.pool.options.max ?? 10) / poolDivisor));
      c = new GroupCommit<I, O>({ ...options(deps), maxInFlight });
      made.set(deps.db, c);
    }
    return c;
  };
}
