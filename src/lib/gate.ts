/**
 * At most `limit` tasks at once; the others wait in arrival order. For work whose memory grows with
 * how many run together (parsing received messages), so that the number of clients does not decide it.
 */
export class Gate {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  /** Runs `task` when a place is free; resolves or rejects with its outcome. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running += 1;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next)
        next(); // the place passes on directly
      else this.running -= 1;
    }
  }
}
