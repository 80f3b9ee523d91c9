import { z } from 'zod';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'must be true or false' })
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const int = (min: number, max: number) =>
  z.string().regex(/^\d+$/, 'must be a whole number').transform(Number).pipe(z.number().int().min(min).max(max));

const url = (protocols: string[]) =>
  z.string().refine(
    (v) => {
      try {
        return protocols.includes(new URL(v).protocol);
      } catch {
        return false;
      }
    },
    `must be a URL starting with ${protocols.map((p) => p + '//').join(' or ')}`,
  );

/** `ip[:port]` list, comma-separated. */
const dnsServers = z
  .string()
  .transform((v) =>
    v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  )
  .pipe(
    z.array(
      z.string().regex(/^(\d{1,3}(\.\d{1,3}){3}|\[[0-9a-fA-F:]+\])(:\d{1,5})?$/, 'must be ip[:port], comma-separated'),
    ),
  );

/**
 * Every environment variable, parsed once at start; {@link ENV_DOCS} documents each one.
 * Unset and empty variables take the documented default. The comments here say what the table of
 * docs/configuration.md does not: why a default is what it is, where the code lives.
 */
const envSchema = z
  .object({
    PORT: int(0, 65535).default(3000),
    HOST: z.string().min(1).default('0.0.0.0'),
    PUBLIC_URL: url(['http:', 'https:']).optional(),
    DATA_DIR: z.string().min(1).default('./data'),
    DATABASE_URL: url(['postgres:', 'postgresql:']).optional(),
    SMTP_URL: url(['smtp:', 'smtps:']).optional(),
    SES_REGION: z
      .string()
      .regex(/^[a-z]{2}(-[a-z]+)+-\d+$/, 'must be a region name such as eu-west-1')
      .optional(),
    SES_CONFIGURATION_SET: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be a configuration set name (letters, digits, _ and -)')
      .optional(),
    SES_ENDPOINT: url(['http:', 'https:']).optional(),
    /** Pigeon's own addition. */
    SNS_TOPIC_ARNS: z
      .string()
      .transform((v) =>
        v
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      )
      .pipe(
        z.array(
          z
            .string()
            .regex(
              /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}(\.fifo)?$/,
              'must be SNS topic ARNs, comma-separated',
            ),
        ),
      )
      .optional(),
    DNS_SERVERS: dnsServers.optional(),
    JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
    PROCESS_ROLE: z.enum(['all', 'api', 'worker'], { message: 'must be all, api or worker' }).default('all'),
    RATE_LIMIT_PER_MINUTE: int(0, 10_000_000).default(1000),
    /** Pigeon's own addition. */
    AUTH_RATE_LIMIT_PER_IP: int(0, 10_000_000).default(100),
    /**
     * Handed to Fastify's `trustProxy`. `false` by default so that no client can choose its own address.
     * A hop count `n` names the client by the n-th entry from the right of the header; `true` is only for
     * a proxy that replaces the header rather than appending to it.
     */
    TRUST_PROXY: z
      .string()
      .regex(
        /^(true|false|\d{1,2}|[0-9a-zA-Z.:/]+(\s*,\s*[0-9a-zA-Z.:/]+)*)$/,
        'must be false, a number of proxy hops, a comma-separated list of proxy addresses or CIDRs, or true',
      )
      .refine((v) => !/^\d+$/.test(v) || (Number(v) >= 1 && Number(v) <= 10), 'a number of proxy hops must be 1 to 10')
      .transform((v): boolean | number | string =>
        v === 'true' ? true : v === 'false' ? false : /^\d+$/.test(v) ? Number(v) : v,
      )
      .default(false),
    AUTH_RATE_LIMIT_PER_ACCOUNT: int(0, 10_000_000).default(10),
    /** Pigeon's own addition. */
    SESSION_IDLE_TIMEOUT_HOURS: int(1, 24 * 365).default(24),
    REDIS_URL: url(['redis:', 'rediss:']).optional(),
    /** Pigeon's own addition. */
    METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
    IDEMPOTENCY_KEY_TTL_HOURS: int(1, 24 * 365).default(24),
    EMAIL_RATE_LIMIT_PER_SECOND: int(1, 1_000_000).optional(),
    DISABLE_SIGNUPS: bool.default(false),
    WEBHOOK_ALLOW_PRIVATE_ADDRESSES: bool.default(false),
    /** Pigeon's own addition. */
    API_DB_POOL_SIZE: int(1, 1000).default(20),
    /** Pigeon's own addition. */
    WORKER_DB_POOL_SIZE: int(1, 1000).default(24),
    /** Pigeon's own addition; mimeBuilder (src/emails/delivery/mime-builder.ts) says why the default spares two cores. */
    MIME_THREADS: int(0, 64).optional(),
    /** Only the API's connections: the worker's jobs may run long. */
    API_STATEMENT_TIMEOUT_MS: int(0, 3_600_000).default(30_000),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /** Pigeon's own addition. */
    SYSTEM_EMAIL_FROM: z.string().min(3).optional(),
    S3_BUCKET: z
      .string()
      .regex(
        /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/,
        'must be a bucket name (3-63 lower-case letters, digits, dots, hyphens)',
      )
      .optional(),
    S3_ENDPOINT: url(['http:', 'https:']).optional(),
    S3_REGION: z
      .string()
      .regex(/^[a-z0-9-]+$/, 'must be a region name such as us-east-1')
      .default('us-east-1'),
    S3_ACCESS_KEY_ID: z.string().min(1).optional(),
    S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
    /** Unset: follows S3_ENDPOINT (see loadConfig), as most self-hosted servers need path-style. */
    S3_FORCE_PATH_STYLE: bool.optional(),
    S3_PUBLIC_URL: url(['http:', 'https:']).optional(),
    /** Pigeon's own addition. */
    UPLOAD_QUOTA_MB: int(0, 10_000_000).default(1024),
    /** Pigeon's own addition; it bounds the count refreshes of untracked segments too (the same job). */
    SEGMENT_COMPUTE_TIMEOUT_MS: int(0, 86_400_000).default(300_000),
    /** Pigeon's own addition. */
    ENCRYPTION_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
    ENCRYPTION_KEY_PREVIOUS: z
      .string()
      .transform((v) =>
        v
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      )
      .pipe(z.array(z.string().min(32, 'each key must be at least 32 characters')))
      .optional(),
    /** Served by src/submission/. */
    SMTP_SUBMISSION_PORT: int(0, 65535).optional(),
    SMTP_TLS_CERT: z.string().min(1).optional(),
    SMTP_TLS_KEY: z.string().min(1).optional(),
    SMTP_SUBMISSION_ALLOW_INSECURE: bool.default(false),
    /** Addresses built by src/emails/verp.ts; the domain's MX points at Pigeon's INBOUND_SMTP_PORT. */
    BOUNCE_DOMAIN: z
      .string()
      .toLowerCase()
      .regex(
        /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/,
        'must be a domain name such as bounces.example.com',
      )
      .optional(),
    /** Served by src/feedback/mx/. */
    INBOUND_SMTP_PORT: int(0, 65535).optional(),
  })
  .superRefine((c, ctx) => {
    const fail = (name: string, message: string) => ctx.addIssue({ code: 'custom', path: [name], message });
    if (c.INBOUND_SMTP_PORT !== undefined && !c.BOUNCE_DOMAIN)
      fail('BOUNCE_DOMAIN', 'required when INBOUND_SMTP_PORT is set');
    if (!c.SMTP_TLS_CERT !== !c.SMTP_TLS_KEY)
      fail(
        c.SMTP_TLS_CERT ? 'SMTP_TLS_KEY' : 'SMTP_TLS_CERT',
        `required when ${c.SMTP_TLS_CERT ? 'SMTP_TLS_CERT' : 'SMTP_TLS_KEY'} is set`,
      );
    if (c.SMTP_URL) {
      const problem = smtpTlsProblem(c.SMTP_URL);
      if (problem) fail('SMTP_URL', problem);
    }
    if (!c.SES_REGION) {
      const given = (['SES_CONFIGURATION_SET', 'SES_ENDPOINT'] as const).find((k) => c[k] !== undefined);
      if (given) fail('SES_REGION', `required when ${given} is set`);
    }
    // A half-configured bucket must stop the start, not fail at the first upload.
    const companions = [
      'S3_ENDPOINT',
      'S3_ACCESS_KEY_ID',
      'S3_SECRET_ACCESS_KEY',
      'S3_FORCE_PATH_STYLE',
      'S3_PUBLIC_URL',
    ] as const;
    if (!c.S3_BUCKET) {
      const given = companions.find((k) => c[k] !== undefined);
      if (given) fail('S3_BUCKET', `required when ${given} is set`);
      return;
    }
    if (!c.S3_ACCESS_KEY_ID) fail('S3_ACCESS_KEY_ID', 'required when S3_BUCKET is set');
    else if (!c.S3_SECRET_ACCESS_KEY) fail('S3_SECRET_ACCESS_KEY', 'required when S3_BUCKET is set');
  });

