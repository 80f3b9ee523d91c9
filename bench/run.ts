/**
 * `npm run bench`: the headline benches (docs/benchmarks.md) one after another on this machine, each a
 * child process, then one table of Pigeon beside each baseline measured in the same run.
 *
 *   npm run bench                      small sizes, about 5 minutes on 2 cores
 *   npm run bench -- --full            the sizes of bench/README.md's table
 *   npm run bench -- --only campaign   some benches (comma-separated names)
 *   npm run bench -- --strict          a missed target fails the run too (exit 1)
 *
 * Database: DATABASE_URL when set (a server where the benches may create and drop databases of their
 * own), else the embedded PostgreSQL Pigeon runs by default, started in a scratch folder and removed at
 * the end, so no PostgreSQL server is needed. The benches' output goes to bench/results/run-<time>.log;
 * the table to the terminal and to bench/results/run-<time>.{json,md}. A size variable already set in
 * the environment (e.g. BENCH_SECONDS=20) wins over the runner's. Exit code 1 when a bench crashes or
 * times out, or (--strict) misses a target. Linux only: the memory figures are read from /proc.
 */
import { execFileSync, spawn } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import pino from 'pino';
import { startEmbedded, type EmbeddedDatabase } from '../src/db/embedded.js';
import { parseReports } from './report.js';
import { createProgress, formatElapsed } from './run-progress.js';
import {
  benchRows,
  exitCode,
  formatTable,
  machineLines,
  markdownTable,
  type BenchResult,
  type MachineFacts,
} from './run-table.js';

interface Bench {
  name: string;
  script: string;
  /** Size variables, small run and --full (the latter as bench/README.md's commands). */
  env: { small: Record<string, string>; full: Record<string, string> };
  /** Seconds it takes on 2 cores, to pace the progress bar. */
  expect: { small: number; full: number };
  /** Runs dist/main.js, so the server must be built from the current src/. */
  needsDist: boolean;
}

const BENCHES: Bench[] = [
  {
    name: 'send-track',
    script: 'bench/send-track.ts',
    env: { small: { BENCH_SECONDS: '5' }, full: { BENCH_SECONDS: '10' } },
    expect: { small: 50, full: 90 },
    needsDist: false,
  },
  {
    name: 'campaign',
    script: 'bench/campaign.ts',
    env: { small: { BENCH_RECIPIENTS: '20000' }, full: { BENCH_RECIPIENTS: '100000' } },
    expect: { small: 100, full: 420 },
    needsDist: true,
  },
  {
    name: 'webhooks',
    script: 'bench/webhooks.ts',
    env: { small: { BENCH_BACKLOG: '2000', BENCH_SECONDS: '5' }, full: { BENCH_BACKLOG: '5000', BENCH_SECONDS: '10' } },
    expect: { small: 50, full: 80 },
    needsDist: false,
  },
  {
    name: 'startup',
    script: 'bench/startup.ts',
    env: { small: {}, full: {} },
    expect: { small: 45, full: 45 },
    needsDist: true,
  },
];

