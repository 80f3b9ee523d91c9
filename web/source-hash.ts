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
 * A SHA-256 over every input of the dashboard's bundle: `web/src`, `web/public`, its HTML, build
 * config and package file, and the server's `*.schema.ts` files (the forms share their zod rules).
 * Tests compare it with the one recorded in `web/dist` to rebuild a stale bundle before using it.
 * @param repoRoot the repository's root folder.
 */
export function sourceHash(repoRoot: string): string {
  const web = path.join(repoRoot, 'web');
  const inputs = [
    ...files(path.join(web, 'src'), (f) => !/\.test\.tsx?$/.test(f)),
    ...files(path.join(web, 'public'), () => true),
    ...['index.html', 'vite.config.ts', 'package.json', 'tsconfig.json', 'source-hash.ts'].map((f) =>
      path.join(web, f),
    ),
    ...files(path.join(repoRoot, 'src'), (f) => f.endsWith('.schema.ts')),
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
