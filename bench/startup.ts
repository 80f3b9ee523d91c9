/**
 * Cold start of the real entry point with the embedded PostgreSQL (first start on an empty DATA_DIR,
 * then a second start on the same data), and the idle RSS of the process: as `npm start` runs it
 * (the compiled `dist/main.js`; run `npm run build:server` first) beside the TypeScript source run
 * through tsx (`npm run dev`), in the same run, beside a bare Node.js process with the same flags.
 * Run: npx tsx bench/startup.ts
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../src/lib/net.js';
import { startNodeFlags } from './pigeon-process.js';
import { report } from './report.js';

const root = path.resolve(import.meta.dirname, '..');
const node = path.join(root, 'node_modules/.bin/node');

/** VmRSS and its two parts, in MB: file-backed (mostly the pages of the Node.js binary in use) and anonymous (heaps). */
function rssMb(pid: number): { rss: number; file: number; anon: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024;
  return { rss: kb('VmRSS'), file: kb('RssFile'), anon: kb('RssAnon') };
}

async function startOnce(dataDir: string, port: number, args: string[]) {
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
  };
  delete env.DATABASE_URL;
  const t0 = performance.now();
  const child = spawn(node, args, { cwd: root, env, stdio: 'ignore' });
  for (;;) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/config`)).ok) break;
    } catch {
      /* not yet */
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  const ms = performance.now() - t0;
  await new Promise((r) => setTimeout(r, 3000));
  const rss = rssMb(child.pid!);
  const exited = new Promise((r) => child.on('exit', r));
  child.kill('SIGTERM');
  await exited;
  return { ms, rss };
}

// Baseline: a bare Node.js process with the same flags, doing nothing, 3 s after it starts.
{
  const child = spawn(node, [...startNodeFlags(), '-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  await new Promise((r) => setTimeout(r, 3000));
  const bare = rssMb(child.pid!);
  child.kill('SIGTERM');
  console.log(
    `bare node (same flags, idle): RSS ${bare.rss.toFixed(1)} MB, file-backed ${bare.file.toFixed(1)} MB, anonymous ${bare.anon.toFixed(1)} MB`,
  );
}

// `npm start` runs `node <flags> dist/main.js`: the same flags here, or the RSS is not what users see.
const runs: Array<[string, string[]]> = [
  ['npm start (dist/main.js)', [...startNodeFlags(), 'dist/main.js']],
  ['npm run dev (tsx, src/main.ts)', ['--import', 'tsx', 'src/main.ts']],
];
for (const [label, args] of runs) {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'pigeon-bench-'));
  const port = await freePort();
  const first = await startOnce(dataDir, port, [...args]);
  const second = await startOnce(dataDir, port, [...args]);
  await rm(dataDir, { recursive: true, force: true });
  console.log(`${label}`);
  console.log(`  cold start, empty DATA_DIR (initdb + migrations): ${first.ms.toFixed(0)} ms`);
  console.log(`  second start, same DATA_DIR:                     ${second.ms.toFixed(0)} ms`);
  console.log(
    `  idle RSS of the Node.js process (3 s after ready):  ${second.rss.rss.toFixed(1)} MB (first run ${first.rss.rss.toFixed(1)} MB)`,
  );
  console.log(
    `    of which file-backed ${second.rss.file.toFixed(1)} MB (the Node.js binary's pages), anonymous ${second.rss.anon.toFixed(1)} MB`,
  );
  report({
    bench: 'startup',
    rows: [
      { name: `idle RSS, ${label.split(' (')[0]}`, pigeon: { value: second.rss.rss, unit: 'MB' } },
      { name: `second start, ${label.split(' (')[0]}`, pigeon: { value: second.ms / 1000, unit: 's' } },
      {
        name: `first start (initdb), ${label.split(' (')[0]}`,
        pigeon: { value: first.ms / 1000, unit: 's' },
      },
    ],
  });
}
