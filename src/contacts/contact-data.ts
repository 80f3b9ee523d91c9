/**
 * The data rules shared by `/v1/send`, `/v1/track`, `POST /contacts`, `PATCH /contacts/:id` and CSV
 * import: (1) incoming keys merge into the stored data; (2) `null` deletes a key; (3) empty strings
 * are ignored; (4) `{value, persistent: false}` is used for rendering only, never stored; (5) reserved
 * keys are dropped; (6) `timezone` is the contact's IANA time zone (`Europe/Berlin`), read by local-time
 * campaigns and workflow waits (campaigns/delivery.ts): stored as Intl spells it, and a name that is no
 * IANA zone is refused (422 `data.timezone`) or, where no one could correct it (CSV import, a form,
 * a workflow step), dropped; (7) `locale` is the contact's language, a BCP 47 tag (`de`, `pt-BR`;
 * content/locale.ts, docs/languages.md): stored as given, like any data, and read through
 * `normalizeLocale` where a language is chosen, so a value that is no tag stays in the data (clients
 * reading `data` see what they wrote) but names no language.
 */
import { invalid } from '../http/errors.js';
import { canonicalTimeZone, isTimeZone } from '../projects/time-zone.js';

/** The data key of a contact's time zone (rule 6). */
export const TIME_ZONE_KEY = 'timezone';

/** Keys silently dropped from incoming data (rule 5). */
export const RESERVED_DATA_KEYS = new Set([
  'id',
  'service_id',
  'service_email',
  'email',
  'unsubscribeUrl',
  'subscribeUrl',
  'manageUrl',
]);

export interface DataPatch {
  /** Keys to store (primitives, or plain objects where allowed). */
  set: Record<string, unknown>;
  /** Keys to delete (`null` values, rule 2). */
  unset: string[];
  /** Per-request values `{value, persistent: false}` (rule 4): for rendering only, never stored. */
  transient: Record<string, unknown>;
}

export interface DataRuleOptions {
  /** `/v1/send` and `/v1/track`: accept `{value, persistent: false}` (rule 4). */
  allowTransient?: boolean;
  /** `/v1/track`: persistent values may be plain objects (rule 4). */
  allowObjects?: boolean;
  /** What an invalid `timezone` does (rule 6): `reject` (default, 422 `data.timezone`) or `drop`. */
  invalidTimeZone?: 'reject' | 'drop';
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Splits incoming `data` into what to store, delete and use once. Empty strings are ignored (rule 3),
 * reserved keys dropped (rule 5). `{value, persistent: true}` stores `value`. Values that fit no rule
 * (arrays, or objects where not allowed) are ignored rather than stored half-way.
 */
export function splitData(data: Record<string, unknown> | undefined | null, opts: DataRuleOptions = {}): DataPatch {
  const out: DataPatch = { set: {}, unset: [], transient: {} };
  if (!data) return out;
  for (const [key, raw] of Object.entries(data)) {
    if (RESERVED_DATA_KEYS.has(key) || key === '' || key === '__proto__') continue;
    let value = raw;
    if (
      isPlainObject(raw) &&
      'value' in raw &&
      'persistent' in raw &&
      Object.keys(raw).every((k) => k === 'value' || k === 'persistent')
    ) {
      if (raw.persistent === false) {
        if (opts.allowTransient) out.transient[key] = raw.value;
        continue;
      }
      value = raw.value;
    }
    if (key === TIME_ZONE_KEY && value !== null && value !== '' && value !== undefined) {
      if (typeof value === 'string' && isTimeZone(value)) value = canonicalTimeZone(value);
      else if (opts.invalidTimeZone === 'drop') continue;
      else
        throw invalid(
          'data.timezone',
          'timezone must be an IANA time zone name such as "Europe/Berlin" or "America/New_York"',
          'invalid_time_zone',
          value,
        );
    }
    if (value === null) out.unset.push(key);
    else if (value === '' || value === undefined) continue;
    else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') out.set[key] = value;
    else if (opts.allowObjects && (isPlainObject(value) || Array.isArray(value))) out.set[key] = value;
  }
  return out;
}

/** Applies a {@link DataPatch} to existing contact data (pure; used where SQL `||`/`-` is not). */
export function applyPatch(
  existing: Record<string, unknown>,
  patch: Pick<DataPatch, 'set' | 'unset'>,
): Record<string, unknown> {
  const next = { ...existing, ...patch.set };
  for (const k of patch.unset) delete next[k];
  return next;
}

/** Trims and lower-cases an address. */
export const normalizeEmail = (email: string): string => email.trim().toLowerCase();
