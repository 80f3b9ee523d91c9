/**
 * What `npm run bench` (bench/run.ts) prints and writes once the benches have run: each reported row
 * with its ratio and verdict, as a terminal table and as Markdown, and the facts of the machine it ran
 * on. Pure functions of their arguments, so they are tested without running a bench.
 */
import type { BenchReport, Figure, ReportRow, Target } from './report.js';

/** A reported row with its ratio (Pigeon ÷ baseline) and verdict worked out; `pass` is unset without a target. */
export interface ResultRow extends ReportRow {
  ratio?: number;
  pass?: boolean;
}

/**
 * One bench's outcome: `ok`, or what went wrong (`crashed`: a non-zero exit or a signal; `timed out`;
 * `no report`: it exited 0 without figures, or with a report that does not parse). A bench that is not
 * ok keeps whatever rows it reported before it ended.
 */
export interface BenchResult {
  bench: string;
  status: 'ok' | 'crashed' | 'timed out' | 'no report';
  /** For a bench that is not ok: what happened, one line (e.g. `exit 1`, `after 900 s`). */
  detail?: string;
  seconds: number;
  rows: ResultRow[];
}

/** Where and with what the benches ran (see machineLines). */
export interface MachineFacts {
  cpuModel: string;
  cpus: number;
  ramBytes: number;
  /** One-minute load averages when the run began and when it ended. */
  loadAtStart: number;
  loadAtEnd: number;
  node: string;
  postgres: string;
  /** `embedded` or the server's host:port (never its password). */
  database: string;
  commit: string;
}

/**
 * The row's ratio: the script's own, else Pigeon ÷ baseline when both are in the same unit and the
 * baseline is not 0; undefined otherwise. The verdict: the script's own `pass`, else whether the
 * figure the target names lies within its min/max (a ratio target without a ratio fails).
 */
export function evaluate(row: ReportRow): ResultRow {
  const { baseline, pigeon } = row;
  const ratio =
    row.ratio ??
    (baseline && baseline.unit === pigeon.unit && baseline.value !== 0 ? pigeon.value / baseline.value : undefined);
  const pass =
    row.pass ?? (row.target ? withinTarget(row.target, row.target.of === 'ratio' ? ratio : pigeon.value) : undefined);
  return { ...row, ratio, pass };
}

function withinTarget(t: Target, x: number | undefined): boolean {
  return x !== undefined && (t.min === undefined || x >= t.min) && (t.max === undefined || x <= t.max);
}

/** The results of one bench's reports, rows evaluated in order. */
export function benchRows(reports: BenchReport[]): ResultRow[] {
  return reports.flatMap((r) => r.rows.map(evaluate));
}

/** `5,822`, `16.4`, `2.35`: three significant figures or more, thousands separated. */
export function formatNumber(v: number): string {
  const abs = Math.abs(v);
  const digits = abs >= 100 ? 0 : abs >= 10 ? 1 : 2;
  return v.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export const formatFigure = (f: Figure) => `${formatNumber(f.value)} ${f.unit}`;

/** `≥ 0.8×`, `≤ 150 MB`, `0.9–1.1×`. */
export function formatTarget(t: Target, unit: string): string {
  const suffix = t.of === 'ratio' ? '×' : ` ${unit}`;
  if (t.min !== undefined && t.max !== undefined) return `${t.min}–${t.max}${suffix}`;
  return t.min !== undefined ? `≥ ${t.min}${suffix}` : `≤ ${t.max}${suffix}`;
}

export const TABLE_HEADER = ['bench', 'figure', 'Pigeon', 'baseline (same run)', 'ratio', 'target', 'pass'];

/** The table's cells, one array a row: a bench that is not ok first has a row saying what happened. */
export function tableCells(results: BenchResult[]): string[][] {
  return results.flatMap((b) => {
    const status =
      b.status === 'ok' ? [] : [[b.bench, `${b.status.toUpperCase()}: ${b.detail ?? ''}`, '', '', '', '', 'FAIL']];
    return [
      ...status,
      ...b.rows.map((r) => [
        b.bench,
        r.name,
        formatFigure(r.pigeon),
        r.baseline ? `${formatFigure(r.baseline)} (${r.baseline.name})` : '—',
        r.ratio === undefined ? '—' : `${r.ratio.toFixed(2)}×`,
        r.target ? formatTarget(r.target, r.pigeon.unit) : '—',
        r.pass === undefined ? '—' : r.pass ? 'pass' : 'FAIL',
      ]),
    ];
  });
}

/** The table as aligned plain text (figures and ratios right-aligned), header and rule first. */
export function formatTable(results: BenchResult[]): string {
  const rows = [TABLE_HEADER, ...tableCells(results)];
  const widths = TABLE_HEADER.map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  const right = new Set([2, 4]);
  const line = (r: string[]) =>
    r
      .map((cell, c) => (right.has(c) ? cell.padStart(widths[c]) : cell.padEnd(widths[c])))
      .join('  ')
      .trimEnd();
  return [line(rows[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)].join('\n');
}

/** The table as GitHub Markdown (`|` in a cell escaped). */
export function markdownTable(results: BenchResult[]): string {
  const line = (r: string[]) => `| ${r.map((c) => c.replaceAll('|', '\\|')).join(' | ')} |`;
  return [line(TABLE_HEADER), line(TABLE_HEADER.map(() => '---')), ...tableCells(results).map(line)].join('\n');
}

/**
 * The machine (CPU, cores, RAM, load average at the start and end), the software measured, and a
 * warning when the load at the start was above the number of cores: something else was using the CPU, so the
 * figures are the machine's as much as Pigeon's.
 */
export function machineLines(m: MachineFacts): string[] {
  const gib = (m.ramBytes / 2 ** 30).toFixed(1);
  const load = `load average ${m.loadAtStart.toFixed(2)} at start, ${m.loadAtEnd.toFixed(2)} at end`;
  // The end's load includes the benches' own work; the start's is everything else's.
  const busy = m.loadAtStart > m.cpus;
  return [
    `machine: ${m.cpuModel}, ${m.cpus} cores, ${gib} GiB RAM, ${load}`,
    `software: Node ${m.node}, PostgreSQL ${m.postgres} (${m.database}), commit ${m.commit}`,
    ...(busy
      ? [
          `the machine was busy before the run (load above ${m.cpus} cores): run again when it is idle before trusting a figure`,
        ]
      : []),
  ];
}

/** The run's verdict: 1 when a bench did not finish, or (strict) when a target was missed; else 0. */
export function exitCode(results: BenchResult[], strict: boolean): number {
  if (results.some((b) => b.status !== 'ok')) return 1;
  return strict && results.some((b) => b.rows.some((r) => r.pass === false)) ? 1 : 0;
}
