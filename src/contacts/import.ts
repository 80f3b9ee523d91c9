import { Readable } from 'node:stream';
import { CsvError, parse } from 'csv-parse';
import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { workflowDispatchJobs } from '../events/emit.js';
import { newId } from '../lib/ids.js';
import { contactUpsertEvents, webhookDeliveries } from '../webhook-endpoints/fanout.js';
import { normalizeEmail, splitData } from './contact-data.js';
import { csvBoolean, resolveMapping, type ColumnTarget } from './import-mapping.js';
import { applyImportTopics, rowTopicChoices, topicColumns, type TopicColumns } from './import-topics.js';
import { contactUpsertRow, contactUpsertSetCtes } from './contacts.upsert.js';
import { subscriptionChangeCtes } from './subscription.js';
import type { JobResult } from './jobs.repo.js';
import type { SqlRunner } from '../db/tx.js';
import { unionAll } from '../db/relation.js';

/** Rows per upsert statement: big enough to amortise round trips, small enough for one jsonb parameter. */
export const IMPORT_BATCH = 2000;
/** At most this many row errors are kept in the result (the `failed` count is always exact). */
export const MAX_REPORTED_ERRORS = 1000;

/** A file that cannot be imported at all: the job fails with this message and writes nothing. */
export class ImportFileError extends Error {}

const emailFormat = z.email();

/**
 * `;` or `,`, whichever occurs more often outside quotes in the header line (European spreadsheets
 * export `;`). Comma on a tie.
 */
export function detectDelimiter(text: string): ',' | ';' {
  let inQuotes = false;
  let commas = 0;
  let semis = 0;
  for (const ch of text) {
    if (ch === '"') inQuotes = !inQuotes;
    else if (!inQuotes && (ch === '\n' || ch === '\r')) break;
    else if (!inQuotes && ch === ',') commas++;
    else if (!inQuotes && ch === ';') semis++;
  }
  return semis > commas ? ';' : ',';
}

const NUMBER = /^-?(0|[1-9]\d{0,14})(\.\d+)?$/;

/**
 * A CSV cell as a contact data value: `true`/`false` become booleans, numbers numbers.
 * Leading zeros (`007`, postal codes) and very long digit strings (phone numbers) stay strings.
 */
export function typedCell(v: string): string | number | boolean {
  const t = v.trim();
  const lower = t.toLowerCase();
  if (lower === 'true') return true;
  if (lower === 'false') return false;
  if (NUMBER.test(t)) return Number(t);
  return t;
}

interface Row {
  id: string;
  email: string;
  subscribed: boolean | null;
  data: Record<string, unknown>;
  /** Topic choices by topic id (import-topics.ts); empty when the row changes none. */
  topics: Map<string, boolean>;
}

/** Decodes the upload as UTF-8 text. @throws ImportFileError when it is binary or not UTF-8. */
function asText(file: Buffer): string {
  if (file.length === 0) throw new ImportFileError('The file is empty');
  if (file.includes(0)) throw new ImportFileError('The file is not a text CSV file (it contains NUL bytes)');
  try {
    // The decoder drops a UTF-8 byte order mark.
    return new TextDecoder('utf-8', { fatal: true }).decode(file);
  } catch {
    throw new ImportFileError('The file is not UTF-8 encoded text');
  }
}

/**
 * Upserts one batch in one statement, under the contact upsert rule (contacts.upsert.ts) and the
 * subscription rule (subscription.ts): a row with an explicit `subscribed` sets it, one without keeps
 * an existing contact's state (a new contact is subscribed); a flip records its event. Every existing
 * contact of the file is announced with `contact.updated` (an explicit write), a new one with
 * `contact.created`. Counts created and updated rows.
 */
