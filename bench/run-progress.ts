/**
 * The progress `npm run bench` (bench/run.ts) shows while its benches run. On a terminal: one line
 * rewritten in place (`\r`), a bar, the stage n/N, its name and the time spent in it and in all. Into
 * a file or a pipe (no TTY): one plain line when a stage starts and one when it ends, nothing between,
 * so a CI log stays readable.
 */

/** Where progress goes: `process.stdout`, or anything with the same two members. */
export interface ProgressOut {
  isTTY?: boolean;
  write(s: string): unknown;
}

export interface Progress {
  /** Stage `n` (1-based) of the total begins; `expectSeconds` paces the bar within it (never past its end). */
  start(n: number, name: string, expectSeconds: number): void;
  /** Redraws the terminal line (call it about once a second); nothing without a TTY. */
  tick(): void;
  /** The current stage ended: `ok`, or what went wrong in one line. */
  end(outcome: string): void;
}

/** `0:07`, `1:12`, `12:05`: minutes and seconds. */
export function formatElapsed(ms: number): string {
  const s = Math.floor(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

const BAR = 20;

/**
 * A progress display of `total` stages on `out`; `now` is the clock in ms (injected for tests).
 */
export function createProgress(out: ProgressOut, total: number, now: () => number = Date.now): Progress {
  const began = now();
  let stage = { n: 0, name: '', expect: 1, since: began };
  const tty = Boolean(out.isTTY);
  const line = () => {
    const inStage = now() - stage.since;
    // Stages done, plus this one's share of its expected time, held below its end until it ends.
    const done = (stage.n - 1 + Math.min(0.95, inStage / 1000 / stage.expect)) / total;
    const filled = Math.round(done * BAR);
    return (
      `[${'#'.repeat(filled)}${'.'.repeat(BAR - filled)}] ${stage.n}/${total} ${stage.name}  ` +
      `${formatElapsed(inStage)} (all ${formatElapsed(now() - began)})`
    );
  };
  return {
    start(n, name, expectSeconds) {
      stage = { n, name, expect: Math.max(1, expectSeconds), since: now() };
      if (tty) out.write(`\r${line()}\x1b[K`);
      else out.write(`[${n}/${total}] ${name}: started\n`);
    },
    tick() {
      if (tty && stage.n) out.write(`\r${line()}\x1b[K`);
    },
    end(outcome) {
      const took = formatElapsed(now() - stage.since);
      // On a terminal the bar's line is replaced by the stage's outcome, which stays on screen.
      out.write(`${tty ? '\r\x1b[K' : ''}[${stage.n}/${total}] ${stage.name}: ${outcome} in ${took}\n`);
    },
  };
}
