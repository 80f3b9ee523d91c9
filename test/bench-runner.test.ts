import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseReports, report, type ReportRow } from '../bench/report.js';
import { createProgress, formatElapsed } from '../bench/run-progress.js';
import {
  evaluate,
  exitCode,
  formatNumber,
  formatTable,
  machineLines,
  markdownTable,
  type BenchResult,
} from '../bench/run-table.js';

// `npm run bench` (bench/run.ts): its pure parts, without running a bench.

const dir = mkdtempSync(path.join(tmpdir(), 'pigeon-bench-runner-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const track: ReportRow = {
  name: 'POST /v1/track',
  pigeon: { value: 5822, unit: 'req/s' },
  baseline: { name: 'one-statement floor', value: 2578, unit: 'req/s' },
  target: { of: 'ratio', min: 0.8 },
};

describe('report and parseReports', () => {
  it('appends one line a call and joins the rows of one bench in call order', () => {
    const file = path.join(dir, 'joined.ndjson');
    report({ bench: 'startup', rows: [{ name: 'idle RSS, dist', pigeon: { value: 130.8, unit: 'MB' } }] }, file);
    report({ bench: 'startup', rows: [{ name: 'idle RSS, tsx', pigeon: { value: 190, unit: 'MB' } }] }, file);
    report({ bench: 'other', rows: [track] }, file);
    const text = readFileSync(file, 'utf8');
    expect(text.trim().split('\n')).toHaveLength(3);
    const reports = parseReports(text);
    expect(reports.map((r) => r.bench)).toEqual(['startup', 'other']);
    expect(reports[0].rows.map((r) => r.name)).toEqual(['idle RSS, dist', 'idle RSS, tsx']);
    expect(reports[1].rows[0]).toEqual(track);
  });

  it('writes nothing without a file, and refuses a figure that is not a number before writing', () => {
    expect(() => report({ bench: 'x', rows: [track] }, '')).not.toThrow();
    const file = path.join(dir, 'nan.ndjson');
    const broken = { ...track, pigeon: { value: 0 / 0, unit: 'req/s' } };
    expect(() => report({ bench: 'x', rows: [broken] }, file)).toThrow();
    expect(existsSync(file)).toBe(false);
  });

  it('names the line and the field of a report that does not parse', () => {
    const good = JSON.stringify({ bench: 'a', rows: [track] });
    expect(() =>
      parseReports(`${good}\n{"bench":"a","rows":[{"name":"x","pigeon":{"value":null,"unit":"ms"}}]}\n`),
    ).toThrow(/^report line 2: rows\.0\.pigeon\.value: /);
    expect(() => parseReports(`${good}\nSegmentation fault\n`)).toThrow(
      'report line 2 is not JSON: Segmentation fault',
    );
    expect(() => parseReports(JSON.stringify({ bench: 'a', rows: [{ ...track, target: { of: 'ratio' } }] }))).toThrow(
      /target: a target needs min or max/,
    );
    expect(parseReports('\n\n')).toEqual([]);
  });
});

describe('evaluate: ratio and verdict', () => {
  it('divides Pigeon by a baseline in the same unit and checks a ratio target', () => {
    const r = evaluate(track);
    expect(r.ratio).toBeCloseTo(2.258, 3);
    expect(r.pass).toBe(true);
    expect(evaluate({ ...track, pigeon: { value: 2000, unit: 'req/s' } }).pass).toBe(false);
  });

  it('has no ratio across units or over a zero baseline, and a ratio target then fails', () => {
    const otherUnit = evaluate({ ...track, baseline: { name: 'b', value: 2, unit: 's' } });
    expect(otherUnit.ratio).toBeUndefined();
    expect(otherUnit.pass).toBe(false);
    expect(evaluate({ ...track, baseline: { name: 'b', value: 0, unit: 'req/s' } }).ratio).toBeUndefined();
    expect(evaluate({ ...track, baseline: undefined }).pass).toBe(false);
  });

  it('checks a target on the figure itself, min and max inclusive', () => {
    const rss = (value: number) =>
      evaluate({ name: 'peak RSS', pigeon: { value, unit: 'MB' }, target: { of: 'pigeon', max: 150 } }).pass;
    expect([rss(149), rss(150), rss(151)]).toEqual([true, true, false]);
    const band = (value: number) =>
      evaluate({
        ...track,
        baseline: { name: 'b', value: 100, unit: 'req/s' },
        pigeon: { value, unit: 'req/s' },
        target: { of: 'ratio', min: 0.9, max: 1.1 },
      }).pass;
    expect([band(89), band(90), band(110), band(111)]).toEqual([false, true, true, false]);
  });

  it("keeps the script's own ratio and verdict, and gives no verdict without a target", () => {
    expect(evaluate({ ...track, ratio: 0.5 }).pass).toBe(false);
    expect(evaluate({ ...track, ratio: 0.5, pass: true }).pass).toBe(true);
    expect(evaluate({ ...track, target: undefined }).pass).toBeUndefined();
  });
});

describe('the table', () => {
  const results: BenchResult[] = [
    {
      bench: 'send-track',
      status: 'ok',
      seconds: 44,
      rows: [
        evaluate(track),
        evaluate({ name: 'POST /v1/send | many', pigeon: { value: 940.4, unit: 'mails/s' } }),
        evaluate({ name: 'p99', pigeon: { value: 16.44, unit: 'ms' }, target: { of: 'pigeon', max: 10 } }),
      ],
    },
    { bench: 'campaign', status: 'crashed', detail: 'exit 1', seconds: 3, rows: [] },
  ];

  it('formats figures to three significant digits or more, thousands separated', () => {
    expect([5822.4, 940.4, 16.44, 2.346, 0.5, -1234].map(formatNumber)).toEqual([
      '5,822',
      '940',
      '16.4',
      '2.35',
      '0.50',
      '-1,234',
    ]);
  });

  it('shows each row with its baseline, ratio, target and verdict, columns aligned, and a crash as a failed row', () => {
    const lines = formatTable(results).split('\n');
    expect(lines[0]).toMatch(/^bench +figure +Pigeon +baseline \(same run\) +ratio +target +pass$/);
    expect(lines[1]).toMatch(/^-+( +-+){6}$/);
    expect(lines[2]).toMatch(
      /^send-track +POST \/v1\/track +5,822 req\/s +2,578 req\/s \(one-statement floor\) +2\.26× +≥ 0\.8× +pass$/,
    );
    expect(lines[3]).toMatch(/940 mails\/s +— +— +— +—$/);
    expect(lines[4]).toMatch(/16\.4 ms +— +— +≤ 10 ms +FAIL$/);
    expect(lines[5]).toMatch(/^campaign +CRASHED: exit 1 .*FAIL$/);
    // Each column starts where its header does.
    for (const header of ['figure', 'baseline', 'target']) {
      const at = lines[0].indexOf(header);
      for (const l of lines.slice(2, 5)) expect(l[at - 1]).toBe(' ');
      expect(lines[2][at]).not.toBe(' ');
    }
  });

  it('writes the same cells as Markdown, a | in a cell escaped', () => {
    const md = markdownTable(results).split('\n');
    expect(md[0]).toBe('| bench | figure | Pigeon | baseline (same run) | ratio | target | pass |');
    expect(md[1]).toBe('| --- | --- | --- | --- | --- | --- | --- |');
    expect(md[3]).toBe('| send-track | POST /v1/send \\| many | 940 mails/s | — | — | — | — |');
    expect(md).toHaveLength(6);
  });

  it('fails the run on a crash always, on a missed target only when strict', () => {
    const ok = results[0];
    const clean: BenchResult = { ...ok, rows: ok.rows.filter((r) => r.pass !== false) };
    expect(exitCode([clean], true)).toBe(0);
    expect(exitCode([ok], false)).toBe(0);
    expect(exitCode([ok], true)).toBe(1);
    expect(exitCode(results, false)).toBe(1);
    expect(exitCode([{ ...clean, status: 'no report', detail: 'exited 0 without figures' }], false)).toBe(1);
  });

  it('states the machine and software measured, and warns when the load was above the cores', () => {
    const facts = {
      cpuModel: 'AMD EPYC',
      cpus: 2,
      ramBytes: 24 * 2 ** 30,
      loadAtStart: 0.812,
      loadAtEnd: 2,
      node: 'v24.21.0',
      postgres: '18.1',
      database: 'embedded',
      commit: 'f4f7c9e',
    };
    expect(machineLines(facts)).toEqual([
      'machine: AMD EPYC, 2 cores, 24.0 GiB RAM, load average 0.81 at start, 2.00 at end',
      'software: Node v24.21.0, PostgreSQL 18.1 (embedded), commit f4f7c9e',
    ]);
    // The load at the end is the benches' own: only the start's says something else was running.
    expect(machineLines({ ...facts, loadAtEnd: 9 })).toHaveLength(2);
    expect(machineLines({ ...facts, loadAtStart: 2 })).toHaveLength(2);
    expect(machineLines({ ...facts, loadAtStart: 2.01 })[2]).toMatch(
      /^the machine was busy before the run \(load above 2 cores\)/,
    );
  });
});

describe('progress', () => {
  const recorder = (isTTY: boolean) => {
    const writes: string[] = [];
    return { writes, out: { isTTY, write: (s: string) => writes.push(s) } };
  };

  it('without a terminal, writes one plain line when a stage starts and one when it ends', () => {
    let t = 1_000;
    const { writes, out } = recorder(false);
    const p = createProgress(out, 2, () => t);
    p.start(1, 'send-track', 50);
    t += 30_000;
    p.tick();
    t += 42_000;
    p.end('ok');
    p.start(2, 'campaign', 90);
    t += 3_000;
    p.end('CRASHED (exit 1)');
    expect(writes.join('')).toBe(
      '[1/2] send-track: started\n[1/2] send-track: ok in 1:12\n[2/2] campaign: started\n[2/2] campaign: CRASHED (exit 1) in 0:03\n',
    );
    expect(writes.some((w) => w.includes('\r') || w.includes('\x1b'))).toBe(false);
  });

  it('on a terminal, rewrites one line with the bar, stage, name and times, held below the stage end', () => {
    let t = 0;
    const { writes, out } = recorder(true);
    const p = createProgress(out, 1, () => t);
    p.start(1, 'send-track', 10);
    t += 5_000;
    p.tick();
    expect(writes.at(-1)).toBe('\r[##########..........] 1/1 send-track  0:05 (all 0:05)\x1b[K');
    t += 60_000; // far past the expected 10 s: the bar stops short of the stage's end
    p.tick();
    expect(writes.at(-1)).toBe('\r[###################.] 1/1 send-track  1:05 (all 1:05)\x1b[K');
    p.end('ok');
    expect(writes.at(-1)).toBe('\r\x1b[K[1/1] send-track: ok in 1:05\n');
  });

  it('formats elapsed time as minutes and seconds', () => {
    expect([0, 999, 59_999, 60_000, 725_400].map(formatElapsed)).toEqual(['0:00', '0:00', '0:59', '1:00', '12:05']);
  });
});
