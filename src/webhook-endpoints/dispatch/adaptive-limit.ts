/**
 * How many deliveries one endpoint gets at once: its configured `concurrency` while the receiver keeps
 * up, less when it says or shows that it does not (additive increase, multiplicative decrease, the
 * rule TCP congestion control uses, RFC 5681, applied to a receiver's capacity).
 *
 * - An overload answer (429 Too Many Requests or 503 Service Unavailable, RFC 9110 §15.5.20 and
 *   RFC 6585 §4) or a timed-out attempt halves the limit.
 * - A success slower than {@link SLOW_FACTOR} times the endpoint's usual latency (and than
 *   {@link SLOW_FLOOR_MS}) lowers it by one.
 * - At most one cut per {@link CUT_INTERVAL_MS}: the attempts already in flight when the receiver
 *   began to struggle report it together, and count as one signal.
 * - After as many prompt successes in a row as the current limit (about one round of them), it rises
 *   by one, up to the configured value.
 * - Other failures (a 4xx or 500, a refused connection) say nothing about load and change nothing.
 * The limit never falls below 1: a struggling endpoint still gets one delivery at a time, and its
 * failed attempts wait by the retry schedule.
 */
export class AdaptiveLimit {
  /** Deliveries allowed in flight now (1 … the configured value). */
  current: number;
  private max: number;
  private streak = 0;
  private usualMs: number | null = null;
  private lastCutAt = -Infinity;

  /** `max`: the endpoint's configured concurrency (≥ 1). */
  constructor(max: number) {
    this.max = Math.max(1, max);
    this.current = this.max;
  }

  /** The configured value changed (an API update): the limit follows it down at once, up by the usual rule. */
  setMax(max: number): void {
    this.max = Math.max(1, max);
    this.current = Math.min(this.current, this.max);
  }

  /**
   * Feeds one attempt's outcome. `status`: the HTTP status, null when none came; `latencyMs`: the
   * attempt's duration; `timedOut`: it hit the attempt's time limit; `now`: a monotonic clock in ms.
   */
  observe(o: { status: number | null; latencyMs: number; timedOut: boolean }, now: number): void {
    if (o.timedOut || o.status === 429 || o.status === 503) return this.cut(Math.floor(this.current / 2), now);
    if (o.status === null || o.status < 200 || o.status >= 300) return;
    if (this.usualMs !== null && o.latencyMs > Math.max(SLOW_FLOOR_MS, SLOW_FACTOR * this.usualMs))
      return this.cut(this.current - 1, now);
    // The usual latency follows healthy answers only (an exponentially weighted mean).
    this.usualMs = this.usualMs === null ? o.latencyMs : this.usualMs + 0.1 * (o.latencyMs - this.usualMs);
    if (++this.streak >= this.current && this.current < this.max) {
      this.current++;
      this.streak = 0;
    }
  }

  private cut(to: number, now: number): void {
    this.streak = 0;
    if (now - this.lastCutAt < CUT_INTERVAL_MS) return;
    this.lastCutAt = now;
    this.current = Math.max(1, Math.min(this.current, to));
  }
}

/** A success this many times slower than the endpoint's usual latency is a sign of strain. */
export const SLOW_FACTOR = 4;
/** …and only past this many milliseconds (a 5 ms receiver answering in 30 ms is not struggling). */
export const SLOW_FLOOR_MS = 1000;
/** At most one cut of the limit per this many milliseconds. */
export const CUT_INTERVAL_MS = 1000;
