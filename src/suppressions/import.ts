import { Readable } from 'node:stream';
import { CsvError, parse } from 'csv-parse';
import { z } from 'zod';
import { detectDelimiter } from '../contacts/import.js';
import { isEmailHeader } from '../contacts/import-mapping.js';
import { normalizeEmail } from '../contacts/contact-data.js';
import { AppError } from '../http/errors.js';
import { unguardCell } from '../lib/csv.js';
import { SUPPRESSION_REASONS, type SuppressionReason } from './reasons.js';

/** The largest CSV file `POST /suppressions/import` takes (bytes). */
export const SUPPRESSION_IMPORT_MAX_BYTES = 5 * 1024 * 1024;
/** At most this many bad rows are listed in the answer (`failed` counts them all). */
export const MAX_LISTED_ROW_ERRORS = 100;

const emailFormat = z.email();

function* chunks(text: string) {
  for (let i = 0; i < text.length; i += 65_536) yield text.slice(i, i + 65_536);
}

/** What a suppression CSV holds: the addresses to add per reason, and the rows that were not usable. */
export interface ParsedSuppressions {
  byReason: Map<SuppressionReason, string[]>;
  /** Data rows read (empty rows left out). */
  rows: number;
  /** Rows with no cell filled. */
  skipped: number;
  failed: number;
  /** The first {@link MAX_LISTED_ROW_ERRORS} bad rows; rows are numbered as in a spreadsheet (the header is row 1). */
  errors: Array<{ row: number; message: string }>;
}

/** 422 about the file as a whole (field `file`): nothing is added. */
const badFile = (message: string) =>
  new AppError('VALIDATION_ERROR', message, { errors: [{ field: 'file', message, code: 'invalid_file' }] });

/**
 * Reads a suppression CSV in full before anything is written. The address column is the first whose
 * header is `email`, `E-mail`, `Email Address`, `email_address`, `mail` or `address` (any case,
 * punctuation and spaces ignored); a file of one column without such a header is taken as a plain list
 * of addresses (its first row included). An optional `reason` column (bounce, complaint, manual,
 * unsubscribe) sets a row's reason, else `defaultReason`. Addresses are trimmed and lower-cased, a
 * leading `'` of an export's formula guard dropped; duplicates count once.
 * @throws AppError 422 (field `file`) for a file that is empty, binary, not UTF-8, not CSV, or has no
 * address column.
 */
export async function parseSuppressionCsv(file: Buffer, defaultReason: SuppressionReason): Promise<ParsedSuppressions> {
  if (file.length === 0) throw badFile('The file is empty.');
  if (file.includes(0)) throw badFile('The file is not a text CSV file.');
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(file);
  } catch {
    throw badFile('The file is not UTF-8 encoded text: save it as "CSV UTF-8".');
  }
  const records: string[][] = [];
  try {
    // Parsed as a stream of 64 KiB pieces, so a 5 MB file does not hold the event loop in one go;
    // records are taken as events (an async iterator costs a promise per record, ~30 % more).
    await new Promise<void>((resolve, reject) => {
      const parser = parse({ delimiter: detectDelimiter(text), bom: true, relax_column_count: true });
      parser
        .on('data', (r: string[]) => records.push(r))
        .on('end', resolve)
        .on('error', reject);
      Readable.from(chunks(text)).pipe(parser);
    });
  } catch (err) {
    if (err instanceof CsvError) throw badFile(`The file is not valid CSV: ${err.message}`);
    throw err;
  }
  const header = records[0] ?? [];
  // The contacts import's rule (import-mapping.ts); a suppression list has no postal address, so a
  // column named `address` holds the email addresses too.
  let emailCol = header.findIndex(isEmailHeader);
  if (emailCol < 0) emailCol = header.findIndex((h) => h.trim().toLowerCase() === 'address');
  const reasonCol = header.findIndex((h) => h.trim().toLowerCase() === 'reason');
  let firstData = 1;
  if (emailCol < 0) {
    const only = records[0]?.length === 1 ? normalizeEmail(unguardCell(records[0][0])) : '';
    if (!only || !emailFormat.safeParse(only).success) {
      const found = (records[0] ?? []).slice(0, 10).join(', ') || 'nothing';
      throw badFile(`No column of email addresses: name it "email" (the first row has: ${found}).`);
    }
    emailCol = 0;
    firstData = 0;
  }

  const out: ParsedSuppressions = { byReason: new Map(), rows: 0, skipped: 0, failed: 0, errors: [] };
  const seen = new Set<string>();
  const fail = (row: number, message: string) => {
    out.failed++;
    if (out.errors.length < MAX_LISTED_ROW_ERRORS) out.errors.push({ row, message });
  };
  for (let i = firstData; i < records.length; i++) {
    const record = records[i];
    const row = i + 1;
    if (record.every((c) => c.trim() === '')) {
      out.skipped++;
      continue;
    }
    out.rows++;
    const raw = unguardCell((record[emailCol] ?? '').trim());
    if (!raw) {
      fail(row, 'No email address in this row.');
      continue;
    }
    const email = normalizeEmail(raw);
    if (!emailFormat.safeParse(email).success) {
      fail(row, `"${raw.slice(0, 100)}" is not an email address.`);
      continue;
    }
    const rawReason = reasonCol >= 0 ? (record[reasonCol] ?? '').trim().toLowerCase() : '';
    if (rawReason && !(SUPPRESSION_REASONS as readonly string[]).includes(rawReason)) {
      fail(row, `"${rawReason.slice(0, 50)}" is not a reason: use ${SUPPRESSION_REASONS.join(', ')}.`);
      continue;
    }
    if (seen.has(email)) continue;
    seen.add(email);
    const reason = (rawReason || defaultReason) as SuppressionReason;
    const list = out.byReason.get(reason) ?? [];
    list.push(email);
    out.byReason.set(reason, list);
  }
  return out;
}
