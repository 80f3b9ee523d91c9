import { describe, expect, it } from 'vitest';
import { GroupCommit, type GroupCommitOptions } from './group-commit.js';

interface Item { key: string; id: string; size?: number; bad?: boolean }

/** A committer whose `run` records each batch and finishes when the test releases it. */
function harness(opts: Partial<GroupCommitOptions<Item, string>> = {}) {
  const batches: Item[][] = [];
  const waiting: Array<() => void> = [];
  const gc = new GroupCommit<Item, string>({
    maxInFlight: 1, maxInFlightPerKey: 1, maxBatch: 100, maxBytes: 1000,
    key: (i) => i.key, distinct: (i) => i.id, size: (i) => i.size ?? 1,
    async run(_key, items) {
      batches.push(items);
      await new Promise<void>((r) => waiting.push(r));
      if (items.some((i) => i.bad)) throw new Error(`bad item in ${items.map((i) => i.id).join(',')}`);
      return items.map((i) => `${i.key}:${i.id}`);
    },
    ...opts,
  });
  const release = async () => {
    await new Promise((r) => setImmediate(r));
    waiting.splice(0).forEach((r) => r());
    await new Promise((r) => setImmediate(r));
  };
  return { gc, batches, release };
}

describe('group commit', () => {
  it('sends a lone item at once, and what queues behind a busy slot as one batch', async () => {
    const { gc, batches, release } = harness();
    const first = gc.submit({ key: 'p', id: 'a' });
    expect(batches.map((b) => b.map((i) => i.id))).toEqual([['a']]);
    const rest = ['b', 'c', 'd'].map((id) => gc.submit({ key: 'p', id }));
    expect(batches).toHaveLength(1);
    await release();
    expect(await first).toBe('p:a');
    expect(batches.map((b) => b.map((i) => i.id))).toEqual([['a'], ['b', 'c', 'd']]);
    await release();
    expect(await Promise.all(rest)).toEqual(['p:b', 'p:c', 'p:d']);
  });

  it('never puts two items of one value in a batch, and keeps their order', async () => {
    const { gc, batches, release } = harness();
    const all = [gc.submit({ key: 'p', id: 'x' }), gc.submit({ key: 'p', id: 'a' }), gc.submit({ key: 'p', id: 'a' }),
      gc.submit({ key: 'p', id: 'b' }), gc.submit({ key: 'p', id: 'a' })];
    for (let i = 0; i < 4; i++) await release();
    await Promise.all(all);
    expect(batches.map((b) => b.map((i) => i.id))).toEqual([['x'], ['a', 'b'], ['a'], ['a']]);
  });

  it('keeps keys apart and lets them take turns', async () => {
    const { gc, batches, release } = harness({ maxBatch: 2 });
    const all = [gc.submit({ key: 'p', id: '0' }), ...['1', '2', '3', '4'].map((id) => gc.submit({ key: 'p', id })),
      gc.submit({ key: 'q', id: '1' })];
    for (let i = 0; i < 5; i++) await release();
    expect(await Promise.all(all)).toEqual(['p:0', 'p:1', 'p:2', 'p:3', 'p:4', 'q:1']);
    expect(batches.map((b) => b.map((i) => `${i.key}${i.id}`))).toEqual([['p0'], ['p1', 'p2'], ['q1'], ['p3', 'p4']]);
  });

  it('stops a batch at the byte cap, but sends a larger item alone', async () => {
    const { gc, batches, release } = harness({ maxBytes: 10 });
    const all = [gc.submit({ key: 'p', id: '0' }), gc.submit({ key: 'p', id: 'big', size: 50 }),
      gc.submit({ key: 'p', id: 'a', size: 6 }), gc.submit({ key: 'p', id: 'b', size: 4 }), gc.submit({ key: 'p', id: 'c', size: 1 })];
    for (let i = 0; i < 4; i++) await release();
    await Promise.all(all);
    expect(batches.map((b) => b.map((i) => i.id))).toEqual([['0'], ['big'], ['a', 'b'], ['c']]);
  });

  it('runs the items of a failed batch again one by one: only the bad one fails', async () => {
    const { gc, batches, release } = harness();
    const first = gc.submit({ key: 'p', id: '0' });
    const good1 = gc.submit({ key: 'p', id: 'g1' });
    const bad = gc.submit({ key: 'p', id: 'bad', bad: true }).then(() => 'committed', (e: Error) => e.message);
    const good2 = gc.submit({ key: 'p', id: 'g2' });
    await release();
    await release();
    await release();
    expect(await first).toBe('p:0');
    expect(await good1).toBe('p:g1');
    expect(await good2).toBe('p:g2');
    expect(await bad).toBe('bad item in bad');
    expect(batches.map((b) => b.map((i) => i.id))).toEqual([['0'], ['g1', 'bad', 'g2'], ['g1'], ['bad'], ['g2']]);
  });

  it('runs up to maxInFlight batches at once, and up to maxInFlightPerKey of one key', async () => {
    const { gc, batches, release } = harness({ maxInFlight: 3, maxInFlightPerKey: 3 });
    const all = ['a', 'b', 'c', 'd', 'e'].map((id) => gc.submit({ key: 'p', id }));
    expect(batches.map((b) => b.map((i) => i.id))).toEqual([['a'], ['b'], ['c']]);
    await release();
    await release();
    await Promise.all(all);
    expect(batches.map((b) => b.map((i) => i.id))).toEqual([['a'], ['b'], ['c'], ['d', 'e']]);
  });

  it('gives a key whose statements are stuck only its own slots', async () => {
    const { gc, batches, release } = harness({ maxInFlight: 4, maxInFlightPerKey: 2 });
    const all = [...['1', '2', '3', '4'].map((id) => gc.submit({ key: 'p', id })), gc.submit({ key: 'q', id: '1' }), gc.submit({ key: 'q', id: '2' })];
    expect(batches.map((b) => b.map((i) => `${i.key}${i.id}`))).toEqual([['p1'], ['p2'], ['q1'], ['q2']]);
    await release();
    await release();
    expect(await Promise.all(all)).toEqual(['p:1', 'p:2', 'p:3', 'p:4', 'q:1', 'q:2']);
    expect(batches.map((b) => b.map((i) => `${i.key}${i.id}`))).toEqual([['p1'], ['p2'], ['q1'], ['q2'], ['p3', 'p4']]);
  });
});
