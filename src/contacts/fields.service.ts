import type { Deps } from '../deps.js';
import { AppError } from '../http/errors.js';
import * as repo from './fields.repo.js';

/** Columns of every contact (`standard: true` in the fields inventory). */
const STANDARD: Array<{ field: string; type: repo.FieldType }> = [
  { field: 'email', type: 'string' },
  { field: 'subscribed', type: 'boolean' },
  { field: 'createdAt', type: 'date' },
  { field: 'updatedAt', type: 'date' },
];
const STANDARD_NAMES = new Set([...STANDARD.map((s) => s.field), 'id', 'snoozedUntil', 'data']);

/** Custom field names may be given bare (`plan`) or as a condition field (`data.plan`). */
export const fieldName = (raw: string): string => (raw.startsWith('data.') ? raw.slice(5) : raw);

const pct = (n: number, total: number) => (total === 0 ? 0 : Math.round((n / total) * 10000) / 100);

/**
 * `GET /contacts/fields`: `[{field, type, coverage, standard}]`, standard fields first,
 * coverage in percent of the project's contacts (two decimals).
 */
export async function listFields(deps: Deps, projectId: string) {
  const { total, fields } = await repo.customFields(deps.db, projectId);
  return [
    ...STANDARD.map((s) => ({ field: s.field, type: s.type, coverage: total === 0 ? 0 : 100, standard: true })),
    ...fields.map((f) => ({ field: f.field, type: f.type, coverage: pct(f.count, total), standard: false })),
  ];
}

/** `GET /contacts/fields/:field/values`: `{field, values: [{value, count}]}`, at most 100, most common first. */
export async function fieldValues(deps: Deps, projectId: string, raw: string) {
  const field = fieldName(raw);
  return { field, values: await repo.fieldValues(deps.db, projectId, field, 100) };
}

/** `GET /contacts/fields/:field/usage`: `{field, segments, campaigns, templates, workflows}` of `{id, name}`. */
export async function fieldUsage(deps: Deps, projectId: string, raw: string) {
  const field = fieldName(raw);
  return { field, ...(await repo.fieldUsage(deps.db, projectId, field)) };
}

/**
 * `DELETE /contacts/fields/:field`: removes the key from every contact of the project in one UPDATE.
 * Deleting a field nobody has is a no-op (still 204).
 * @throws 400 BAD_REQUEST for a standard field (they are columns, not data).
 */
export async function deleteField(deps: Deps, projectId: string, raw: string): Promise<number> {
  const field = fieldName(raw);
  if (STANDARD_NAMES.has(field) && !raw.startsWith('data.')) {
    throw new AppError('BAD_REQUEST', `${field} is a standard field and cannot be deleted`);
  }
  return repo.deleteField(deps.db, projectId, field, deps.clock.now());
}
