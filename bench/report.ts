/**
 * The one shape in which a headline bench hands its figures to `npm run bench` (bench/run.ts). A script
 * calls {@link report} at its end; the runner names a file in `BENCH_REPORT`, reads it back with
 * {@link parseReports} and prints every bench's rows in one table. Run alone, a script has no
 * `BENCH_REPORT` and report() does nothing, so each script stays runnable by itself.
 */
import { appendFileSync } from 'node:fs';
import { z } from 'zod';

const figure = z.object({ value: z.number(), unit: z.string().min(1) });

/**
 * A goal a row is checked against: on Pigeon's figure divided by the baseline's (`of: 'ratio'`) or on
 * Pigeon's figure itself (`of: 'pigeon'`, in its unit), with `min` and/or `max` inclusive.
 * E.g. `{ of: 'ratio', min: 0.8 }` (at least 0.8× the baseline), `{ of: 'pigeon', max: 150 }` (≤ 150 MB).
 */
const target = z
  .object({ of: z.enum(['ratio', 'pigeon']), min: z.number().optional(), max: z.number().optional() })
  .refine((t) => t.min !== undefined || t.max !== undefined, 'a target needs min or max');

const row = z.object({
  /** What is measured, e.g. `POST /v1/track, 32 connections`. */
  name: z.string().min(1),
  pigeon: figure,
  /** The bare baseline measured in the same run (`name` says what it is, e.g. `one-statement floor`). */
  baseline: figure.extend({ name: z.string().min(1) }).optional(),
  /** Pigeon ÷ baseline when the script computes it itself; else the runner divides (same unit only). */
  ratio: z.number().optional(),
  target: target.optional(),
  /** The script's own verdict, when its rule is not a plain min/max; else the runner checks `target`. */
  pass: z.boolean().optional(),
});

const benchReport = z.object({ bench: z.string().min(1), rows: z.array(row) });

export type Figure = z.infer<typeof figure>;
export type Target = z.infer<typeof target>;
export type ReportRow = z.infer<typeof row>;
export type BenchReport = z.infer<typeof benchReport>;

/**
 * Appends `r` as one JSON line to `file` (default: the file named by env `BENCH_REPORT`); does nothing
 * when there is no file. A script may call it more than once (e.g. once per loop round): the runner
 * joins the rows of one bench in call order.
 * @throws ZodError when a figure is not a finite number (a NaN from a division by zero, say), so a
 *   broken figure fails the bench instead of printing as a result.
 */
export function report(r: BenchReport, file = process.env.BENCH_REPORT): void {
  if (!file) return;
  appendFileSync(file, JSON.stringify(benchReport.parse(r)) + '\n');
}

/**
 * The reports in a `BENCH_REPORT` file (one JSON object a line, blank lines ignored), rows of the same
 * bench joined in order.
 * @throws Error naming the line and the field, when a line is not JSON or not a {@link BenchReport}.
 */
export function parseReports(text: string): BenchReport[] {
  const byBench = new Map<string, BenchReport>();
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      throw new Error(`report line ${i + 1} is not JSON: ${line.slice(0, 80)}`);
    }
    const parsed = benchReport.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new Error(`report line ${i + 1}: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
    }
    const seen = byBench.get(parsed.data.bench);
    if (seen) seen.rows.push(...parsed.data.rows);
    else byBench.set(parsed.data.bench, parsed.data);
  });
  return [...byBench.values()];
}
