import { z } from 'zod';

/**
 * The subject and body fields every way of writing mail content shares (templates, campaigns,
 * inline `/v1/send`), with their caps.
 */

/** A subject is one header line: 1..998 characters, no CR/LF (RFC 5322 §2.1.1). */
export const SUBJECT_MAX_CHARS = 998;

/**
 * A body holds at most 1,000,000 characters (UTF-16 code units, about 1 MB of HTML). Gmail clips
 * messages past 102 KB, so real mail stays far below; the cap bounds what one save or send can make
 * the server parse (the Liquid markup inside is capped further, see plunk-syntax.ts MARKUP_LIMITS).
 */
export const BODY_MAX_CHARS = 1_000_000;

const noLineBreaks = (s: string) => !/[\r\n]/.test(s);

/** A subject field; `lineBreakMessage` is the message of the CR/LF check. */
export const subjectField = (lineBreakMessage: string) =>
  z
    .string()
    .min(1)
    .max(SUBJECT_MAX_CHARS)
    .refine(noLineBreaks, { message: lineBreakMessage })
    .meta({
      description: `1..${SUBJECT_MAX_CHARS} characters, no line breaks; Plunk {{variables}} and Liquid, never HTML-escaped`,
    });

/**
 * `n` with a comma every three digits (`1,000,000`). Not `toLocaleString`: the first ICU number format
 * of a process maps ~7 MB of ICU data into its resident memory, for one string in an API description.
 */
const grouped = (n: number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/** A body field. */
export const bodyField = z
  .string()
  .min(1)
  .max(BODY_MAX_CHARS)
  .meta({
    description: `HTML, 1..${grouped(BODY_MAX_CHARS)} characters; Plunk {{variables}} (HTML-escaped), {{{raw}}} and Liquid {% if %}/{% for %}/filters`,
  });
