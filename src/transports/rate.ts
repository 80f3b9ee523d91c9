/**
 * Adaptive sending rate of one transport in one process (issue 37), by AIMD as TCP adapts its window:
 * the rate starts at the transport's `maxPerSecond` (SES: the account's `MaxSendRate`; none: unlimited
 * until the first throttling answer, then half the rate measured in the last second), is halved on
 * each throttling answer (at most once a second, so one burst of refusals halves it once) and raised
 * by a tenth of its ceiling (or of itself, with no ceiling) after each minute without one. Each worker
 * process adapts on its own, as TCP flows do; `maxPerSecond` is the ceiling of each process.
 */
export class AdaptiveRate {
  /** Mails a second now; Infinity: unlimited. */
  private rate: number;
  private next = 0;
  private lastCut = -Infinity;
  private lastRaise: number;
  private sentThisSecond = 0;
  private secondStart = 0;
  private lastSecondCount = 0;

  /**
   * @param ceiling the highest rate, mails a second (`maxPerSecond`); undefined: none.
   * @param now the clock, ms.
   */
  constructor(
    private ceiling: number | undefined,
    private readonly now: () => number = Date.now,
    private readonly floor = 0.2,
  ) {
    this.rate = ceiling ?? Infinity;
    this.lastRaise = now();
  }

  /** The rate now, mails a second (Infinity when unlimited). */
  current(): number {
    this.raiseIfClean();
    return this.rate;
  }

  /** A ceiling learnt later (SES `GetAccount`); a lower one takes effect at once. */
  setCeiling(ceiling: number): void {
    this.ceiling = ceiling;
    this.rate = Math.min(this.rate, ceiling);
  }

  /** Waits for this mail's turn at the current rate, then counts it. */
  async acquire(): Promise<void> {
    const rate = this.current();
    const t = this.now();
    if (t - this.secondStart >= 1000) {
      this.lastSecondCount = this.sentThisSecond;
      this.sentThisSecond = 0;
      this.secondStart = t;
    }
    this.sentThisSecond++;
    if (rate === Infinity) return;
    const at = Math.max(t, this.next);
    this.next = at + 1000 / rate;
    if (at > t) await new Promise((r) => setTimeout(r, at - t));
  }

  /** A throttling answer: halve the rate (once a second at most). @returns the new rate. */
  throttled(): number {
    const t = this.now();
    this.lastRaise = t;
    if (t - this.lastCut < 1000) return this.rate;
    this.lastCut = t;
    const base = this.rate === Infinity ? Math.max(this.lastSecondCount, this.sentThisSecond, 2) : this.rate;
    this.rate = Math.max(this.floor, base / 2);
    return this.rate;
  }

  private raiseIfClean(): void {
    const t = this.now();
    if (this.rate === Infinity || t - this.lastRaise < 60_000) return;
    const minutes = Math.floor((t - this.lastRaise) / 60_000);
    this.lastRaise += minutes * 60_000;
    const step = (this.ceiling ?? this.rate) / 10;
    this.rate =
      this.ceiling === undefined ? this.rate + step * minutes : Math.min(this.ceiling, this.rate + step * minutes);
  }
}

/**
 * True when an answer says "too fast": a 421 or 4xx naming a rate, too many messages or connections,
 * or a throttle (RFC 3463 4.7.x policy codes are used for both), or SES's throttling errors. Such a mail
 * is retried later through the same route; the transport's rate halves, its breaker is not touched.
 */
export function isThrottling(err: unknown): boolean {
  const e = (err ?? {}) as {
    responseCode?: number;
    response?: string;
    message?: string;
    name?: string;
    throttled?: boolean;
  };
  if (e.throttled !== undefined) return e.throttled;
  const text = `${e.response ?? ''} ${e.message ?? ''}`;
  if (e.responseCode && e.responseCode >= 400 && e.responseCode < 500)
    return /too many|rate limit|throttl|slow down|exceeded|try again later.*(rate|volume)/i.test(text);
  return false;
}
