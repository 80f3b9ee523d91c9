import { AppError, type ErrorCode } from '../http/errors.js';
import { smtpError, type SmtpError } from '../lib/smtp-listen.js';

/**
 * SMTP replies of the submission server: each {@link AppError} of the send path becomes a reply code
 * (RFC 5321 §4.2) with its enhanced status code (RFC 3463) written at the head of the text, since
 * smtp-server does not add them itself.
 */

export { smtpError, type SmtpError };

/**
 * AppError code → SMTP reply, for the errors that do not depend on details. Permanent (5xx) for what
 * sending again cannot change; transient (4xx) for limits that lift with time.
 */
const TABLE: Partial<Record<ErrorCode, [number, string]>> = {
  INVALID_API_KEY: [535, '5.7.8'],
  UNAUTHORIZED: [535, '5.7.8'],
  PROJECT_DISABLED: [535, '5.7.8'],
  RESOURCE_NOT_FOUND: [550, '5.6.0'],
  PAYLOAD_TOO_LARGE: [552, '5.3.4'],
  RATE_LIMIT_EXCEEDED: [451, '4.7.1'],
  BAD_REQUEST: [550, '5.6.0'],
};

/**
 * The reply for an error thrown while a message was handled:
 * - VALIDATION_ERROR: `from` on an unverified domain → 550 5.7.1 (the reason in the text); a size
 *   limit (`too_big`: attachments, message, recipients × size) → 552 5.3.4; anything else → 550 5.6.0;
 * - BILLING_LIMIT_EXCEEDED → 452 4.3.1 while the month's cap is reached (it lifts next month or when the
 *   limit is raised), 552 5.3.4 when the message alone has more recipients than the whole cap;
 * - RATE_LIMIT_EXCEEDED → 451 4.7.1, with the seconds to wait;
 * - anything unexpected (database down, a bug) → 451 4.3.0, so the client tries again later (the
 *   Message-ID keeps that from sending twice).
 */
export function replyFor(err: unknown): SmtpError {
  if (!(err instanceof AppError))
    return smtpError(451, '4.3.0 Local error while queueing the message; try again later');
  if (err.code === 'VALIDATION_ERROR') {
    const first = err.errors?.[0];
    if (err.errors?.some((e) => e.code === 'unverified_domain')) return smtpError(550, `5.7.1 ${err.message}`);
    if (err.errors?.some((e) => e.code === 'too_big')) {
      const big = err.errors.find((e) => e.code === 'too_big')!;
      return smtpError(552, `5.3.4 ${big.field}: ${big.message}`);
    }
    return smtpError(550, `5.6.0 ${first ? `${first.field}: ${first.message}` : err.message}`);
  }
  if (err.code === 'BILLING_LIMIT_EXCEEDED') {
    const d = err.details as { limit?: number; requested?: number } | undefined;
    if (d?.limit !== undefined && d.requested !== undefined && d.requested > d.limit)
      return smtpError(552, `5.3.4 ${err.message}`);
    return smtpError(452, `4.3.1 ${err.message}`);
  }
  const row = TABLE[err.code];
  if (!row) return smtpError(451, `4.3.0 ${err.message}`);
  return smtpError(row[0], `${row[1]} ${err.message}`);
}
