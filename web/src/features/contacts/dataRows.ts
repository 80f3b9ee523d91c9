/**
 * The key/value editor's model of a contact's `data`: one row per key with its value as typed text,
 * and the conversions to the bodies of `POST /contacts` and `PATCH /contacts/:id`.
 */

export type ValueType = 'string' | 'number' | 'boolean' | 'json';

export interface DataRow {
  /** Stable React key of the row (keys themselves are edited). */
  rowId: string;
  key: string;
  type: ValueType;
  /** The value as the inputs hold it: text, a number as text, `true`/`false`, or JSON. */
  value: string;
}

/** Problems of one row, shown at its inputs. */
export interface RowErrors {
  key?: string;
  value?: string;
}

/** Keys the server drops silently (they are columns or links, not data): refused before sending. */
const RESERVED = new Set(['id', 'service_id', 'service_email', 'email', 'unsubscribeUrl', 'subscribeUrl', 'manageUrl']);

let counter = 0;
const nextId = () => `row-${++counter}`;

/** An empty text row, for "Add field". */
export const newRow = (): DataRow => ({ rowId: nextId(), key: '', type: 'string', value: '' });

const typeOf = (v: unknown): ValueType =>
  typeof v === 'number' ? 'number' : typeof v === 'boolean' ? 'boolean' : typeof v === 'string' ? 'string' : 'json';

const textOf = (v: unknown, t: ValueType): string => (t === 'json' ? JSON.stringify(v, null, 2) : String(v));

/**
 * The rows of stored data, keys in alphabetical order (case-insensitive), not the storage order of
 * jsonb, so a contact's fields are where a reader looks for them.
 */
export function rowsFromData(data: Record<string, unknown>): DataRow[] {
  const entries = Object.entries(data).sort(([a], [b]) => a.localeCompare(b, undefined, { sensitivity: 'base' }));
  return entries.map(([key, v]) => {
    const type = typeOf(v);
    return { rowId: nextId(), key, type, value: textOf(v, type) };
  });
}

/**
 * The text a value gets when its row switches type, so the switch keeps what can be kept. Only
 * text, number and true/false are offered: `PATCH /contacts/:id` stores no objects or lists (they
 * come from tracked events), so a `json` row is an existing value shown as it is.
 */
export function convertValue(value: string, to: Exclude<ValueType, 'json'>): string {
  if (to === 'boolean') return value.trim().toLowerCase() === 'false' ? 'false' : 'true';
  return value;
}

type Parsed = { ok: true; value: unknown } | { ok: false; error: string };

function parseValue(row: DataRow): Parsed {
  const text = row.value;
  switch (row.type) {
    case 'string':
      // The server ignores empty strings: an empty value would look saved and not be.
      return text === '' ? { ok: false, error: 'Enter a value, or remove the field' } : { ok: true, value: text };
    case 'number': {
      const n = Number(text.trim());
      return text.trim() === '' || !Number.isFinite(n)
        ? { ok: false, error: 'Enter a number, e.g. 42 or 3.5' }
        : { ok: true, value: n };
    }
    case 'boolean':
      return { ok: true, value: text === 'true' };
    case 'json':
      try {
        const v: unknown = JSON.parse(text);
        if (v === null) return { ok: false, error: 'null is not a value: remove the field instead' };
        return { ok: true, value: v };
      } catch (e) {
        return { ok: false, error: `Not valid JSON: ${(e as Error).message}` };
      }
  }
}

const isStructured = (v: unknown) => typeof v === 'object' && v !== null;

/**
 * Checks every row and builds the data to send. With `original` (the stored data), only changed keys
 * are sent and keys no longer present are sent as `null`, which deletes them; objects and lists may
 * stay as they are but not be set here, since the API stores them only from tracked events.
 * @returns `data` to send, or `errors` by row id when any row is wrong (nothing should be sent then).
 */
export function dataFromRows(
  rows: DataRow[],
  original: Record<string, unknown> = {},
): { data: Record<string, unknown>; errors: Record<string, RowErrors>; valid: boolean } {
  const errors: Record<string, RowErrors> = {};
  const data: Record<string, unknown> = {};
  const seen = new Set<string>();
  for (const row of rows) {
    const e: RowErrors = {};
    const key = row.key.trim();
    if (!key) e.key = 'Enter a key';
    else if (RESERVED.has(key)) e.key = `${key} is reserved: choose another key`;
    else if (key === '__proto__') e.key = 'Choose another key';
    else if (seen.has(key)) e.key = 'This key is already used above';
    seen.add(key);
    const parsed = parseValue(row);
    if (!parsed.ok) e.value = parsed.error;
    else if (key && !e.key) {
      const unchanged = key in original && JSON.stringify(original[key]) === JSON.stringify(parsed.value);
      if (!unchanged) {
        if (isStructured(parsed.value))
          e.value = 'Objects and lists are stored only from tracked events; use text, a number or true/false';
        else data[key] = parsed.value;
      }
    }
    if (e.key || e.value) errors[row.rowId] = e;
  }
  for (const key of Object.keys(original)) if (!seen.has(key)) data[key] = null;
  return { data, errors, valid: Object.keys(errors).length === 0 };
}