/** The name of an environment variable Pigeon reads. */
export type EnvVariable = keyof typeof envSchema.shape;

/** Every variable {@link loadConfig} reads, in the schema's order. */
export const ENV_VARIABLES = Object.keys(envSchema.shape) as EnvVariable[];

/**
 * A variable's row in docs/configuration.md: its default and its meaning, as the reader sees them
 * (markdown). A variable that shares the row of another (`PORT` / `HOST`) names it in `rowOf` and gives
 * its own default when it differs from that row's.
 */
export type EnvVariableDoc = { default: string; meaning: string } | { rowOf: EnvVariable; default?: string };

/**
 * The documentation of every variable, the source of the table in docs/configuration.md
 * (`npm run gen:config-docs` writes it; a test fails when the file differs). Its order is the table's.
 * The mapped type makes a variable added to the schema without a row here fail to compile.
 */
export const ENV_DOCS: { [K in EnvVariable]: EnvVariableDoc } = {
  PORT: { default: '`3000`', meaning: 'where the HTTP server listens' },
  HOST: { rowOf: 'PORT', default: '`0.0.0.0`' },
  PUBLIC_URL: { default: '`http://localhost:$PORT`', meaning: 'base of tracking, unsubscribe and upload URLs' },
  DATA_DIR: { default: '`./data`', meaning: 'embedded database, outbox, uploads, generated secrets' },
  DATABASE_URL: {
    default: 'unset: embedded PostgreSQL in `DATA_DIR/pg`',
    meaning: 'a PostgreSQL 15–18 server, `postgres://…`',
  },
  SMTP_URL: {
    default:
      'unset: outbox, one `.eml` per message in `DATA_DIR/outbox` (files `0600` in a `0700` folder: they hold ' +
      'reset links); as the mail goes nowhere, senders need no verified domain (their mail is unsigned and marked ' +
      '`X-Pigeon-Unverified-Sender: outbox only`) unless `SES_REGION` is set',
    meaning:
      '`smtps://user:pass@host:port` (TLS), `smtp://user:pass@host:port` (STARTTLS required: with credentials ' +
      'the connection fails rather than send them in clear, unless the URL says `?requireTLS=false`) or ' +
      '`smtp://host:port` (a relay without credentials); `?pool=N` pooled connections',
  },
  SES_REGION: {
    default: 'unset',
    meaning:
      'send through Amazon SES in this region (e.g. `eu-west-1`) instead of `SMTP_URL` (SES wins when both are ' +
      "set): raw MIME through the SES v2 `SendEmail` API, Pigeon's DKIM signature kept; credentials from the " +
      'AWS default chain (`AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`, shared files, SSO, instance or task ' +
      'role)',
  },
  SES_CONFIGURATION_SET: {
    default: 'unset',
    meaning:
      'SES configuration set named on every send; give it an SNS event destination for bounces, complaints and ' +
      'deliveries (needs `SES_REGION`)',
  },
  SES_ENDPOINT: {
    default: 'unset: AWS',
    meaning: 'another SES endpoint, for testing (LocalStack); needs `SES_REGION`',
  },
  SNS_TOPIC_ARNS: {
    default: 'unset: none',
    meaning:
      'comma-separated SNS topic ARNs whose messages `POST /webhooks/sns` accepts; others are refused (403) ' +
      'even when correctly signed, before any certificate is fetched. Unset, the route answers 404 (403 with ' +
      '`SES_REGION` set, and a warning at start)',
  },
  DNS_SERVERS: { default: 'system resolver', meaning: '`ip[:port]` list for domain checks and `/v1/verify`' },
  JWT_SECRET: {
    default: 'generated once, kept in `DATA_DIR/secret`',
    meaning: 'signs session cookies and tracking tokens (≥ 32 characters)',
  },
  PROCESS_ROLE: { default: '`all`', meaning: '`api`, `worker` or `all` (one process does both)' },
  RATE_LIMIT_PER_MINUTE: { default: '`1000`', meaning: 'API requests per project per minute; `0` turns it off' },
  AUTH_RATE_LIMIT_PER_IP: {
    default: '`100`',
    meaning:
      'requests per client IP per 15 minutes to the credential endpoints together (login, signup, password ' +
      'reset, e-mail verification); `0` turns it off',
  },
  AUTH_RATE_LIMIT_PER_ACCOUNT: {
    default: '`10`',
    meaning:
      'failed logins per account per 15 minutes, from any IP, before its logins wait (15 minutes, doubling ' +
      'while failures go on, at most a day); a browser that signed in to the account before, and a password ' +
      'reset, are not held back. `0` turns it off. Mails to one address (verification, reset, sign-up notice) ' +
      'are 5 an hour in any case',
  },
  TRUST_PROXY: {
    default: '`false`',
    meaning:
      'whose `X-Forwarded-For` names the client for the per-IP throttles: `false` believes no proxy (the client ' +
      "is the socket's peer); a comma-separated list of proxy addresses/CIDRs (or `loopback`, `uniquelocal`) " +
      'takes the right-most address not in the list; a hop count `n` (1–10) trusts the `n` nearest addresses, ' +
      "whatever they are (only where nothing but your proxies reaches the port); `true` believes the header's " +
      'left-most entry, which any client can write',
  },
  REDIS_URL: {
    default: 'unset: counters in memory',
    meaning: 'share rate-limit counters (per project and per IP/account) between API processes',
  },
  METRICS_TOKEN: {
    default: 'unset: `/metrics` answers this machine only',
    meaning:
      'bearer token `GET /metrics` wants (16+ characters); unset, only clients whose socket peer is a loopback ' +
      'address may read it (a forwarded address does not count)',
  },
  IDEMPOTENCY_KEY_TTL_HOURS: { default: '`24`', meaning: 'how long an `Idempotency-Key` is remembered' },
  EMAIL_RATE_LIMIT_PER_SECOND: { default: 'unset: no cap', meaning: 'per-project sending throttle' },
  DISABLE_SIGNUPS: { default: '`false`', meaning: 'refuse new accounts (403)' },
  WEBHOOK_ALLOW_PRIVATE_ADDRESSES: {
    default: '`false`',
    meaning:
      'let workflow WEBHOOK steps and event webhook endpoints call loopback, private (10/8, 172.16/12, ' +
      '192.168/16, fc00::/7) and shared (100.64/10) addresses; cloud metadata and link-local addresses stay ' +
      'refused',
  },
  API_DB_POOL_SIZE: { default: '`20`', meaning: "PostgreSQL connections of the API's pool (per process)" },
  WORKER_DB_POOL_SIZE: {
    default: '`24`',
    meaning:
      "PostgreSQL connections of the worker's own pool (per process): its 10 concurrent jobs may hold two each " +
      '(handing a mail over, or dispatching events while holding the dispatch jobs they took over), plus ' +
      "Graphile Worker's listener and the liveness lock",
  },
  MIME_THREADS: {
    default: 'one per core beyond two, at most 4 (none on 1–2 cores)',
    meaning:
      'Worker threads that build and DKIM-sign outgoing mail, off the event loop that drives delivery; `0` ' +
      'builds on the event loop. Each thread is a V8 isolate of its own: about 45 MB more peak RSS for 10–20 % ' +
      'more sending rate on a 2-core machine',
  },
  API_STATEMENT_TIMEOUT_MS: {
    default: '`30000`',
    meaning:
      "PostgreSQL `statement_timeout` of the API's connections; a statement that runs longer, or a request that " +
      'waits as long (at most 10 s) for a free connection, answers 503 with `Retry-After`; `0` turns it off. ' +
      "The worker's connections have none",
  },
  LOG_LEVEL: { default: '`info`', meaning: '`fatal` … `trace`, or `silent`' },
  SYSTEM_EMAIL_FROM: {
    default: "`Pigeon <no-reply@PUBLIC_URL's host>`",
    meaning: 'sender of account mails (verification, password reset)',
  },
  S3_BUCKET: {
    default: 'unset: uploads in `DATA_DIR/uploads`',
    meaning:
      'keep uploaded images in this S3-compatible bucket (then `S3_ACCESS_KEY_ID` and `S3_SECRET_ACCESS_KEY` ' +
      'are required)',
  },
  S3_ENDPOINT: {
    default: 'unset: AWS S3',
    meaning: 'endpoint of an S3-compatible server (MinIO, R2, …), `https://…`',
  },
  S3_REGION: { default: '`us-east-1`', meaning: 'region of the bucket' },
  S3_ACCESS_KEY_ID: { default: 'unset', meaning: 'credentials for the bucket' },
  S3_SECRET_ACCESS_KEY: { rowOf: 'S3_ACCESS_KEY_ID' },
  S3_FORCE_PATH_STYLE: {
    default: '`true` with `S3_ENDPOINT`, else `false`',
    meaning: 'address the bucket as `endpoint/bucket/key` instead of `bucket.endpoint/key`',
  },
  S3_PUBLIC_URL: {
    default: 'unset: Pigeon serves images at `PUBLIC_URL/uploads/…`, streaming them from the bucket',
    meaning:
      "base URL the bucket's objects are publicly readable at (CDN, public bucket); image URLs become " +
      '`S3_PUBLIC_URL/<projectId>/<file>`',
  },
  UPLOAD_QUOTA_MB: {
    default: '`1024`',
    meaning:
      "total size of one project's uploaded images; an upload past it is `413` and nothing is stored; `0`: no " +
      'quota',
  },
  SEGMENT_COMPUTE_TIMEOUT_MS: {
    default: '`300000`',
    meaning:
      "PostgreSQL `statement_timeout` of the worker's segment computes; a compute stopped by it records why in " +
      "the segment's `computeError` and waits for the next 5-minute tick; `0` turns it off",
  },
  SESSION_IDLE_TIMEOUT_HOURS: {
    default: '`24`',
    meaning: 'a dashboard session ends after this long without a request (and 7 days after sign-in in any case)',
  },
  ENCRYPTION_KEY: {
    default: 'unset: derived from `JWT_SECRET` (or the generated secret)',
    meaning:
      'key material (32+ characters) of the encryption of DKIM private keys, webhook signing secrets and ' +
      "WEBHOOK step headers in the database; keep it out of the database's backups (see " +
      '[security.md](security.md))',
  },
  ENCRYPTION_KEY_PREVIOUS: {
    default: 'unset',
    meaning:
      'earlier values of `ENCRYPTION_KEY`, comma-separated: still read, and everything they sealed is ' +
      're-wrapped with the current key at start (rotation)',
  },
  SMTP_SUBMISSION_PORT: {
    default: 'unset: no SMTP listener',
    meaning:
      'port of the SMTP submission server (e.g. `587`), in the API processes (`PROCESS_ROLE` `all` or `api`); ' +
      'see [Sending through SMTP](smtp-submission.md)',
  },
  SMTP_TLS_CERT: {
    default: 'unset: a self-signed certificate (with a warning)',
    meaning:
      'PEM certificate chain and private key of the STARTTLS of the submission and inbound servers, as file ' +
      'paths or the PEM text; both or neither',
  },
  SMTP_TLS_KEY: { rowOf: 'SMTP_TLS_CERT' },
  SMTP_SUBMISSION_ALLOW_INSECURE: {
    default: '`false`',
    meaning: 'accept AUTH (the secret key) on a connection without TLS',
  },
  BOUNCE_DOMAIN: {
    default: 'unset: the envelope sender is the From address',
    meaning:
      'domain of the VERP envelope senders (`bounces+<token>@BOUNCE_DOMAIN`, one per email) that bounces come ' +
      'back to; see [Bounces and complaints by mail](production.md#bounces-and-complaints-by-mail)',
  },
  INBOUND_SMTP_PORT: {
    default: 'unset: no inbound listener',
    meaning:
      'port of the SMTP server receiving bounces and complaints for `BOUNCE_DOMAIN` (`25` in production), in ' +
      'the API processes; needs `BOUNCE_DOMAIN`',
  },
};