async function upsertBatch(
  tx: SqlRunner,
  projectId: string,
  rows: Row[],
  now: Date,
): Promise<{ created: number; updated: number }> {
  const total = { created: 0, updated: 0 };
  // Rows that name a subscription and rows that do not go in separate statements: each then has one
  // shape, which the upsert reads without a per-row look-up (contacts.upsert.ts).
  for (const part of [rows.filter((r) => r.subscribed === null), rows.filter((r) => r.subscribed !== null)]) {
    if (!part.length) continue;
    const n = await upsertPart(tx, projectId, part, now);
    total.created += n.created;
    total.updated += n.updated;
  }
  return total;
}

async function upsertPart(
  tx: SqlRunner,
  projectId: string,
  rows: Row[],
  now: Date,
): Promise<{ created: number; updated: number }> {
  const input = rows.map((r) => ({
    ...contactUpsertRow({
      email: r.email,
      data: { set: r.data, unset: [] },
      subscribed: r.subscribed ?? undefined,
      defaultSubscribed: true,
      now,
    }),
    contact_id: r.id,
  }));
  // Rows without a subscription cannot flip one, and the import announces every existing contact: they
  // skip the read of the previous state (a locked look-up per row).
  const u = contactUpsertSetCtes(projectId, input, undefined, {
    previousState: rows.some((r) => r.subscribed !== null),
  });
  const flipped = subscriptionChangeCtes('flipped', projectId, u.upserted, { source: 'import' });
  const res = await tx.execute<{ created: number; updated: number }>(sql`
    with ${u.ctes}, ${flipped.def},
    webhooks as (${webhookDeliveries(unionAll(flipped.rel, contactUpsertEvents(u.up, now)), projectId)}),
    jobs as (${workflowDispatchJobs(flipped.rel, projectId)})
    select (count(*) filter (where is_new))::int as created, (count(*) filter (where not is_new))::int as updated,
      (select count(*) from jobs) as jobs from up`);
  return res.rows[0];
}

/**
 * Imports a CSV file into the project's contacts, inside the caller's transaction so that a file
 * that turns out malformed half-way writes nothing.
 *
 * The file is parsed as a stream with csv-parse (quoted fields, embedded newlines, BOM, `;` or `,`
 * from the header line) and upserted in batches of {@link IMPORT_BATCH} rows per statement. Each header
 * column goes where `mapping` says, else by the automatic rule (import-mapping.ts): one column must be
 * the email (`email`, `E-mail`, `Email Address`… any case); `subscribed` (true/false/yes/no/1/0) is
 * optional; every other column becomes `data.<column>` (or the mapped key) with numbers and booleans
 * typed, `skip` columns are left out; empty cells are ignored
 * and reserved keys dropped (the data rules, contact-data.ts). Columns mapped to `topics` or
 * `topic:<topicId>` join and leave topics after each batch's upsert (import-topics.ts, consent source
 * `import`); files without them write as before. Rows are numbered as in a spreadsheet: the header is
 * row 1. A bad row (no or invalid email, bad `subscribed`, a bad topic cell or unknown topic, more cells
 * than the header) is counted in `failed` with its row number and message and not imported; a row of
 * empty cells is `skipped`.
 *
 * @param mapping `{column: target}` from the client (`POST /contacts/import` field `mapping`), optional.
 * @param onProgress called after each batch with the share of the file parsed, in percent (< 100).
 * @throws ImportFileError for a file that is empty, binary, not UTF-8, not parseable as CSV, has no
 * `email` column, or whose mapping names a topic the project no longer has.
 */
