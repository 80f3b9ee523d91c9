import { groupCommitPerPool } from '../../db/group-commit.js';
import type { Deps } from '../../deps.js';
import { notFound } from '../../http/errors.js';
import { getSenderChecks, type SenderCheck } from '../emails.repo.js';

/**
 * `/v1/send`'s read before it writes (emails.repo.ts `getSenderChecks`: the project's monthly caps,
 * whether a verified domain covers the sender), batched like the writes of one-recipient sends
 * (send.single.ts): the concurrent sends of a project read their checks in one statement, one round
 * trip instead of one each. A lone check goes at once; only while the reads' slots are busy do checks
 * queue, to go together in the next. A read commits nothing, so its answer comes with its statement.
 */

interface Ask {
  projectId: string;
  fromEmail: string;
  /** Unique per ask: reads need not wait for one another as two writes to one row must. */
  seq: number;
}

let asked = 0;

/** Reads in flight: a twelfth of the pool (with the writes of send.single.ts, a quarter); a read takes a moment. */
const reader = groupCommitPerPool(12, (deps: Deps) => ({
  maxInFlightPerKey: 2,
  maxBatch: 100,
  maxBytes: 100,
  key: (a: Ask) => a.projectId,
  distinct: (a: Ask) => String(a.seq),
  size: () => 1,
  async run(projectId: string, asks: Ask[]): Promise<Array<SenderCheck | undefined>> {
    const checks = await getSenderChecks(
      deps.db,
      projectId,
      asks.map((a) => a.fromEmail),
    );
    return asks.map((_, i) => checks[i]);
  },
}));

/**
 * The {@link SenderCheck} of `fromEmail` in `projectId`, read with the project's concurrent sends' checks.
 * @throws AppError 404 when the project does not exist.
 */
export async function senderCheck(deps: Deps, projectId: string, fromEmail: string): Promise<SenderCheck> {
  const check = await reader(deps).submit({ projectId, fromEmail, seq: asked++ });
  if (!check) throw notFound('Project');
  return check;
}
