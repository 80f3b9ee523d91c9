import { parseDomainConcurrency } from './transports/domain-limits.js';
import { parseFallbacks } from './transports/keys.js';
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
 * Every environment variable, parsed once at start; ENV_DOCS (config-docs.ts) documents each one.
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
    /** Pigeon's own addition: submissions of hosted forms (`POST /f/:id`) per client IP per 10 minutes. */
    FORM_RATE_LIMIT_PER_IP: int(0, 10_000_000).default(20),
    /** Pigeon's own addition: submissions of one hosted form per 10 minutes, from any address. */
    FORM_RATE_LIMIT_PER_FORM: int(0, 10_000_000).default(1000),
    /** Pigeon's own addition. */
    SESSION_IDLE_TIMEOUT_HOURS: int(1, 24 * 365).default(24),
    /** Pigeon's own addition (issue 39): days the audit log keeps an entry; the nightly job deletes older ones. */
    AUDIT_LOG_RETENTION_DAYS: int(1, 36_500).default(365),
    REDIS_URL: url(['redis:', 'rediss:']).optional(),
    /** Pigeon's own addition. */
    METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
    IDEMPOTENCY_KEY_TTL_HOURS: int(1, 24 * 365).default(24),
    EMAIL_RATE_LIMIT_PER_SECOND: int(1, 1_000_000).optional(),
    DISABLE_SIGNUPS: bool.default(false),
    /**
     * Pigeon's own addition (issue 39): who may create an account (users/sign-in/signup-policy.ts). Unset: `open`,
     * or `invite` when DISABLE_SIGNUPS is true (loadConfig resolves it).
     */
    SIGNUP: z.enum(['open', 'invite', 'sso-only'], { message: 'must be open, invite or sso-only' }).optional(),
    /**
     * Pigeon's own addition (issue 39): the OpenID Connect provider of single sign-on (users/sign-in/oidc.ts).
     * Plain http only on a loopback address (a provider on this machine, tests): anywhere else the ID token
     * and the client secret would cross the network in clear.
     */
    OIDC_ISSUER: url(['http:', 'https:'])
      .refine((v) => {
        const u = new URL(v);
        return u.protocol === 'https:' || ['localhost', '127.0.0.1', '[::1]'].includes(u.hostname);
      }, 'must be an https URL (plain http only for localhost)')
      .optional(),
    OIDC_CLIENT_ID: z.string().min(1).max(500).optional(),
    OIDC_CLIENT_SECRET: z.string().min(1).max(2000).optional(),
    OIDC_NAME: z.string().min(1).max(60).default('single sign-on'),
    OIDC_SCOPES: z
      .string()
      .regex(/^[\x21\x23-\x5b\x5d-\x7e]+( [\x21\x23-\x5b\x5d-\x7e]+)*$/, 'must be scopes separated by spaces')
      .refine((v) => v.split(' ').includes('openid'), 'must include openid')
      .default('openid email profile'),
    WEBHOOK_ALLOW_PRIVATE_ADDRESSES: bool.default(false),
    /** Pigeon's own addition (issue 37). */
    TRANSPORT_ALLOW_PRIVATE_ADDRESSES: bool.default(false),
    /** Pigeon's own addition (issue 37): consecutive failures within a minute that open a transport's breaker. */
    TRANSPORT_BREAKER_FAILURES: int(1, 1000).default(5),
    /** Pigeon's own addition (issue 37): first back-off of an open breaker before its probe, doubled at each reopening. */
    TRANSPORT_BREAKER_RETRY_SECONDS: int(1, 3600).default(30),
    /** Pigeon's own addition (issue 37): ceiling of the instance transport's adaptive rate, mails a second per worker process. */
    TRANSPORT_MAX_PER_SECOND: int(1, 1_000_000).optional(),
    /** Pigeon's own addition (issue 37): instance fallback transports (transports/settings.ts `parseFallbacks`). */
    FALLBACK_TRANSPORTS: z
      .string()
      .optional()
      .superRefine((v, ctx) => {
        try {
          parseFallbacks(v);
        } catch (err) {
          ctx.addIssue({ code: 'custom', message: (err as Error).message });
        }
      }),
    /** Pigeon's own addition (issue 37): per-recipient-domain concurrency, `domain=n,…` (transports/domain-limits.ts). */
    DOMAIN_CONCURRENCY: z
      .string()
      .optional()
      .superRefine((v, ctx) => {
        try {
          parseDomainConcurrency(v);
        } catch (err) {
          ctx.addIssue({ code: 'custom', message: (err as Error).message });
        }
      }),
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
    if (c.DISABLE_SIGNUPS && c.SIGNUP === 'open') fail('SIGNUP', 'cannot be open when DISABLE_SIGNUPS is true');
    // Single sign-on needs all three; one or two of them is a typo, not a choice.
    const oidc = ['OIDC_ISSUER', 'OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET'] as const;
    const oidcGiven = oidc.filter((k) => c[k] !== undefined);
    if (oidcGiven.length > 0 && oidcGiven.length < oidc.length)
      fail(
        oidc.find((k) => c[k] === undefined)!,
        `required when ${oidcGiven[0]} is set`,
      );
    if (c.SIGNUP === 'sso-only' && oidcGiven.length < oidc.length)
      fail('OIDC_ISSUER', 'required when SIGNUP is sso-only');
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
  'OIDC_CLIENT_SECRET',
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
  'PUBLIC_URL' | 'JWT_SECRET' | 'S3_FORCE_PATH_STYLE' | 'S3_PUBLIC_URL' | 'SIGNUP'
> & {
  PUBLIC_URL: string;
  /** Resolved: the given value, else `invite` when DISABLE_SIGNUPS is true, else `open`. */
  SIGNUP: 'open' | 'invite' | 'sso-only';
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
    SIGNUP: c.SIGNUP ?? (c.DISABLE_SIGNUPS ? 'invite' : 'open'),
  };
}