const root = path.resolve(import.meta.dirname, '..');
const { values: args } = parseArgs({
  options: {
    full: { type: 'boolean', default: false },
    strict: { type: 'boolean', default: false },
    only: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (args.help) {
  console.log(
    readFileSync(import.meta.filename, 'utf8')
      .split('*/')[0]
      .replace(/^\/\*\*\n|^ \* ?/gm, ''),
  );
  process.exit(0);
}
const size = args.full ? 'full' : 'small';
const only = args.only?.split(',').map((s) => s.trim());
const unknown = only?.filter((n) => !BENCHES.some((b) => b.name === n)) ?? [];
if (unknown.length) {
  console.error(`unknown bench ${unknown.join(', ')}: choose from ${BENCHES.map((b) => b.name).join(', ')}`);
  process.exit(2);
}
const benches = BENCHES.filter((b) => !only || only.includes(b.name));
const timeoutMs = (args.full ? 60 : 15) * 60_000;

const started = new Date();
const stamp = started.toISOString().slice(0, 16).replace(':', '').replace('T', '-'); // 2026-11-28-1725 (UTC)
const resultsDir = path.join(root, 'bench/results');
mkdirSync(resultsDir, { recursive: true });
const logPath = path.join(resultsDir, `run-${stamp}.log`);
const rel = (p: string) => path.relative(process.cwd(), p);
const scratch = await mkdtemp(path.join(os.tmpdir(), 'pigeon-bench-run-'));
// Run as root, the embedded PostgreSQL runs as the postgres user, which must reach its data folder in
// here (mkdtemp makes it 0700); else its cluster would be kept outside the folder removed at the end.
await chmod(scratch, 0o755);
const loadAtStart = os.loadavg()[0];

console.log(
  `Pigeon benchmarks: ${benches.map((b) => b.name).join(', ')} (${size} sizes${args.full ? '' : '; --full for the README sizes'})`,
);
console.log(`the benches' output: ${rel(logPath)}`);

let current: ReturnType<typeof spawn> | undefined;
let interrupted = false;
process.on('SIGINT', () => {
  // The terminal sends Ctrl-C to the bench too; it ends, its result is kept, no further bench starts.
  // Taken from here on, so that a Ctrl-C during the database's start still stops it at the end.
  interrupted = true;
  current?.kill('SIGINT');
});

// The database server the benches make their databases on.
let embedded: EmbeddedDatabase | undefined;
let server = process.env.DATABASE_URL;
let database: string;
if (server) {
  const u = new URL(server);
  database = `server ${u.hostname}:${u.port || 5432}`;
} else {
  console.log('DATABASE_URL is not set: starting the embedded PostgreSQL (as `npm start` does)…');
  embedded = await startEmbedded(path.join(scratch, 'data'), pino({ level: 'warn' }));
  server = Object.assign(new URL(embedded.url), { pathname: '/postgres' }).toString();
  database = 'embedded';
}
let postgres: string;
try {
  const client = new pg.Client({ connectionString: server });
  await client.connect();
  // `15.20 (Debian 15.20-0+deb12u1)`: the number is what compares.
  postgres = (await client.query<{ server_version: string }>('show server_version')).rows[0].server_version.split(
    ' ',
  )[0];
  await client.end();
} catch (err) {
  console.error(`cannot connect to the database (${database}): ${(err as Error).message}`);
  await cleanUp();
  process.exit(1);
}
console.log(`database: PostgreSQL ${postgres} (${database})`);

const machine: Omit<MachineFacts, 'loadAtEnd'> = {
  cpuModel: os.cpus()[0]?.model.trim() || 'unknown CPU',
  cpus: os.availableParallelism(),
  ramBytes: os.totalmem(),
  loadAtStart,
  node: process.version,
  postgres,
  database,
  commit: gitCommit(),
};

// Stages: the server build when a bench runs dist/main.js and dist/ is older than src/, then the benches.
const build = benches.some((b) => b.needsDist) && distIsStale();
const total = benches.length + (build ? 1 : 0);
const progress = createProgress(process.stdout, total);
const ticker = process.stdout.isTTY ? setInterval(() => progress.tick(), 1000) : undefined;

const results: BenchResult[] = [];
const sizesUsed: string[] = [];
let stage = 0;
if (build) {
  progress.start(++stage, 'build the server (dist/ is older than src/)', 15);
  const r = await runChild('build', 'npm', ['run', 'build:server'], process.env, timeoutMs);
  progress.end(r.outcome);
  if (r.outcome !== 'ok') {
    results.push({ bench: 'build', status: 'crashed', detail: r.outcome, seconds: r.seconds, rows: [] });
    printTail(r.logFrom);
  }
}
for (const b of benches) {
  if (interrupted) break;
  if (b.needsDist && results.some((r) => r.bench === 'build')) {
    results.push({
      bench: b.name,
      status: 'crashed',
      detail: 'not run: the server build failed',
      seconds: 0,
      rows: [],
    });
    continue;
  }
  progress.start(++stage, b.name, b.expect[size]);
  const reportFile = path.join(scratch, `${b.name}.ndjson`);
  // The runner's sizes, unless the user set the same variable.
  const sizes = Object.fromEntries(Object.entries(b.env[size]).map(([k, v]) => [k, process.env[k] ?? v]));
  const env = { ...process.env, ...sizes, DATABASE_URL: server, BENCH_REPORT: reportFile };
  const shownSizes = Object.entries(sizes).map(([k, v]) => `${k}=${v}`);
  sizesUsed.push(`${b.name}${shownSizes.length ? ` ${shownSizes.join(' ')}` : ''}`);
  const r = await runChild(b.name, process.execPath, ['--import', 'tsx', b.script], env, timeoutMs, sizes);
  const result: BenchResult = { bench: b.name, status: 'ok', seconds: r.seconds, rows: [] };
  try {
    result.rows = existsSync(reportFile) ? benchRows(parseReports(readFileSync(reportFile, 'utf8'))) : [];
    if (r.outcome === 'ok' && !result.rows.length)
      Object.assign(result, { status: 'no report', detail: 'exited 0 without figures' });
  } catch (err) {
    Object.assign(result, { status: 'no report', detail: (err as Error).message });
  }
  if (r.outcome !== 'ok')
    Object.assign(result, {
      status: r.timedOut ? 'timed out' : 'crashed',
      detail: interrupted ? `interrupted (${r.outcome})` : r.outcome,
    });
  progress.end(result.status === 'ok' ? 'ok' : `${result.status.toUpperCase()} (${result.detail})`);
  if (result.status !== 'ok') printTail(r.logFrom);
  results.push(result);
}
clearInterval(ticker);
await cleanUp();

const finished = new Date();
const facts: MachineFacts = { ...machine, loadAtEnd: os.loadavg()[0] };
const lines = machineLines(facts);
const missed = results.flatMap((b) => b.rows).filter((r) => r.pass === false).length;
console.log(`\n${formatTable(results)}\n`);
for (const l of lines) console.log(l);
if (missed) console.log(`${missed} target(s) missed${args.strict ? '' : ' (shown; --strict makes them fail the run)'}`);
if (interrupted) console.log('interrupted: the benches after the one running were not run');

const command = `npm run bench${process.argv.length > 2 ? ' -- ' + process.argv.slice(2).join(' ') : ''}`;
const base = path.join(resultsDir, `run-${stamp}`);
writeFileSync(
  `${base}.json`,
  JSON.stringify(
    {
      command,
      started,
      finished,
      size,
      sizes: sizesUsed,
      strict: args.strict,
      machine: facts,
      log: path.relative(root, logPath),
      results,
    },
    null,
    2,
  ) + '\n',
);
writeFileSync(
  `${base}.md`,
  [
    `# Benchmark run ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC`,
    '',
    `\`${command}\` (${size} sizes), ${formatElapsed(finished.getTime() - started.getTime())}. Ratio: Pigeon ÷ baseline, both measured in this run (see [docs/benchmarks.md](../../docs/benchmarks.md)).`,
    '',
    ...lines.map((l) => `- ${l}`),
    `- sizes: ${sizesUsed.join('; ')}`,
    '',
    markdownTable(results),
    '',
  ].join('\n'),
);
console.log(`results: ${rel(base)}.json, ${rel(base)}.md; the benches' output: ${rel(logPath)}`);
process.exit(interrupted ? 130 : exitCode(results, args.strict));

/**
 * Runs one stage as a child process, its output appended to the log. `outcome` is `ok`, `exit <code>`,
 * `killed by <signal>`, or `timed out after <s> s` (the child is then killed).
 */
async function runChild(
  name: string,
  file: string,
  argv: string[],
  env: NodeJS.ProcessEnv,
  timeout: number,
  shown: Record<string, string> = {},
): Promise<{ outcome: string; timedOut: boolean; seconds: number; logFrom: number }> {
  const logFrom = existsSync(logPath) ? statSync(logPath).size : 0;
  const fd = openSync(logPath, 'a');
  const vars = Object.entries(shown).map(([k, v]) => `${k}=${v} `);
  writeFileSync(
    fd,
    `\n=== ${new Date().toISOString()} ${name}: ${vars.join('')}${path.basename(file)} ${argv.join(' ')}\n`,
  );
  const t0 = performance.now();
  const child = spawn(file, argv, { cwd: root, env, stdio: ['ignore', fd, fd] });
  current = child;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, timeout);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => {
    child.once('error', () => resolve([127, null]));
    child.once('exit', (c, s) => resolve([c, s]));
  });
  clearTimeout(timer);
  current = undefined;
  closeSync(fd);
  const seconds = (performance.now() - t0) / 1000;
  const outcome = timedOut
    ? `after ${Math.round(timeout / 1000)} s`
    : code === 0
      ? 'ok'
      : code !== null
        ? `exit ${code}`
        : `killed by ${signal}`;
  return { outcome, timedOut, seconds, logFrom };
}

/** The last lines a failed stage wrote, so the cause shows without opening the log. */
function printTail(from: number) {
  const text = readFileSync(logPath).subarray(from).toString('utf8').trimEnd().split('\n').slice(-8);
  for (const l of text) console.log(`    ${l}`);
}

/** Stops the embedded PostgreSQL (if started) and removes the scratch folder with its data. */
async function cleanUp() {
  await embedded?.stop();
  await rm(scratch, { recursive: true, force: true });
  // A cluster kept elsewhere after all (startEmbedded logged where): it is this run's alone.
  if (embedded && !embedded.clusterDir.startsWith(scratch))
    await rm(embedded.clusterDir, { recursive: true, force: true });
}

/** The commit measured, `+ local changes` when the checkout differs from it. */
function gitCommit(): string {
  try {
    const git = (...a: string[]) => execFileSync('git', a, { cwd: root, encoding: 'utf8' }).trim();
    const dirty = git('status', '--porcelain', '--untracked-files=no') !== '';
    return git('rev-parse', '--short', 'HEAD') + (dirty ? ' + local changes' : '');
  } catch {
    return 'unknown (not a git checkout)';
  }
}

/** dist/main.js is missing, or older than a source file it is built from. */
function distIsStale(): boolean {
  const main = path.join(root, 'dist/main.js');
  if (!existsSync(main)) return true;
  const built = statSync(main).mtimeMs;
  const newer = (dir: string): boolean =>
    readdirSync(dir, { withFileTypes: true }).some((e) => {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) return newer(p);
      return !e.name.endsWith('.test.ts') && statSync(p).mtimeMs > built;
    });
  return newer(path.join(root, 'src'));
}
