import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** Where the build records the {@link sourceHash} it was made from, inside `web/dist`. */
export const SOURCE_HASH_FILE = '.source-hash';

function files(dir: string, keep: (f: string) => boolean): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  return entries.sort().flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? files(full, keep) : keep(full) ? [full] : [];
  });
}

/**
 * The server modules the dashboard bundles (its shared rules: zod schemas, the operator table, event
 * types…): every `src/` file a `web/src` file imports, and what those import in turn, followed by their
 * relative import specifiers (`./x.js` is read as `./x.ts`).
 */
function serverImports(repoRoot: string, webFiles: string[]): string[] {
  const src = path.join(repoRoot, 'src') + path.sep;
  const found = new Set<string>();
  const queue = [...webFiles];
  while (queue.length) {
    const file = queue.pop()!;
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const [, spec] of text.matchAll(/from\s+['"](\.{1,2}\/[^'"]+)['"]/g)) {
      const target = path.resolve(path.dirname(file), spec).replace(/\.js$/, '');
      const ts = target.endsWith('.ts') ? target : `${target}.ts`;
      if (ts.startsWith(src) && !found.has(ts)) {
        found.add(ts);
        queue.push(ts);
      }
    }
  }
  return [...found].sort();
}

/**
 * A SHA-256 over every input of the dashboard's bundle: `web/src`, `web/public`, its HTML, build
 * config and package file, the server's `*.schema.ts` files (the forms share their zod rules) and every
 * other server module the dashboard imports.
 * Tests compare it with the one recorded in `web/dist` to rebuild a stale bundle before using it.
 * @param repoRoot the repository's root folder.
 */
export function sourceHash(repoRoot: string): string {
  const web = path.join(repoRoot, 'web');
  const webFiles = files(path.join(web, 'src'), (f) => !/\.test\.tsx?$/.test(f));
  const inputs = [
    ...webFiles,
    ...files(path.join(web, 'public'), () => true),
    ...['index.html', 'vite.config.ts', 'package.json', 'tsconfig.json', 'source-hash.ts'].map((f) =>
      path.join(web, f),
    ),
    ...new Set([
      ...files(path.join(repoRoot, 'src'), (f) => f.endsWith('.schema.ts')),
      ...serverImports(repoRoot, webFiles),
    ]),
  ];
  const hash = createHash('sha256');
  for (const file of inputs) {
    hash.update(path.relative(repoRoot, file)).update('\0');
    try {
      hash.update(readFileSync(file));
    } catch {
      hash.update('missing');
    }
    hash.update('\0');
  }
  return hash.digest('hex');
}
