import { describe, expect, it } from 'vitest';
import { GroupCommit, groupCommitPerPool, type GroupCommitOptions } from './group-commit.js';

interface Item {
  key: string;
  id: string;
  size?: number;
  bad?: boolean;
}

/** A committer whose `run` records each batch and finishes when the test releases it. */
function harness(opts: Partial<GroupCommitOptions<Item, string>> = {}) {
  const batches: Item[][] = [];
  const waiting: Array<() => void> = [];
  const gc = new GroupCommit<Item, string>({
    maxInFlight: 1,
    maxInFlightPerKey: 1,
    maxBatch: 100,
    maxBytes: 1000,
    key: (i) => i.key,
    distinct: (i) => i.id,
    size: (i) => i.size ?? 1,
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
    const all = [
      gc.submit({ key: 'p', id: 'x' }),
      gc.submit({ key: 'p', id: 'a' }),
      gc.submit({ key: 'p', id: 'a' }),
      gc.submit({ key: 'p', id: 'b' }),
      gc.submit({ key: 'p', id: 'a' }),
    ];
    for (let i = 0; i < 4; i++) await release();
    await Promise.all(all);
    expect(batches.map((b) => b.map((i) => i.id))).toEqual([['x'], ['a', 'b'], ['a'], ['a']]);
  });

  it('keeps keys apart and lets them take turns', async () => {
    const { gc, batches, release } = harness({ maxBatch: 2 });
    const all = [
      gc.submit({ key: 'p', id: '0' }),
      ...['1', '2', '3', '4'].map((id) => gc.submit({ key: 'p', id })),
      gc.submit({ key: 'q', id: '1' }),
    ];
    for (let i = 0; i < 5; i++) await release();
    expect(await Promise.all(all)).toEqual(['p:0', 'p:1', 'p:2', 'p:3', 'p:4', 'q:1']);
    expect(batches.map((b) => b.map((i) => `${i.key}${i.id}`))).toEqual([['p0'], ['p1', 'p2'], ['q1'], ['p3', 'p4']]);
  });

  it('stops a batch at the byte cap, but sends a larger item alone', async () => {
    const { gc, batches, release } = harness({ maxBytes: 10 });
    const all = [
      gc.submit({ key: 'p', id: '0' }),
      gc.submit({ key: 'p', id: 'big', size: 50 }),
      gc.submit({ key: 'p', id: 'a', size: 6 }),
      gc.submit({ key: 'p', id: 'b', size: 4 }),
      gc.submit({ key: 'p', id: 'c', size: 1 }),
    ];
    for (let i = 0; i < 4; i++) await release();
    await Promise.all(all);
    expect(batches.map((b) => b.map((i) => i.id))).toEqual([['0'], ['big'], ['a', 'b'], ['c']]);
  });

  it('runs the items of a failed batch again one by one: only the bad one fails', async () => {
    const { gc, batches, release } = harness();
    const first = gc.submit({ key: 'p', id: '0' });
    const good1 = gc.submit({ key: 'p', id: 'g1' });
    const bad = gc.submit({ key: 'p', id: 'bad', bad: true }).then(
      () => 'committed',
      (e: Error) => e.message,
    );
    const good2 = gc.submit({ key: 'p', id: 'g2' });
    await release();
    // Submitted after the batch: its write to g1 waits for the one that failed with the batch.
    const again = gc.submit({ key: 'p', id: 'g1' });
    // One slot: each item again in turn.
    for (let i = 0; i < 5; i++) await release();
    expect(await first).toBe('p:0');
    expect(await good1).toBe('p:g1');
    expect(await good2).toBe('p:g2');
    expect(await bad).toBe('bad item in bad');
    expect(await again).toBe('p:g1');
    expect(batches.map((b) => b.map((i) => i.id))).toEqual([
      ['0'],
      ['g1', 'bad', 'g2'],
      ['g1'],
      ['bad'],
      ['g2'],
      ['g1'],
    ]);
  });

  it('runs the items of a failed batch again in the slots free, no more at once than maxInFlight', async () => {
    const { gc, batches, release } = harness({ maxInFlight: 2, maxInFlightPerKey: 2 });
    const first = [gc.submit({ key: 'p', id: '0' }), gc.submit({ key: 'p', id: '1' })];
    const failing = ['g1', 'bad', 'g2', 'g3'].map((id) =>
      gc.submit({ key: 'p', id, bad: id === 'bad' }).then(
        (o) => o,
        (e: Error) => e.message,
      ),
    );
    await release();
    const other = gc.submit({ key: 'p', id: 'x' });
    expect(batches.map((b) => b.map((i) => i.id))).toEqual([['0'], ['1'], ['g1', 'bad', 'g2', 'g3'], ['x']]);
    await release();
    expect(batches.slice(4).map((b) => b.map((i) => i.id))).toEqual([['g1'], ['bad']]);
    await release();
    expect(batches.slice(4).map((b) => b.map((i) => i.id))).toEqual([['g1'], ['bad'], ['g2'], ['g3']]);
    await release();
    expect(await Promise.all(first)).toEqual(['p:0', 'p:1']);
    expect(await other).toBe('p:x');
    expect(await Promise.all(failing)).toEqual(['p:g1', 'bad item in bad', 'p:g2', 'p:g3']);
  });

  it('never runs more than maxInFlight statements, nor maxInFlightPerKey of a key, while failed batches are run again', async () => {
    for (const caps of [
      { maxInFlight: 2, maxInFlightPerKey: 2 },
      { maxInFlight: 2, maxInFlightPerKey: 1 },
    ]) {
      let running = 0;
      let most = 0;
      const runningByKey = new Map<string, number>();
      let mostOfAKey = 0;
      const gc = new GroupCommit<Item, string>({
        ...caps,
        maxBatch: 100,
        maxBytes: 1000,
        key: (i) => i.key,
        distinct: (i) => i.id,
        size: () => 1,
        async run(key, items) {
          running++;
          runningByKey.set(key, (runningByKey.get(key) ?? 0) + 1);
          most = Math.max(most, running);
          mostOfAKey = Math.max(mostOfAKey, runningByKey.get(key)!);
          try {
            for (let t = 0; t < 3; t++) await new Promise((r) => setImmediate(r));
            const bad = items.find((i) => i.bad);
            if (bad) throw new Error(`bad: ${bad.id}`);
            return items.map((i) => `${i.key}:${i.id}`);
          } finally {
            running--;
            runningByKey.set(key, runningByKey.get(key)! - 1);
          }
        },
      });
      // Each key's first item goes alone; the eight behind it queue into one batch, which fails.
      const items = ['p', 'q'].flatMap((key) =>
        ['0', ...Array.from({ length: 8 }, (_, n) => `g${n}`)].map((id) => ({ key, id, bad: id === 'g3' })),
      );
      const out = await Promise.all(
        items.map((i) =>
          gc.submit(i).then(
            (o) => o,
            (e: Error) => e.message,
          ),
        ),
      );
      expect(out).toEqual(items.map((i) => (i.bad ? 'bad: g3' : `${i.key}:${i.id}`)));
      expect(most).toBe(2);
      expect(mostOfAKey).toBe(caps.maxInFlightPerKey);
    }
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
    const all = [
      ...['1', '2', '3', '4'].map((id) => gc.submit({ key: 'p', id })),
      gc.submit({ key: 'q', id: '1' }),
      gc.submit({ key: 'q', id: '2' }),
    ];
    expect(batches.map((b) => b.map((i) => `${i.key}${i.id}`))).toEqual([['p1'], ['p2'], ['q1'], ['q2']]);
    await release();
    await release();
    expect(await Promise.all(all)).toEqual(['p:1', 'p:2', 'p:3', 'p:4', 'q:1', 'q:2']);
    expect(batches.map((b) => b.map((i) => `${i.key}${i.id}`))).toEqual([['p1'], ['p2'], ['q1'], ['q2'], ['p3', 'p4']]);
  });
});

