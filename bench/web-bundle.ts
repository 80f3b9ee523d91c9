/**
 * The dashboard's JavaScript weight against its budget: initial JavaScript ≤ 250 kB gzipped.
 * Reads the Vite manifest of the built bundle (`web/dist`, built by `npm install` or
 * `npm run build -w web`) and gzips each chunk (level 9, as the server's precompressed `.gz` files):
 * - entry: what `index.html` loads before anything runs (the entry script and its modulepreloads);
 * - each lazily loaded screen: the entry plus the chunks that screen adds on first visit.
 * The budget is checked against the heaviest first screen (entry + that screen), so moving code from
 * the entry into lazy chunks cannot hide weight. A screen's own deferred parts (a code editor, a chart
 * library: chunks a screen imports lazily and shows a placeholder for while they load, not screens the
 * router imports) are listed apart, each against a budget of its own: the screen is usable before they
 * arrive. Exits 1 over either budget.
 * Run: npx tsx bench/web-bundle.ts
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

const BUDGET = 250_000;
/** The most a deferred part of a screen may add on top of the entry and its screen. */
const DEFERRED_BUDGET = 120_000;
const dist = path.resolve(import.meta.dirname, '..', 'web', 'dist');
const manifestFile = path.join(dist, '.vite', 'manifest.json');
if (!existsSync(manifestFile)) {
  process.stderr.write('web/dist is not built: run npm run build -w web\n');
  process.exit(2);
}

interface Chunk {
  file: string;
  imports?: string[];
  dynamicImports?: string[];
  isEntry?: boolean;
  isDynamicEntry?: boolean;
  src?: string;
}
const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as Record<string, Chunk>;

const gz = new Map<string, number>();
const gzipped = (file: string) => {
  if (!gz.has(file)) gz.set(file, gzipSync(readFileSync(path.join(dist, file)), { level: 9 }).length);
  return gz.get(file)!;
};

/** The JS files `key` loads statically (itself and its imports, recursively). */
function closure(key: string, seen = new Set<string>()): Set<string> {
  const c = manifest[key];
  if (!c || seen.has(c.file)) return seen;
  if (c.file.endsWith('.js')) seen.add(c.file);
  for (const i of c.imports ?? []) closure(i, seen);
  return seen;
}
const sum = (files: Iterable<string>) => [...files].reduce((n, f) => n + gzipped(f), 0);
const kb = (n: number) => `${(n / 1000).toFixed(1)} kB`;

const entryKey = Object.keys(manifest).find((k) => manifest[k].isEntry)!;
const entry = closure(entryKey);
const entrySize = sum(entry);
// Screens are what the router (in the entry's files) imports lazily; other lazy chunks are deferred parts.
const routed = new Set(
  [...entry].flatMap((f) =>
    Object.values(manifest)
      .filter((c) => c.file === f)
      .flatMap((c) => c.dynamicImports ?? []),
  ),
);
const screens = Object.entries(manifest)
  .filter(([key, c]) => c.isDynamicEntry && routed.has(key))
  .map(([key, c]) => {
    const added = [...closure(key)].filter((f) => !entry.has(f));
    return { key, name: c.src ?? key, added: sum(added), total: entrySize + sum(added) };
  })
  .sort((a, b) => b.total - a.total);

const allJs = sum(
  new Set(
    Object.values(manifest)
      .map((c) => c.file)
      .filter((f) => f.endsWith('.js')),
  ),
);
const css = Object.values(manifest).flatMap((c) => (c as { css?: string[] }).css ?? []);
process.stdout.write(`entry (index.html script + modulepreloads): ${kb(entrySize)} gzipped in ${entry.size} files\n`);
process.stdout.write(`first screen, entry + lazy chunks of each screen:\n`);
for (const s of screens) process.stdout.write(`  ${kb(s.total).padStart(9)}  (+${kb(s.added)})  ${s.name}\n`);
process.stdout.write(`all JavaScript of the dashboard: ${kb(allJs)} gzipped; CSS ${kb(sum(new Set(css)))} gzipped\n`);
const shown = new Set([...entry, ...screens.flatMap((s) => [...closure(s.key)])]);
const deferred = Object.entries(manifest)
  .filter(([key, c]) => c.isDynamicEntry && !routed.has(key))
  .map(([key, c]) => ({ name: c.src ?? key, added: sum([...closure(key)].filter((f) => !shown.has(f))) }))
  .sort((a, b) => b.added - a.added);
if (deferred.length) {
  process.stdout.write(`deferred parts, loaded after their screen shows (budget ${kb(DEFERRED_BUDGET)} each):\n`);
  for (const d of deferred) process.stdout.write(`  ${('+' + kb(d.added)).padStart(10)}  ${d.name}\n`);
}
const worst = screens[0]?.total ?? entrySize;
const worstDeferred = deferred[0]?.added ?? 0;
const ok = worst <= BUDGET && worstDeferred <= DEFERRED_BUDGET;
process.stdout.write(
  `budget: heaviest first screen ${kb(worst)} of ${kb(BUDGET)}, heaviest deferred part ${kb(worstDeferred)} of ${kb(DEFERRED_BUDGET)}: ${ok ? 'within budget' : 'OVER BUDGET'}\n`,
);
process.exit(ok ? 0 : 1);
