import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { ADD_JOBS_FUNCTION } from '../worker/graphile.js';
import { migrateDatabase } from './migrate.js';

/** Migrations apply at start under an advisory lock; several processes may start at once. */
describe('migrations', () => {
  it('apply exactly once when four processes start together on an empty database', async () => {
    const serverUrl = inject('serverUrl');
    const name = `pigeon_t_${inject('templateDb').slice('pigeon_tpl_'.length)}_mig_${process.pid}`;
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`create database ${name}`);
    const u = new URL(serverUrl);
    u.pathname = `/${name}`;
    const pools = Array.from({ length: 4 }, () => {
      const pool = new pg.Pool({ connectionString: u.toString(), max: 3 });
      // The final forced drop ends any straggling connection; that is expected here.
      pool.on('error', () => undefined);
      return pool;
    });
    try {
      await Promise.all(pools.map((p) => migrateDatabase(p)));
      const applied = await pools[0].query('select count(*)::int as n from drizzle.__drizzle_migrations');
      const files = (await import('node:fs'))
        .readdirSync(new URL('./migrations', import.meta.url))
        .filter((f) => f.endsWith('.sql'));
      expect(applied.rows[0].n).toBe(files.length);
      const tables = await pools[0].query(
        `select count(*)::int as n from information_schema.tables where table_schema = 'public'`,
      );
      expect(tables.rows[0].n).toBeGreaterThan(15);
      // Running again is a no-op.
      await migrateDatabase(pools[1]);
      expect((await pools[0].query('select count(*)::int as n from drizzle.__drizzle_migrations')).rows[0].n).toBe(
        files.length,
      );
      // Graphile's add_jobs is planned per call; a start puts the setting back when an upgrade dropped it.
      const config = async () =>
        (
          await pools[0].query(
            `select proconfig from pg_proc
        where oid = $1::regprocedure`,
            [ADD_JOBS_FUNCTION],
          )
        ).rows[0].proconfig;
      expect(await config()).toEqual(['plan_cache_mode=force_custom_plan']);
      await pools[0].query(`alter function ${ADD_JOBS_FUNCTION} reset all`);
      expect(await config()).toBeNull();
      await migrateDatabase(pools[2]);
      expect(await config()).toEqual(['plan_cache_mode=force_custom_plan']);
    } finally {
      await Promise.all(pools.map((p) => p.end()));
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    }
  });
});
