import { mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outboxTransport } from './transport.js';

/** The outbox keeps reset links and tokens: readable by Pigeon's user only (finding 12 of "Hardening II"). */
describe('the outbox transport', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'pigeon-outbox-'));
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it('writes each message 0600 in a 0700 folder, correcting a folder made wider before', async () => {
    const dir = path.join(root, 'outbox');
    await mkdir(dir, { mode: 0o755 });
    const t = outboxTransport(dir);
    await t.send({
      from: 'a@example.test',
      to: 'b@example.test',
      subject: 'Reset',
      text: 'https://pigeon.example/reset-password?token=secret',
    });
    await t.close();
    const [file] = await readdir(dir);
    expect((await stat(path.join(dir, file))).mode & 0o777).toBe(0o600);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
  });
});
