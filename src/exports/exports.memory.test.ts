import { spawn } from 'node:child_process';
import { createReadStream } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';

const CONTACTS = 100_000;
const LIMIT = 200 * 1024 * 1024;

/** An export of 100,000 contacts in a process of its own: every row written, peak RSS under 200 MB. */
describe('export memory', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(async () => h.close());

  it(
    `writes all ${CONTACTS.toLocaleString('en')} contacts with a peak RSS under 200 MB`,
    { timeout: 180_000 },
    async () => {
      const p = await createProject(h);
      await h.sql(
        `insert into contacts (id, project_id, email, subscribed, data, created_at, updated_at)
       select gen_random_uuid(), $1, 'c' || i || '@example.test', true,
         jsonb_build_object('firstName', 'Name ' || i, 'plan', 'pro', 'note', repeat('x', 100)), now(), now()
       from generate_series(1, $2) i`,
        [p.id, CONTACTS],
      );
      // As a live table would have: planner statistics (a fresh clone has none until autovacuum runs).
      await h.sql('analyze contacts');
      const res = await h.request('POST', '/exports', { key: p.secretKey, body: { kind: 'contacts', format: 'csv' } });
      expect(res.status).toBe(202);
      const dbUrl = (h.deps.pool as unknown as { options: { connectionString: string } }).options.connectionString;
      const child = spawn(
        process.execPath, // The worker's own flags (Dockerfile, npm start).
        ['--max-semi-space-size=4', '--max-old-space-size=1024', '--import', 'tsx', 'test/export-child.ts'],
        {
          env: { ...process.env, EXPORT_DATABASE_URL: dbUrl, EXPORT_DATA_DIR: h.dataDir, EXPORT_ID: res.body.id },
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      let out = '';
      child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      expect(code).toBe(0);
      const { peakRss } = JSON.parse(out) as { peakRss: number };
      expect(peakRss).toBeGreaterThan(0);
      expect(peakRss).toBeLessThan(LIMIT);

      const e = (await h.request('GET', `/exports/${res.body.id}`, { key: p.secretKey })).body;
      expect(e).toMatchObject({ state: 'done', rowsDone: CONTACTS, rowsTotal: CONTACTS });
      const file = path.join(h.dataDir, 'exports', 'exports', p.id, `${res.body.id}.csv`);
      const emails = new Set<string>();
      let lines = 0;
      for await (const line of createInterface({ input: createReadStream(file) })) {
        if (lines++ === 0) continue;
        emails.add(line.split(',')[1]);
      }
      expect(lines).toBe(CONTACTS + 1);
      expect(emails.size).toBe(CONTACTS);
    },
  );
});
