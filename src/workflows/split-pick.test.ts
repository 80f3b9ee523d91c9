import { describe, expect, it } from 'vitest';
import { pickSplitBranch, splitBucket } from './split-pick.js';

// The SPLIT picker over 1,000 fixed execution ids (a fixed seed: the same ids every run), checked
// against the weights with a chi-square test. Pure: no database.
const STEP = '0190aaaa-0000-7000-8000-00000000000a';
const executionIds = Array.from(
  { length: 1000 },
  (_, i) => `0190bbbb-${(i >> 16).toString(16).padStart(4, '0')}-7000-8000-${i.toString(16).padStart(12, '0')}`,
);

/** Pearson's chi-square of `counts` against the shares `weights` (summing to 100) of `n`. */
function chiSquare(counts: Record<string, number>, weights: Record<string, number>, n: number): number {
  return Object.entries(weights).reduce((sum, [k, w]) => {
    const expected = (n * w) / 100;
    return sum + (expected ? ((counts[k] ?? 0) - expected) ** 2 / expected : 0);
  }, 0);
}

const countPicks = (branches: Array<{ key: string; weight: number }>, ids = executionIds) => {
  const counts: Record<string, number> = {};
  for (const id of ids) {
    const k = pickSplitBranch(branches, splitBucket(id, STEP));
    counts[k] = (counts[k] ?? 0) + 1;
  }
  return counts;
};

// Critical values of the chi-square distribution at p = 0.001 by degrees of freedom (k − 1).
const CRITICAL_0_001: Record<number, number> = { 1: 10.83, 2: 13.82, 3: 16.27, 4: 18.47 };

describe('SPLIT branch picker', () => {
  it('sends about the configured share down each branch (chi-square over 1,000 executions)', () => {
    const cases: Array<Record<string, number>> = [
      { A: 50, B: 50 },
      { A: 50, B: 30, C: 20 },
      { A: 10, B: 20, C: 30, D: 25, E: 15 },
    ];
    for (const weights of cases) {
      const branches = Object.entries(weights).map(([key, weight]) => ({ key, weight }));
      const counts = countPicks(branches);
      const x2 = chiSquare(counts, weights, executionIds.length);
      expect(x2, JSON.stringify({ weights, counts })).toBeLessThan(CRITICAL_0_001[branches.length - 1]);
    }
  });

  it('would notice a picker that ignores the weights', () => {
    // The counts of a 50/50 split read against 90/10 weights: the test above must be able to fail.
    const counts = countPicks([
      { key: 'A', weight: 50 },
      { key: 'B', weight: 50 },
    ]);
    expect(chiSquare(counts, { A: 90, B: 10 }, executionIds.length)).toBeGreaterThan(CRITICAL_0_001[1]);
  });

  it('picks the same branch for the same execution and step, and maps buckets to cumulative weights', () => {
    const branches = [
      { key: 'A', weight: 50 },
      { key: 'B', weight: 30 },
      { key: 'C', weight: 20 },
    ];
    expect(splitBucket(executionIds[7], STEP)).toBe(splitBucket(executionIds[7], STEP));
    expect(splitBucket(executionIds[7], STEP)).toBeGreaterThanOrEqual(0);
    expect(splitBucket(executionIds[7], STEP)).toBeLessThan(100);
    expect([0, 49, 50, 79, 80, 99].map((b) => pickSplitBranch(branches, b))).toEqual(['A', 'A', 'B', 'B', 'C', 'C']);
    // A branch of weight 0 is never taken.
    expect(
      countPicks([
        { key: 'off', weight: 0 },
        { key: 'on', weight: 100 },
      ]),
    ).toEqual({ on: 1000 });
    expect(() => pickSplitBranch([{ key: 'A', weight: 40 }], 40)).toThrow(/sum to 40/);
  });
});
