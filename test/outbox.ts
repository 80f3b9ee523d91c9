import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { simpleParser, type ParsedMail } from 'mailparser';

/** The messages in a harness's outbox (`DATA_DIR/outbox/*.eml`), parsed, oldest first. */
export async function readOutbox(dataDir: string): Promise<ParsedMail[]> {
  const dir = path.join(dataDir, 'outbox');
  const files = (await readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith('.eml')).sort();
  return Promise.all(files.map(async (f) => simpleParser(await readFile(path.join(dir, f)))));
}

/** Outbox messages to `address`. */
export async function outboxTo(dataDir: string, address: string): Promise<ParsedMail[]> {
  const all = await readOutbox(dataDir);
  return all.filter((m) => {
    const to = Array.isArray(m.to) ? m.to : m.to ? [m.to] : [];
    return to.some((t) => t.value.some((v) => v.address?.toLowerCase() === address.toLowerCase()));
  });
}

/**
 * Waits until the outbox holds a message to `address` whose subject is `subject` (mails sent by a
 * worker job arrive some time after the request); resolves with the newest one.
 * @throws after `timeoutMs` without one.
 */
export async function waitForMail(
  dataDir: string,
  address: string,
  subject: string,
  timeoutMs = 15_000,
): Promise<ParsedMail> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const found = (await outboxTo(dataDir, address)).filter((m) => m.subject === subject);
    if (found.length) return found[found.length - 1];
    if (Date.now() > until) throw new Error(`no mail "${subject}" to ${address} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