describe('groupCommitPerPool', () => {
  it('makes one committer per database handle, holding at most its share of that pool', async () => {
    let running = 0;
    let most = 0;
    const waiting: Array<() => void> = [];
    const get = groupCommitPerPool(4, () => ({
      maxInFlightPerKey: 1,
      maxBatch: 1,
      maxBytes: 1000,
      key: (i: string) => i,
      distinct: (i: string) => i,
      size: () => 1,
      async run(_key: string, items: string[]) {
        most = Math.max(most, ++running);
        await new Promise<void>((r) => waiting.push(r));
        running--;
        return items;
      },
    }));
    const a = { db: {}, pool: { options: { max: 12 } } };
    const b = { db: {}, pool: { options: { max: 2 } } };
    expect(get(a)).toBe(get(a));
    expect(get(b)).not.toBe(get(a));
    // 12 connections / 4: three statements at once, whatever queues.
    const done = Promise.all(['p', 'q', 'r', 's', 't'].map((k) => get(a).submit(k)));
    for (let i = 0; i < 10; i++) {
      await new Promise((r) => setImmediate(r));
      waiting.splice(0).forEach((r) => r());
    }
    expect(await done).toEqual(['p', 'q', 'r', 's', 't']);
    expect(most).toBe(3);
    // A pool smaller than the divisor still gets one.
    const lone = get(b).submit('x');
    await new Promise((r) => setImmediate(r));
    waiting.splice(0).forEach((r) => r());
    expect(await lone).toBe('x');
  });
});
