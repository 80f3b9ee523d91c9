#!/usr/bin/env node
// `npm run check`: the static checks of the whole repository, each run even when an earlier one
// failed, so one run shows everything to fix. Exits 1 when any failed. `.ci/run` calls it once.
//   types    tsc over the server, tests, benches and scripts (tsconfig.json) and the dashboard (web/)
//   lint     ESLint (typescript-eslint, react-hooks), no warnings allowed
//   format   Prettier, as `npm run format` would write it
//   imports  dependency-cruiser: no import cycle, the email stages import only downstream
//   config   docs/configuration.md is what src/config.ts generates
import { spawnSync } from 'node:child_process';

const bin = (name) => new URL(`../node_modules/.bin/${name}`, import.meta.url).pathname;
const steps = [
  ['types', bin('tsc'), ['--noEmit']],
  ['types (web)', bin('tsc'), ['--noEmit', '-p', 'web']],
  ['lint', bin('eslint'), ['--max-warnings', '0', '.']],
  ['format', bin('prettier'), ['--check', '--log-level', 'warn', '.']],
  ['imports', bin('depcruise'), ['src', '--config', '.dependency-cruiser.cjs', '--output-type', 'err']],
  ['config', bin('tsx'), ['scripts/gen-config-docs.ts', '--check']],
];
const only = process.argv.slice(2);
const failed = [];
for (const [name, cmd, args] of steps) {
  if (only.length && !only.some((o) => name.startsWith(o))) continue;
  const started = Date.now();
  const r = spawnSync(cmd, args, { stdio: 'inherit', cwd: new URL('..', import.meta.url).pathname });
  const ok = r.status === 0;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  if (!ok) failed.push(name);
}
if (failed.length) console.log(`check failed: ${failed.join(', ')}`);
process.exit(failed.length ? 1 : 0);
