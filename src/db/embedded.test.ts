import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { embeddedSharedBuffersMb } from './embedded.js';

const GB = 1024 ** 3;

describe('embedded PostgreSQL settings', () => {
  it('gives the buffer cache a quarter of the memory, between 128 MB and 1 GB, under a cgroup limit when lower', () => {
    expect(embeddedSharedBuffersMb(24 * GB, 0)).toBe(1024);
    expect(embeddedSharedBuffersMb(2 * GB, 0)).toBe(512);
    expect(embeddedSharedBuffersMb(0.25 * GB, 0)).toBe(128);
    expect(embeddedSharedBuffersMb(24 * GB, 1 * GB)).toBe(256);
    // No limit is reported as 0 or as a figure beyond the machine's memory.
    expect(embeddedSharedBuffersMb(2 * GB, 2 ** 63)).toBe(512);
  });

  it.runIf(!process.env.DATABASE_URL)('the embedded server of this test run runs with that cache', async () => {
    const c = new pg.Client({ connectionString: inject('serverUrl') });
    await c.connect();
    try {
      const r = await c.query<{ mb: number }>(
        `select setting::bigint * 8 / 1024 as mb from pg_settings where name = 'shared_buffers'`,
      );
      expect(Number(r.rows[0].mb)).toBe(embeddedSharedBuffersMb());
    } finally {
      await c.end();
    }
  });
});