/**
 * Why `SMTP_URL` may not be used as is, or null: `?requireTLS` must be `true` or `false` when given.
 * Credentials never cross the network in clear by default: with a user or password, `smtp://` requires
 * STARTTLS (transport.ts: nodemailer `requireTLS`, so a server or an attacker on the path that does not
 * offer it gets no AUTH) unless the URL says `?requireTLS=false`; `smtps://` is TLS from the first byte;
 * without credentials plain `smtp://` stays allowed (a local relay).
 */
function smtpTlsProblem(value: string): string | null {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    return null; // reported by the URL check itself
  }
  const flag = u.searchParams.get('requireTLS');
  if (flag !== null && flag !== 'true' && flag !== 'false') return 'requireTLS must be true or false';
  return null;
}

/** Variables whose whole value is secret: an error may name them, never show them. */
const SECRET_VARIABLES = new Set([
  'JWT_SECRET',
  'S3_SECRET_ACCESS_KEY',
  'S3_ACCESS_KEY_ID',
  'SMTP_TLS_KEY',
  'METRICS_TOKEN',
  'ENCRYPTION_KEY',
  'ENCRYPTION_KEY_PREVIOUS',
]);
const SECRET_QUERY_PARAM = /pass|secret|token|key|auth|credential/i;

/**
 * `value` with the secrets it may carry masked: the user-info of a URL (`scheme://***@host…`, whatever
 * the scheme, even when the URL does not parse) and the values of query parameters that look like
 * credentials (`?password=`, `?token=`…). Used for every value an error message shows.
 */
