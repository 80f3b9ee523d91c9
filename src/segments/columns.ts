import { OPERATORS_BY_KIND } from './operators.js';

/**
 * What the fields of a segment condition name in SQL (the compiler's tables, compile.ts): the columns
 * of email activity and of the contact's dates, the comparison of each ordering operator, and the
 * shapes a data key and an event name must have.
 */

/** The `emails` column of each email activity a filter names (`email.opened`, with its synonyms). */
export const EMAIL_COLUMNS: Record<string, string> = {
  sent: 'sent_at',
  delivered: 'delivered_at',
  delivery: 'delivered_at',
  opened: 'opened_at',
  open: 'opened_at',
  clicked: 'clicked_at',
  click: 'clicked_at',
  bounced: 'bounced_at',
  bounce: 'bounced_at',
  complained: 'complained_at',
  complaint: 'complained_at',
};
/** The contact's own date fields and their columns. */
export const CONTACT_DATE_COLUMNS: Record<string, string> = { createdAt: 'created_at', updatedAt: 'updated_at' };
/** A `data.<key>` a filter may name: letters, digits, `_`, `-` and spaces, 1–100 characters. */
export const DATA_KEY = /^[\p{L}\p{N}_\- ]{1,100}$/u;
/** An event name a filter may name: 1–200 characters without control characters. */
export const EVENT_NAME = /^[^\p{Cc}]{1,200}$/u;

/** The operators of a data field. */
export const VALUE_OPS = OPERATORS_BY_KIND.data;
/** The SQL comparison of each ordering operator. */
export const ORDER_OPS: Record<string, string> = {
  greaterThan: '>',
  lessThan: '<',
  greaterThanOrEqual: '>=',
  lessThanOrEqual: '<=',
};
