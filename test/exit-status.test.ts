import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');

/**
 * Runs `npm test` (the README's test command) on a test file that fails on purpose, with `env` on top
 * of this process's environment (a value of '' removes the variable). Resolves with the exit status
 * and the output.
 */
function npmTest(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const childEnv: Record<string, string> = { ...(process.env as Record<string, string>), ...env };
  for (const k of Object.keys(env)) if (env[k] === '') delete childEnv[k];
  // The nested vitest must not think it runs inside this one.
  for (const k of Object.keys(childEnv)) if (k.startsWith('VITEST') || k === 'TEST') delete childEnv[k];
  return new Promise((resolve) => {
    const child = spawn('npm', ['test', '--', '--config', 'test/fixtures/failing/vitest.config.ts'], {
      cwd: root,
      env: childEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('npm test reports failure with a non-zero exit status', () => {
  it('with the embedded database', async () => {
    const { code, output } = await npmTest({ DATABASE_URL: '' });
    expect(output).toContain('fails on purpose');
    expect(output).toMatch(/1 failed/);
    expect(code).not.toBe(0);
  }, 120_000);

  it('with DATABASE_URL', async () => {
    const { code, output } = await npmTest({ DATABASE_URL: inject('serverUrl') });
    expect(output).toContain('fails on purpose');
    expect(output).toMatch(/1 failed/);
    expect(code).not.toBe(0);
  }, 120_000);

  it('when the embedded database cannot start', async () => {
    // The embedded cluster goes in the temp folder; one that cannot be made stops the start.
    const { code, output } = await npmTest({
      DATABASE_URL: '',
      TMPDIR: path.join(root, 'package.json', 'not-a-folder'),
    });
    expect(output).not.toContain('fails on purpose');
    expect(code).not.toBe(0);
  }, 120_000);
});
