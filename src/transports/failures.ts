/**
 * Which send errors are the transport's fault, so that its breaker counts them and the mail may go to
 * the next transport of its route (issue 37): the relay could not be reached, timed out, dropped the
 * connection, refused our login or TLS, or said it is not available (421, RFC 5321 §4.2.3: "Service
 * not available, closing transmission channel") or failed locally before any recipient was named (4xx
 * to the greeting, EHLO, AUTH or MAIL FROM). A refusal of a recipient or of the message (RCPT TO, DATA)
 * is about that mail, never a reason to fail over: a 5xx there is a bounce, a 4xx there is retried on
 * the same route. SES: network errors and HTTP 5xx answers; its `Throttling` is about rate, not health.
 */
const CONNECTION_CODES = new Set([
  'ECONNECTION',
  'ETIMEDOUT',
  'ESOCKET',
  'EDNS',
  'ETLS',
  'EAUTH',
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EPIPE',
  'EAI_AGAIN',
]);

const BEFORE_RECIPIENTS = new Set(['CONN', 'EHLO', 'HELO', 'LHLO', 'STARTTLS', 'MAIL FROM']);

/** An error as nodemailer (SMTP) or ses-transport.ts throws it. */
interface SendError {
  code?: string;
  responseCode?: number;
  command?: string;
  transportFault?: boolean;
}

/** True when `err` says the transport is failing (see the module comment), false when it is about the mail. */
export function isTransportFailure(err: unknown): boolean {
  const e = (err ?? {}) as SendError;
  if (e.transportFault !== undefined) return e.transportFault;
  if (e.responseCode === 421) return true;
  if (e.command === 'RCPT TO' || e.command === 'DATA') return false;
  if (e.code !== undefined && CONNECTION_CODES.has(e.code)) return true;
  return (
    e.responseCode !== undefined &&
    e.responseCode >= 400 &&
    e.responseCode < 500 &&
    e.command !== undefined &&
    (BEFORE_RECIPIENTS.has(e.command) || e.command.startsWith('AUTH'))
  );
}
