/**
 * The dashboard's words for a failed request. The API's envelope stays as Plunk clients know it (codes,
 * zod's own texts for schema failures, messages written for developers); a person reads a sentence
 * instead: what went wrong and, where there is one, what to do. The code, the status and the request
 * id stay behind the "Details" toggle of ErrorAlert.
 */

/** One field problem as the server sent it (`error.errors[]`); `field` is a dotted path. */
export interface RawFieldError {
  field: string;
  message: string;
  code?: string;
}

/** What {@link describeFailure} reads of a failed request. */
export interface Failure {
  status: number;
  code: string;
  /** The server's `error.message` (or the plain `{error}` text). */
  message: string;
  fieldErrors: RawFieldError[];
  details?: Record<string, unknown>;
}

// Words people use for the API's field names, where splitting the camelCase is not enough.
const LABELS: Record<string, string> = {
  from: 'From address',
  fromName: 'From name',
  replyTo: 'Reply-to',
  to: 'To',
  body: 'Body',
  email: 'Email',
  url: 'URL',
  segmentId: 'Segment',
  templateId: 'Template',
  contactId: 'Contact',
  scheduledFor: 'Send time',
  delayMinutes: 'Delay',
};

/**
 * The label of a field path: its last named part in words (`condition.groups.0.filters.1.value` →
 * "Value", `firstName` → "First name"); the request body as a whole is "This form".
 */
export function fieldLabel(path: string): string {
  const name = path
    .split('.')
    .filter((p) => p && !/^\d+$/.test(p))
    .pop();
  if (!name) return 'This form';
  if (LABELS[name]) return LABELS[name];
  const words = name
    .replace(/[_-]+/g, ' ')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

// zod's own texts (v4 and v3) start so; anything else was written by Pigeon for people already.
const ZOD_TEXT =
  /^(Invalid input|Invalid option|Invalid (email|e-mail|URL|url|UUID|uuid|string|ISO|date|datetime|literal|enum)|Too small|Too big|Unrecognized key|Expected |Required$|String must|Number must|Array must)/;

const KINDS: Record<string, string> = {
  string: 'text',
  number: 'a number',
  int: 'a whole number',
  boolean: 'yes or no',
  array: 'a list',
  object: 'a set of fields',
  date: 'a date',
  bigint: 'a number',
};

/** "must have at least 3 characters" from zod's `>=3 characters` (or `>2`), by what was measured. */
function bound(text: string, more: boolean): string | null {
  const m = /expected (\w+) to (?:have|be) (>=|>|<=|<)\s*([\d.]+)(?: (characters|items|elements))?/.exec(text);
  if (!m) return null;
  const [, kind, op, raw, unit] = m;
  let n = Number(raw);
  if (op === '>') n += kind === 'number' ? 0 : 1;
  if (op === '<') n -= kind === 'number' ? 0 : 1;
  const strict = (op === '>' || op === '<') && kind === 'number';
  const edge = more ? (strict ? 'more than' : 'at least') : strict ? 'less than' : 'at most';
  if (kind === 'string' || unit === 'characters') return `must have ${edge} ${n} character${n === 1 ? '' : 's'}`;
  if (kind === 'array' || kind === 'set' || unit) return `must have ${edge} ${n} item${n === 1 ? '' : 's'}`;
  return `must be ${edge} ${n}`;
}

/**
 * A field error as a sentence for people, e.g. `{field: 'name', code: 'too_small', message: 'Too small:
 * expected string to have >=1 characters'}` → "Name is required." Messages Pigeon wrote for people are
 * kept (with a capital and a full stop).
 */
export function fieldSentence(fe: RawFieldError): string {
  const label = fieldLabel(fe.field);
  const text = fe.message ?? '';
  if (!ZOD_TEXT.test(text)) return sentence(text || `${label} is not valid`);
  const code = fe.code ?? '';
  if (code === 'invalid_type') {
    if (/received (undefined|null)/.test(text) || text === 'Required') return `${label} is required.`;
    const expected = /expected (\w+)/.exec(text)?.[1];
    return `${label} must be ${KINDS[expected ?? ''] ?? 'of another kind'}.`;
  }
  if (code === 'too_small') {
    if (/expected (string|array) to have >=1\b|expected (string|array) to have >0\b/.test(text))
      return `${label} is required.`;
    const b = bound(text, true);
    return b ? `${label} ${b}.` : `${label} is too short.`;
  }
  if (code === 'too_big') {
    const b = bound(text, false);
    return b ? `${label} ${b}.` : `${label} is too long.`;
  }
  if (code === 'invalid_string' || code === 'invalid_format') {
    if (/email/i.test(text)) return `${label} must be an email address, like name@example.com.`;
    if (/url/i.test(text)) return `${label} must be a web address, like https://example.com.`;
    if (/uuid/i.test(text)) return `${label} does not name anything that exists here.`;
    if (/date|time/i.test(text)) return `${label} must be a date and time.`;
    return `${label} is not in the expected form.`;
  }
  if (code === 'invalid_enum_value' || code === 'invalid_literal' || code === 'invalid_value') {
    const options = [...text.matchAll(/"([^"]*)"/g)].map((m) => m[1]);
    return options.length ? `${label} must be one of: ${options.join(', ')}.` : `${label} is not one of the choices.`;
  }
  if (code === 'unrecognized_keys') {
    const keys = [...text.matchAll(/"([^"]*)"/g)].map((m) => m[1]);
    return `${label} has ${keys.length === 1 ? 'a field' : 'fields'} Pigeon does not know${keys.length ? `: ${keys.join(', ')}` : ''}.`;
  }
  return `${label} is not valid.`;
}

/** `text` with a capital first letter and a full stop (or its own ?/!) at the end. */
export function sentence(text: string): string {
  const t = text.trim();
  if (!t) return t;
  const first = t.charAt(0).toUpperCase() + t.slice(1);
  return /[.!?)]$/.test(first) ? first : `${first}.`;
}