export function redactValue(value: string): string {
  let out = value;
  const at = out.lastIndexOf('@');
  if (at >= 0) {
    const scheme = /^[a-z][a-z0-9+.-]*:(\/\/)?/i.exec(out)?.[0] ?? '';
    out = `${scheme}***${out.slice(at)}`;
  }
  return out.replace(/([?&;]([^=&;#]*))=([^&;#]*)/g, (m, head: string, name: string) =>
    SECRET_QUERY_PARAM.test(name) ? `${head}=***` : m,
  );
}

/**
 * How a configuration error shows the value of `name`: secret variables only by length, anything else
 * through {@link redactValue}.
 */
export function displayValue(name: string, value: string): string {
  return SECRET_VARIABLES.has(name) ? `a value of ${value.length} characters` : JSON.stringify(redactValue(value));
}

/**
 * `text` with every secret of `env` replaced by `***`: the secret variables' values and the
 * passwords and user-info inside URL variables. For the last-resort error output of the entry point,
 * where an error of a library could quote a connection string.
 */
export function scrubSecrets(text: string, env: Record<string, string | undefined>): string {
  const secrets: string[] = [];
  for (const [name, raw] of Object.entries(env)) {
    const v = raw?.trim();
    if (!v) continue;
    // A list (ENCRYPTION_KEY_PREVIOUS) may be quoted one key at a time.
    if (SECRET_VARIABLES.has(name)) secrets.push(v, ...v.split(',').map((x) => x.trim()));
    else if (name.endsWith('_URL') || name === 'S3_ENDPOINT') {
      const at = v.lastIndexOf('@');
      if (at < 0) continue;
      const userinfo = v.slice(0, at).replace(/^[a-z][a-z0-9+.-]*:(\/\/)?/i, '');
      secrets.push(userinfo);
      const colon = userinfo.indexOf(':');
      if (colon >= 0) secrets.push(userinfo.slice(colon + 1), decodeURIComponentSafe(userinfo.slice(colon + 1)));
    }
  }
  let out = text;
  for (const s of secrets.filter((x) => x.length >= 3).sort((a, b) => b.length - a.length))
    out = out.split(s).join('***');
  return out;
}

function decodeURIComponentSafe(v: string): string {
  try {
    return decodeURIComponent(v);
  } catch {
    return v;
  }
}

/** The parsed configuration; `publicUrl` has no trailing slash. */
export type Config = Omit<
  z.output<typeof envSchema>,
  'PUBLIC_URL' | 'JWT_SECRET' | 'S3_FORCE_PATH_STYLE' | 'S3_PUBLIC_URL'
> & {
  PUBLIC_URL: string;
  /** Resolved: the given value, else true exactly when S3_ENDPOINT is set. */
  S3_FORCE_PATH_STYLE: boolean;
  /** Without trailing slash. */
  S3_PUBLIC_URL?: string;
  /** Set when given; otherwise main.ts loads or creates one in DATA_DIR. */
  JWT_SECRET?: string;
};

/** Thrown by {@link loadConfig}; `message` is one line naming the variable. */
export class ConfigError extends Error {}

/**
 * Parses `env` (normally `process.env`) into a {@link Config}.
 * @throws ConfigError with one line such as `PORT: must be a whole number (got "abc")`; the value shown
 * never includes a secret (see {@link displayValue}).
 */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const cleaned: Record<string, string> = {};
  for (const key of Object.keys(envSchema.shape)) {
    const v = env[key];
    if (v !== undefined && v.trim() !== '') cleaned[key] = v.trim();
  }
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const name = String(issue.path[0] ?? 'environment');
    const got = cleaned[name] !== undefined ? ` (got ${displayValue(name, cleaned[name])})` : '';
    throw new ConfigError(`${name}: ${issue.message}${got}`);
  }
  const c = parsed.data;
  const publicUrl = (c.PUBLIC_URL ?? `http://localhost:${c.PORT}`).replace(/\/+$/, '');
  return {
    ...c,
    PUBLIC_URL: publicUrl,
    S3_FORCE_PATH_STYLE: c.S3_FORCE_PATH_STYLE ?? c.S3_ENDPOINT !== undefined,
    S3_PUBLIC_URL: c.S3_PUBLIC_URL?.replace(/\/+$/, ''),
  };
}
