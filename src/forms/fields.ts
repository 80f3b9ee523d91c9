import { z } from 'zod';
import type { FormField } from '../db/schema.js';
import { AppError, type FieldError } from '../http/errors.js';

/**
 * A submission read against its form's fields: what `POST /f/:formId` takes from a visitor. Keys the
 * form does not have are ignored (a site may add hidden inputs of its own); the honeypot is read by
 * the route before this.
 */

/** The longest value a text field takes, in characters. */
export const MAX_TEXT_CHARS = 1000;

/** The name of the honeypot input: hidden from people, filled by bots that fill every input. */
export const HONEYPOT = '_hp';

/** A submission that passed its form: the contact's address and the data its other fields fill. */
export interface Submission {
  /** Trimmed and lower-cased. */
  email: string;
  /** Field key → value: text and select fields as strings (empty ones left out), checkboxes as booleans. */
  data: Record<string, string | boolean>;
}

const emailFormat = z.email();
const UNTICKED = new Set(['', 'false', '0', 'off', 'no']);

/** The value of a checkbox: `true` or a ticked box's value (`on`, `true`, …); absent or `false`/`off`/`0` is false. */
export const isTicked = (v: unknown): boolean =>
  v === true || (typeof v === 'number' && v !== 0) || (typeof v === 'string' && !UNTICKED.has(v.trim().toLowerCase()));

/** A text value as given (strings and numbers), trimmed; anything else reads as empty. */
const textOf = (v: unknown): string =>
  typeof v === 'string' ? v.trim() : typeof v === 'number' && Number.isFinite(v) ? String(v) : '';

/**
 * Reads `body` (field key → value) against `fields`. Every problem is a sentence a visitor can act
 * on, naming the field by its label.
 * @throws AppError 422 VALIDATION_ERROR with one `errors[]` entry per field in trouble (field = its
 *   key), its message the sentences together.
 */
export function readSubmission(fields: readonly FormField[], body: Readonly<Record<string, unknown>>): Submission {
  const problems: FieldError[] = [];
  const problem = (f: FormField, message: string, code: string) => problems.push({ field: f.key, message, code });
  const out: Submission = { email: '', data: {} };
  for (const f of fields) {
    const raw = Object.hasOwn(body, f.key) ? body[f.key] : undefined;
    if (f.type === 'checkbox') {
      const ticked = isTicked(raw);
      if (f.required && !ticked) problem(f, `Tick “${f.label}” to sign up.`, 'required');
      out.data[f.key] = ticked;
      continue;
    }
    const value = textOf(raw);
    if (!value) {
      if (f.required || f.type === 'email') problem(f, `Fill in “${f.label}”.`, 'required');
      continue;
    }
    if (f.type === 'email') {
      const email = value.toLowerCase();
      if (email.length > 254 || !emailFormat.safeParse(email).success)
        problem(f, `“${value.slice(0, 100)}” is not an email address.`, 'invalid_string');
      else out.email = email;
    } else if (f.type === 'select') {
      if (!f.options?.includes(value)) problem(f, `Choose one of the options of “${f.label}”.`, 'invalid_value');
      else out.data[f.key] = value;
    } else if (value.length > MAX_TEXT_CHARS) {
      problem(f, `“${f.label}” is too long: ${MAX_TEXT_CHARS} characters at most.`, 'too_big');
    } else out.data[f.key] = value;
  }
  if (problems.length) {
    throw new AppError('VALIDATION_ERROR', problems.map((p) => p.message).join(' '), { errors: problems });
  }
  return out;
}
