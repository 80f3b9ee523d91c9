import { describe, expect, it } from 'vitest';
import { convertValue, dataFromRows, newRow, rowsFromData, type DataRow } from './dataRows';

const row = (key: string, type: DataRow['type'], value: string): DataRow => ({ ...newRow(), key, type, value });

describe('rowsFromData', () => {
  it('types each value, shows objects as JSON, keys in alphabetical order whatever the storage order', () => {
    const rows = rowsFromData({
      plan: 'pro',
      age: 42,
      vip: false,
      address: { city: 'Oslo' },
      Zone: 'b',
      firstName: 'A',
    });
    expect(rows.map((r) => [r.key, r.type, r.value])).toEqual([
      ['address', 'json', '{\n  "city": "Oslo"\n}'],
      ['age', 'number', '42'],
      ['firstName', 'string', 'A'],
      ['plan', 'string', 'pro'],
      ['vip', 'boolean', 'false'],
      ['Zone', 'string', 'b'],
    ]);
  });
});

describe('dataFromRows', () => {
  it('sends typed values of a new contact', () => {
    const out = dataFromRows([
      row('plan', 'string', 'pro'),
      row('age', 'number', ' 42 '),
      row('vip', 'boolean', 'true'),
      row('n', 'json', '3'),
    ]);
    expect(out.valid).toBe(true);
    expect(out.data).toEqual({ plan: 'pro', age: 42, vip: true, n: 3 });
  });

  it('sends only what changed, and removed or renamed keys as null', () => {
    const original = { plan: 'pro', age: 42, address: { city: 'Oslo' }, old: 'x' };
    const rows = rowsFromData(original)
      .filter((r) => r.key !== 'age')
      .map((r) => (r.key === 'old' ? { ...r, key: 'renamed' } : r));
    rows.push(row('score', 'number', '7'));
    const out = dataFromRows(rows, original);
    expect(out.valid).toBe(true);
    // The unchanged object stays untouched: it is not sent at all.
    expect(out.data).toEqual({ age: null, old: null, renamed: 'x', score: 7 });
  });

  it('refuses empty keys, duplicates, reserved keys, bad numbers, bad JSON, null and new objects', () => {
    const rows = [
      row('', 'string', 'a'),
      row('a', 'string', ''),
      row('a', 'number', 'twelve'),
      row('email', 'string', 'x'),
      row('j', 'json', '{bad'),
      row('k', 'json', 'null'),
      row('o', 'json', '{"a":1}'),
    ];
    const out = dataFromRows(rows);
    expect(out.valid).toBe(false);
    expect(Object.values(out.errors)).toEqual([
      { key: 'Enter a key' },
      { value: 'Enter a value, or remove the field' },
      { key: 'This key is already used above', value: 'Enter a number, e.g. 42 or 3.5' },
      { key: 'email is reserved: choose another key' },
      { value: expect.stringMatching(/^Not valid JSON/) },
      { value: 'null is not a value: remove the field instead' },
      { value: expect.stringMatching(/^Objects and lists are stored only from tracked events/) },
    ]);
  });
});

describe('convertValue', () => {
  it('keeps what a type switch can keep', () => {
    expect(convertValue('False', 'boolean')).toBe('false');
    expect(convertValue('True', 'boolean')).toBe('true');
    expect(convertValue('42', 'number')).toBe('42');
  });
});
