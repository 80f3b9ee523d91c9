import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SOURCE_HASH_FILE, sourceHash } from '../../source-hash.js';

/** The repository's root folder. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const WEB = path.join(REPO_ROOT, 'web');
const DIST = path.join(WEB, 'dist');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** True when `web/dist` was built from the current sources. */
export function webBuildIsFresh(): boolean {
  try {
    return readFileSync(path.join(DIST, SOURCE_HASH_FILE), 'utf8').trim() === sourceHash(REPO_ROOT);
  } catch {
    return false;
  }
}

/**
 * Makes sure the browser tests run the dashboard built from the current sources: `npm install` built
 * it (root `prepare` script), but a developer may have edited `web/src` since. Rebuilds when the
 * recorded source hash differs, one test file at a time (a lock folder in the temp dir), so parallel
 * browser test files never build over each other.
 */
export async function ensureWebBuild(): Promise<void> {
  if (webBuildIsFresh()) return;
  const lock = path.join(tmpdir(), `pigeon-web-build-${Buffer.from(REPO_ROOT).toString('hex').slice(-24)}.lock`);
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // Another file is building; a lock older than 5 minutes belongs to a process that died.
      try {
        if (Date.now() - statSync(lock).mtimeMs > 300_000) rmSync(lock, { recursive: true, force: true });
      } catch {
        /* released meanwhile */
      }
      await sleep(250);
    }
  }
  try {
    if (webBuildIsFresh()) return;
    const vitePkg = createRequire(path.join(WEB, 'package.json')).resolve('vite/package.json');
    const vite = path.join(path.dirname(vitePkg), 'bin', 'vite.js');
    // Vitest sets NODE_ENV=test, which would make Vite bundle React's development build.
    const env = { ...process.env, NODE_ENV: 'production' };
    execFileSync(process.execPath, [vite, 'build', '--logLevel', 'warn'], {
      cwd: WEB,
      env,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    if (!existsSync(path.join(DIST, 'index.html'))) throw new Error('vite build wrote no web/dist/index.html');
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
