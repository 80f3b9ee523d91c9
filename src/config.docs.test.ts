import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import {
  BEGIN_MARKER,
  CONFIG_DOCS_FILE,
  END_MARKER,
  GENERATE_COMMAND,
  withGeneratedTable,
} from '../scripts/gen-config-docs.js';
import { ENV_VARIABLES } from './config.js';

/** The variable names of the first column of every table row between the markers (`PORT` / `HOST` gives two). */
function documentedNames(markdown: string): string[] {
  const region = markdown.slice(markdown.indexOf(BEGIN_MARKER), markdown.indexOf(END_MARKER));
  return region
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .flatMap((line) => [...line.split(' | ')[0].matchAll(/`([A-Z0-9_]+)`/g)].map((m) => m[1]));
}

/** docs/configuration.md's table of environment variables is generated from ENV_DOCS (src/config-docs.ts). */
describe('configuration docs', () => {
  it('are what the generator writes from ENV_DOCS', async () => {
    const current = await readFile(CONFIG_DOCS_FILE, 'utf8');
    expect(
      current,
      `docs/configuration.md differs from ENV_DOCS in src/config-docs.ts: run \`${GENERATE_COMMAND}\``,
    ).toBe(withGeneratedTable(current));
  });

  it('document every variable of the schema, and only those', async () => {
    const names = documentedNames(await readFile(CONFIG_DOCS_FILE, 'utf8'));
    expect(new Set(names).size, 'a variable has two rows').toBe(names.length);
    expect([...names].sort()).toEqual([...ENV_VARIABLES].sort());
  });
});
