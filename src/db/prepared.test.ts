import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type TestProject } from '../../test/factories.js';
import { createHarness, type Harness } from '../../test/harness.js';
import { executePrepared, hotStatement } from './prepared.js';

// executePrepared: the same result as db.execute, in or out of a transaction, as a named statement.
describe('executePrepared', () => {
  let h: Harness;
  let p: TestProject;
  beforeAll(async () => {
    h = await createHarness();
    p = await createProject(h);
  });
  afterAll(async () => h?.close());

  const read = (id: string) =>
    sql`select id, created_at, data from contacts where project_id = ${p.id} and id = ${id}::uuid`;

  it('answers what db.execute answers (timestamps as strings, jsonb parsed) and is kept as a prepared statement', async () => {
    const [c] = await h.sql(
      `insert into contacts (id, project_id, email, data) values (gen_random_uuid(), $1, 'prep@example.test', '{"plan":"pro"}') returning id`,
      [p.id],
    );
    const plain = await h.deps.db.execute(read(c.id));
    const prepared = await executePrepared(h.deps.db, read(c.id));
    expect(prepared.rows).toEqual(plain.rows);
    expect(typeof prepared.rows[0].created_at).toBe('string');
    expect(prepared.rows[0].data).toEqual({ plan: 'pro' });
    // On one connection (a transaction), the statement is there by name after the call.
    const names = await h.deps.db.transaction(async (tx) => {
      await executePrepared(tx, read(c.id));
      await executePrepared(tx, read(c.id));
      return (
        await tx.execute<{ name: string }>(sql`select name from pg_prepared_statements where name like 'pigeon\_%'`)
      ).rows.map((r) => r.name);
    });
    expect(names.length).toBeGreaterThanOrEqual(1);
  });

  it("runs inside the caller's transaction: a rollback undoes its write", async () => {
    const write = (email: string) =>
      sql`insert into contacts (id, project_id, email) values (gen_random_uuid(), ${p.id}, ${email})`;
    await h.deps.db
      .transaction(async (tx) => {
        await executePrepared(tx, write('rolled-back@example.test'));
        throw Object.assign(new Error('rollback'), { rollback: true });
      })
      .catch((e) => expect(e.rollback).toBe(true));
    expect(
      await h.sql(`select 1 from contacts where project_id = $1 and email = 'rolled-back@example.test'`, [p.id]),
    ).toEqual([]);
    await h.deps.db.transaction(async (tx) => executePrepared(tx, write('kept@example.test')));
    expect(
      await h.sql(`select 1 from contacts where project_id = $1 and email = 'kept@example.test'`, [p.id]),
    ).toHaveLength(1);
  });

  it("reports a statement's error as db.execute does", async () => {
    const bad = sql`select 1 / ${0}::int as x`;
    await expect(executePrepared(h.deps.db, bad)).rejects.toThrow();
    const err = await executePrepared(h.deps.db, bad).catch((e) => e);
    const code = err.code ?? err.cause?.code;
    expect(code).toBe('22012');
  });
});

// hotStatement: the text is rendered once; each run fills in its own values.
describe('hotStatement', () => {
  let h: Harness;
  let p: TestProject;
  let other: TestProject;
  beforeAll(async () => {
    h = await createHarness();
    p = await createProject(h);
    other = await createProject(h);
  });
  afterAll(async () => h?.close());

  it('builds the text once and answers each run with its own values, in and out of a transaction', async () => {
    let builds = 0;
    const inner = (projectId: string) => sql`select count(*)::int from contacts where project_id = ${projectId}::uuid`;
    const count = hotStatement<{ projectId: string; email: string }, { n: number; same: number; email: string }>(
      (v) => {
        builds++;
        return sql`select (${inner(v.projectId)}) as n, (select count(*)::int from contacts where project_id = ${v.projectId}::uuid and email = ${v.email}) as same, ${v.email}::text as email`;
      },
    );
    await h.sql(
      `insert into contacts (id, project_id, email) values (gen_random_uuid(), $1, 'a@example.test'), (gen_random_uuid(), $1, 'b@example.test'), (gen_random_uuid(), $2, 'a@example.test')`,
      [p.id, other.id],
    );
    expect((await count(h.deps.db, { projectId: p.id, email: 'a@example.test' })).rows).toEqual([
      { n: 2, same: 1, email: 'a@example.test' },
    ]);
    expect((await count(h.deps.db, { projectId: other.id, email: 'c@example.test' })).rows).toEqual([
      { n: 1, same: 0, email: 'c@example.test' },
    ]);
    const inTx = await h.deps.db.transaction(async (tx) => {
      await tx.execute(
        sql`insert into contacts (id, project_id, email) values (gen_random_uuid(), ${other.id}, 'c@example.test')`,
      );
      return (await count(tx, { projectId: other.id, email: 'c@example.test' })).rows;
    });
    expect(inTx).toEqual([{ n: 2, same: 1, email: 'c@example.test' }]);
    expect(builds).toBe(1);
  });

  it("reports a statement's error as db.execute does", async () => {
    const divide = hotStatement<{ d: number }, { x: number }>((v) => sql`select 1 / ${v.d}::int as x`);
    expect((await divide(h.deps.db, { d: 1 })).rows).toEqual([{ x: 1 }]);
    const err = await divide(h.deps.db, { d: 0 }).catch((e) => e);
    expect(err.code ?? err.cause?.code).toBe('22012');
  });
});