export async function importCsv(
  tx: SqlRunner,
  projectId: string,
  file: Buffer,
  now: Date,
  onProgress: (percent: number) => Promise<void>,
  mapping?: Record<string, string>,
): Promise<JobResult> {
  const text = asText(file);
  const delimiter = detectDelimiter(text);
  const result: JobResult = { processed: 0, created: 0, updated: 0, skipped: 0, failed: 0, errors: [] };
  const parser = parse({ delimiter, bom: true, relax_column_count: true, skip_empty_lines: false, info: true });
  const CHUNK = 64 * 1024;
  Readable.from(
    (function* () {
      for (let i = 0; i < text.length; i += CHUNK) yield text.slice(i, i + CHUNK);
    })(),
  ).pipe(parser);

  let header: string[] | null = null;
  let emailCol = -1;
  let subscribedCol = -1;
  let targets: ColumnTarget[] = [];
  let topicCols: TopicColumns | null = null;
  let batch = new Map<string, Row>();
  const rowError = (row: number, message: string) => {
    result.failed++;
    if (result.errors.length < MAX_REPORTED_ERRORS) result.errors.push({ row, message });
  };
  const flush = async (parsedChars: number) => {
    if (batch.size === 0) return;
    const rows = [...batch.values()];
    batch = new Map();
    const n = await upsertBatch(tx, projectId, rows, now);
    if (topicCols) await applyImportTopics(tx, projectId, rows, now);
    result.created += n.created;
    result.updated += n.updated;
    await onProgress(Math.min(99, (parsedChars / text.length) * 100));
  };

  try {
    for await (const { record, info } of parser as AsyncIterable<{
      record: string[];
      info: { records: number; bytes: number };
    }>) {
      const rowNo = info.records;
      if (!header) {
        header = record.map((h) => h.trim());
        targets = resolveMapping(header, mapping);
        emailCol = targets.indexOf('email');
        subscribedCol = targets.indexOf('subscribed');
        if (emailCol < 0)
          throw new ImportFileError(
            `The header row has no email column (found: ${header.slice(0, 20).join(', ') || 'nothing'}); ` +
              'name it "email" or map a column to the email',
          );
        topicCols = await topicColumns(tx, projectId, header, targets);
        if (topicCols?.missing.length)
          throw new ImportFileError(
            `The mapping names a topic that is not in the project (column ${topicCols.missing.map((h) => `"${h}"`).join(', ')})`,
          );
        continue;
      }
      if (record.every((c) => c.trim() === '')) {
        result.skipped++;
        continue;
      }
      result.processed++;
      if (record.length > header.length && record.slice(header.length).some((c) => c.trim() !== '')) {
        rowError(rowNo, `Row has ${record.length} fields but the header has ${header.length}`);
        continue;
      }
      const rawEmail = (record[emailCol] ?? '').trim();
      if (!rawEmail) {
        rowError(rowNo, 'Missing email');
        continue;
      }
      const email = normalizeEmail(rawEmail);
      if (!emailFormat.safeParse(email).success) {
        rowError(rowNo, `Invalid email: ${rawEmail.slice(0, 320)}`);
        continue;
      }
      const subscribed = subscribedCol >= 0 ? csvBoolean(record[subscribedCol]) : null;
      if (subscribed === undefined) {
        const rawSub = (record[subscribedCol] ?? '').trim().toLowerCase();
        rowError(rowNo, `Invalid subscribed value: ${rawSub.slice(0, 50)} (use true or false)`);
        continue;
      }
      const topics = topicCols ? rowTopicChoices(topicCols, record) : new Map<string, boolean>();
      if (!(topics instanceof Map)) {
        rowError(rowNo, topics.error);
        continue;
      }
      const data: Record<string, unknown> = {};
      targets.forEach((t, i) => {
        if (!t.startsWith('data:')) return;
        const cell = record[i];
        if (cell !== undefined && cell.trim() !== '') data[t.slice(5)] = typedCell(cell);
      });
      // The same email twice in one statement would make ON CONFLICT touch a row twice: flush first.
      if (batch.has(email)) await flush(info.bytes);
      batch.set(email, {
        id: newId(),
        email,
        subscribed,
        data: splitData(data, { invalidTimeZone: 'drop' }).set,
        topics,
      });
      if (batch.size >= IMPORT_BATCH) await flush(info.bytes);
    }
  } catch (err) {
    if (err instanceof CsvError) throw new ImportFileError(`The file is not valid CSV: ${err.message}`);
    throw err;
  }
  if (!header) throw new ImportFileError('The file has no header row');
  await flush(text.length);
  return result;
}
