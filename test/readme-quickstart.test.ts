import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness.js';
import { waitForMail } from './outbox.js';

const run = promisify(execFile);
const README = path.resolve(import.meta.dirname, '..', 'README.md');

/** The `sh` blocks of the README between `from` and `to` (two headings), in order, de-indented. */
async function shellBlocks(from: string, to: string): Promise<string[]> {
  const text = await readFile(README, 'utf8');
  const section = text.slice(text.indexOf(from), text.indexOf(to));
  return [...section.matchAll(/^( *)```sh\n([\s\S]*?)^\1```/gm)].map(([, indent, body]) =>
    body
      .split('\n')
      .map((l) => l.slice(indent.length))
      .join('\n'),
  );
}

// The README's quick start, word for word: its curl lines run in bash against a Pigeon with no relay
// and no DNS (mail goes to the outbox), the address `localhost:3000` replaced by the test server's.
// A step that stops setting `$SK`, `$PK` or `$DOMAIN_ID` from the answer it follows fails here.
describe("the README's quick start", () => {
  let h: Harness;
  let dir: string;
  beforeAll(async () => {
    h = await createHarness({ worker: true, localSenderRule: true });
    dir = await mkdtemp(path.join(tmpdir(), 'pigeon-readme-'));
  });
  afterAll(async () => {
    await h?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('signs up, keeps the keys, sends a first mail to the outbox, tracks, and adds a domain', async () => {
    const blocks = await shellBlocks('## Quick start', '## Dashboard');
    // The first block is `npm install && npm start`: the harness is that server.
    expect(blocks[0].trim()).toBe('npm install && npm start');
    const host = new URL(h.url).host;
    const script = blocks
      .slice(1)
      .join('\n')
      .replaceAll('localhost:3000', host)
      .replaceAll('you@example.com', `readme-${Date.now()}@example.com`);
    const { stdout } = await run(
      'bash',
      ['-euo', 'pipefail', '-c', `${script}\necho; echo "SK=$SK PK=$PK DOMAIN_ID=$DOMAIN_ID"`],
      { cwd: dir, timeout: 30_000 },
    );
    const vars = /SK=(\S+) PK=(\S+) DOMAIN_ID=(\S+)\s*$/.exec(stdout);
    expect(vars, stdout).not.toBeNull();
    const [, sk, pk, domainId] = vars!;
    expect(sk).toMatch(/^sk_/);
    expect(pk).toMatch(/^pk_/);
    const [domain] = await h.sql<{ domain: string }>('select domain from domains where id = $1', [domainId]);
    expect(domain?.domain).toBe('example.com');
    // The send answered, and the mail is in the outbox as the quick start says.
    expect(stdout).toContain('"success":true');
    const mail = await waitForMail(h.dataDir, 'friend@example.org', 'Hi there');
    expect(mail.headers.get('x-pigeon-unverified-sender')).toBe('outbox only');
    const [tracked] = await h.sql<{ n: number }>(
      `select count(*)::int as n from events e join contacts c on c.id = e.contact_id
        where c.email = 'friend@example.org' and e.name = 'signed-up'`,
    );
    expect(tracked.n).toBe(1);
  });
});
