import { describe, expect, it } from 'vitest';
import { AdaptiveLimit, CUT_INTERVAL_MS, SLOW_FLOOR_MS } from './adaptive-limit.js';

const ok = (latencyMs = 20) => ({ status: 200, latencyMs, timedOut: false });

describe('AdaptiveLimit', () => {
  it('starts at the configured concurrency and halves on 429, 503 and timeouts, once per interval, never below 1', () => {
    const l = new AdaptiveLimit(8);
    expect(l.current).toBe(8);
    l.observe({ status: 429, latencyMs: 5, timedOut: false }, 0);
    expect(l.current).toBe(4);
    // The attempts in flight with it report the same overload: one cut.
    l.observe({ status: 503, latencyMs: 5, timedOut: false }, 10);
    expect(l.current).toBe(4);
    l.observe({ status: 503, latencyMs: 5, timedOut: false }, CUT_INTERVAL_MS);
    expect(l.current).toBe(2);
    l.observe({ status: null, latencyMs: 10_000, timedOut: true }, 2 * CUT_INTERVAL_MS);
    expect(l.current).toBe(1);
    l.observe({ status: 429, latencyMs: 5, timedOut: false }, 3 * CUT_INTERVAL_MS);
    expect(l.current).toBe(1);
  });

  it('lowers by one on a success much slower than usual, and not for a fast receiver that is merely slower', () => {
    const l = new AdaptiveLimit(8);
    for (let i = 0; i < 5; i++) l.observe(ok(20), i);
    l.observe(ok(200), 10); // 10× usual but under the floor: no strain
    expect(l.current).toBe(8);
    l.observe(ok(SLOW_FLOOR_MS + 500), 20);
    expect(l.current).toBe(7);
  });

  it('climbs back one step per round of prompt successes, up to the configured value', () => {
    const l = new AdaptiveLimit(4);
    l.observe({ status: 429, latencyMs: 5, timedOut: false }, 0);
    expect(l.current).toBe(2);
    l.observe(ok(), 1);
    expect(l.current).toBe(2);
    l.observe(ok(), 2);
    expect(l.current).toBe(3);
    for (let i = 0; i < 3; i++) l.observe(ok(), 3 + i);
    expect(l.current).toBe(4);
    for (let i = 0; i < 20; i++) l.observe(ok(), 10 + i);
    expect(l.current).toBe(4);
  });

  it('ignores failures that say nothing about load (500, 404, refused connections)', () => {
    const l = new AdaptiveLimit(6);
    l.observe({ status: 500, latencyMs: 5, timedOut: false }, 0);
    l.observe({ status: 404, latencyMs: 5, timedOut: false }, 0);
    l.observe({ status: null, latencyMs: 1, timedOut: false }, 0);
    expect(l.current).toBe(6);
  });

  it('follows a lowered configuration at once', () => {
    const l = new AdaptiveLimit(8);
    l.setMax(3);
    expect(l.current).toBe(3);
    l.setMax(5);
    expect(l.current).toBe(3);
  });
});
