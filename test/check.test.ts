import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cruise } from 'dependency-cruiser';
import { ESLint } from 'eslint';
import * as prettier from 'prettier';
import ts from 'typescript';

// `npm run check` (scripts/check.mjs) must fail on a broken file, not only pass on a clean tree: each
// of its tools, with the repository's own configuration, is given a deliberately broken file and a
// clean one (the control: a failure must come from the breakage, not from a broken configuration).
const root = path.resolve(import.meta.dirname, '..');
const require = createRequire(import.meta.url);

describe('the static checks fail on a broken file', () => {
  let dir: string;
  const file = (name: string, text: string) => {
    const f = path.join(dir, name);
    writeFileSync(f, text);
    return f;
  };
  beforeAll(() => {
    // Inside the repository, so that the repository's configurations apply to it.
    dir = mkdtempSync(path.join(root, 'test', '.check-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const clean = 'export const greeting = (name: string): string => `Hello, ${name}`;\n';

  it('types: tsc reports a type error', () => {
    const options = ts.parseJsonConfigFileContent(
      ts.readConfigFile(path.join(root, 'tsconfig.json'), ts.sys.readFile).config,
      ts.sys,
      root,
    ).options;
    const typed = file('typed.ts', clean);
    const untyped = file('untyped.ts', "export const n: number = 'one';\n");
    const program = ts.createProgram([typed, untyped], { ...options, noEmit: true });
    const codes = (f: string) => ts.getPreEmitDiagnostics(program, program.getSourceFile(f)).map((d) => d.code);
    expect(codes(typed)).toEqual([]);
    expect(codes(untyped)).toContain(2322);
  });

  it('lint: ESLint reports an unused variable and an explicit any', async () => {
    // The folder is in the repository's ignores (a crashed run must not fail the real lint), so ignores are off here.
    const eslint = new ESLint({ cwd: root, ignore: false });
    const [ok] = await eslint.lintFiles([file('linted.ts', clean)]);
    expect(ok.messages).toEqual([]);
    const [bad] = await eslint.lintFiles([file('unlinted.ts', 'const unused = 1;\nexport const x = (v: any) => v;\n')]);
    expect(bad.messages.map((m) => m.ruleId).sort()).toEqual([
      '@typescript-eslint/no-explicit-any',
      '@typescript-eslint/no-unused-vars',
    ]);
  });

  it('format: Prettier finds a file not formatted its way', async () => {
    const config = { ...(await prettier.resolveConfig(path.join(dir, 'x.ts'))), filepath: path.join(dir, 'x.ts') };
    expect(config.printWidth).toBe(120);
    expect(await prettier.check(clean, config)).toBe(true);
    expect(await prettier.check('export const greeting=(name:string):string=>"Hello, "+name\n', config)).toBe(false);
  });

  it('imports: dependency-cruiser reports an import cycle', async () => {
    const config = require(path.join(root, '.dependency-cruiser.cjs'));
    const run = async (sub: string) => {
      const r = await cruise([path.relative(root, path.join(dir, sub))], {
        ruleSet: config,
        validate: true,
        tsPreCompilationDeps: true,
        baseDir: root,
      });
      return typeof r.output === 'string' ? [] : r.output.summary.violations.map((v) => v.rule.name);
    };
    file('a.ts', "import { b } from './b.js';\nexport const a = (): number => b() + 1;\n");
    file('b.ts', 'export const b = (): number => 1;\n');
    expect(await run('a.ts')).toEqual([]);
    file('b.ts', "import { a } from './a.js';\nexport const b = (): number => 1;\nexport const c = () => a();\n");
    expect(await run('a.ts')).toContain('no-cycle');
  });
});
