import { createHash } from 'node:crypto';

/**
 * The branch a SPLIT step sends an execution down. Not random at run time: the choice is a hash of
 * (execution id, step id) mapped to a bucket 0..99 and read against the branches' cumulative weights,
 * so a replayed or retried step (and a test with fixed ids) picks the same branch every time, and the
 * shares still follow the weights because execution ids (UUIDv7) hash uniformly.
 */

/** One SPLIT branch as the picker reads it: its key and its integer weight (the weights sum to 100). */
export interface WeightedBranch {
  key: string;
  weight: number;
}

/**
 * The bucket 0..99 of an execution at a SPLIT step: the first 32 bits of
 * SHA-256(`<executionId>:<stepId>`) modulo 100 (the modulo bias, 96 / 2^32, is negligible).
 */
export function splitBucket(executionId: string, stepId: string): number {
  const digest = createHash('sha256').update(`${executionId}:${stepId}`).digest();
  return digest.readUInt32BE(0) % 100;
}

/**
 * The branch whose cumulative weight range holds `bucket` (0..99): with weights A 50, B 30, C 20,
 * buckets 0–49 go to A, 50–79 to B, 80–99 to C; a branch of weight 0 is never taken.
 * @throws Error when the weights do not cover the bucket (they sum to less than `bucket` + 1): the
 *   config check (steps.config.ts) makes them sum to 100, so this means a stored config was bypassed.
 */
export function pickSplitBranch(branches: readonly WeightedBranch[], bucket: number): string {
  let upTo = 0;
  for (const b of branches) {
    upTo += b.weight;
    if (bucket < upTo) return b.key;
  }
  throw new Error(`SPLIT weights sum to ${upTo}, below bucket ${bucket}`);
}
