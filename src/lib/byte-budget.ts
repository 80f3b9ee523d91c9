/**
 * A process-wide budget of bytes held in memory for input that has not been processed yet: request
 * bodies being read and SMTP messages being received. Each reader takes bytes as they arrive and gives
 * them back when it is done; a reader that cannot take what it needs is refused (HTTP 503, SMTP 451)
 * instead of growing the heap, so memory stays bounded under any number of concurrent clients.
 */
export class ByteBudget {
  private used = 0;

  /** @param limit the bytes that may be held at once. */
  constructor(readonly limit: number) {}

  /** Bytes currently taken. */
  get inUse(): number {
    return this.used;
  }

  /** Takes `n` bytes when they fit. @returns whether they were taken (nothing is taken otherwise). */
  tryTake(n: number): boolean {
    if (n <= 0) return true;
    if (this.used + n > this.limit) return false;
    this.used += n;
    return true;
  }

  /** Gives back `n` bytes taken before. */
  give(n: number): void {
    this.used = Math.max(0, this.used - n);
  }
}

/**
 * Bytes of unprocessed input one process holds at most: a few of the largest requests the documented
 * limits allow (a `/v1/send` with 10 MB of attachments is about 14 MB of JSON) at once. Parsing can
 * hold two to three times the raw bytes for a moment, which the 1 GB old-space limit of `npm start`
 * still carries.
 */
export const INPUT_BUDGET_BYTES = 64 * 1024 * 1024;

/** The budget every HTTP body and SMTP message of this process draws from. */
export const inputBudget = new ByteBudget(INPUT_BUDGET_BYTES);