/** The failure as the dashboard says it: a title, a sentence, and the field problems in words. */
export interface Described {
  title: string;
  message: string;
  fieldErrors: RawFieldError[];
}

/** Words for the failure of a request that refused the sender domain (domains/verified.ts). */
function unverifiedSender(domain: string): Described {
  return {
    title: 'Sender domain not verified',
    message: `Mail from ${domain} cannot leave this server yet: verify the domain under Domains (add it and publish its DNS records), or send from a verified domain.`,
    fieldErrors: [
      {
        field: 'from',
        code: 'unverified_domain',
        message: `${domain} is not a verified domain of this project yet: verify it under Domains first.`,
      },
    ],
  };
}

/**
 * The title, sentence and field errors (in words) the dashboard shows for a failed request, by the API's
 * error code: see src/http/errors.ts for the codes. The server's message is kept where it already is a
 * sentence for people (most CONFLICT, FORBIDDEN, RATE_LIMIT messages name what conflicts and why).
 */
export function describeFailure(f: Failure): Described {
  const d = f.details ?? {};
  if (d.reason === 'unverified_domain' && typeof d.domain === 'string') return unverifiedSender(d.domain);
  const fieldErrors = f.fieldErrors.map((fe) => ({ ...fe, message: fieldSentence(fe) }));
  const said = sentence(f.message);
  const keep = (title: string): Described => ({ title, message: said, fieldErrors });
  switch (f.code) {
    case 'INVALID_CREDENTIALS':
      return {
        title: 'Could not log in',
        message: 'That email and password do not match. Check both, or reset the password.',
        fieldErrors,
      };
    case 'VALIDATION_ERROR':
      if (fieldErrors.length === 0) return keep('Please check what you entered');
      return {
        title: fieldErrors.length === 1 ? 'One value needs fixing' : `${fieldErrors.length} values need fixing`,
        message: [...new Set(fieldErrors.map((fe) => fe.message))].join(' '),
        fieldErrors,
      };
    case 'UNAUTHORIZED':
      return { title: 'Not signed in', message: 'Your session has ended: log in again to go on.', fieldErrors };
    case 'INVALID_API_KEY':
      return {
        title: 'API key refused',
        message: 'The API key is missing, wrong, or of the wrong kind (public or secret), or it was rotated.',
        fieldErrors,
      };
    case 'FORBIDDEN':
      return keep('Not allowed');
    case 'PROJECT_DISABLED':
      return {
        title: 'Project disabled',
        message: 'This project is disabled: nothing can be sent or changed in it.',
        fieldErrors,
      };
    case 'TWO_FACTOR_REQUIRED':
      return {
        title: 'Two-factor sign-in required',
        message:
          'This project requires two-factor sign-in. Set up an authenticator app or a passkey under Account → Security, then sign in with it.',
        fieldErrors,
      };
    case 'SENDING_PAUSED':
      return keep('Sending is paused');
    case 'RESOURCE_NOT_FOUND': {
      if (/^Route \w+ /.test(f.message))
        return {
          title: 'Not found',
          message:
            'The server does not know this request: the dashboard may be newer or older than the server. Reload the page.',
          fieldErrors,
        };
      const what = /^(.+) not found$/.exec(f.message.trim())?.[1];
      return what
        ? {
            title: 'Not found',
            message: `${sentence(what).slice(0, -1)} was not found: it may have been deleted, or belong to another project.`,
            fieldErrors,
          }
        : keep('Not found');
    }
    case 'CONFLICT':
      return keep('Cannot do this now');
    case 'IDEMPOTENCY_KEY_REUSED':
      return keep('Already done');
    case 'PAYLOAD_TOO_LARGE':
      return keep('Too large');
    case 'RATE_LIMIT_EXCEEDED':
      return keep('Too many attempts: please wait');
    case 'BILLING_LIMIT_EXCEEDED':
      return keep('Monthly limit reached');
    case 'BAD_REQUEST':
      if (/^Malformed request body/.test(f.message) || /Content-Type/.test(f.message))
        return {
          title: 'The request could not be read',
          message: 'The server could not read what the page sent. Reload the page and try again.',
          fieldErrors,
        };
      return keep('Cannot do this');
    case 'NETWORK_ERROR':
      return keep('No answer from the server');
    case 'CLIENT_ERROR':
      return keep('This page failed');
  }
  if (f.status === 503) return { title: 'Busy', message: 'The server is busy: try again in a moment.', fieldErrors };
  if (f.status >= 500 || f.code === 'INTERNAL_SERVER_ERROR') {
    // Pigeon's own 5xx messages say what failed ("The database did not answer in time"); the generic
    // one says nothing a person can use.
    return /^(Unexpected error|Internal Server Error)$/i.test(f.message.trim()) || !f.message.trim()
      ? {
          title: 'The server failed',
          message:
            'The server could not finish this. Try again; if it keeps failing, report it with the request id under Details.',
          fieldErrors,
        }
      : keep('The server failed');
  }
  return keep('Cannot do this');
}
