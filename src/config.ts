import { z } from 'zod';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'must be true or false' })
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const int = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

const url = (protocols: string[]) =>
  z.string().refine((v) => {
    try {
      return protocols.includes(new URL(v).protocol);
    } catch {
      return false;
    }
  }, `must be a URL starting with ${protocols.map((p) => p + '//').join(' or ')}`);

/** `ip[:port]` list, comma-separated (decisions.md: DNS look-ups). */
const dnsServers = z
  .string()
  .transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean))
  .pipe(
    z.array(
      z.string().regex(/^(\d{1,3}(\.\d{1,3}){3}|\[[0-9a-fA-F:]+\])(:\d{1,5})?$/, 'must be ip[:port], comma-separated'),
    ),
  );

/**
 * Every environment variable of decisions.md "Configuration", parsed once at start.
 * Unset and empty variables take the documented default.
 */
const envSchema = z.object({
  PORT: int(0, 65535).default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  PUBLIC_URL: url(['http:', 'https:']).optional(),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: url(['postgres:', 'postgresql:']).optional(),
  SMTP_URL: url(['smtp:', 'smtps:']).optional(),
  DNS_SERVERS: dnsServers.optional(),
  JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  PROCESS_ROLE: z.enum(['all', 'api', 'worker'], { message: 'must be all, api or worker' }).default('all'),
  RATE_LIMIT_PER_MINUTE: int(0, 10_000_000).default(1000),
  REDIS_URL: url(['redis:', 'rediss:']).optional(),
  IDEMPOTENCY_KEY_TTL_HOURS: int(1, 24 * 365).default(24),
  EMAIL_RATE_LIMIT_PER_SECOND: int(1, 1_000_000).optional(),
  DISABLE_SIGNUPS: bool.default(false),
  WEBHOOK_ALLOW_PRIVATE_ADDRESSES: bool.default(false),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Sender of account mails (verification, password reset). Pigeon's own addition. */
  SYSTEM_EMAIL_FROM: z.string().min(3).optional(),
  /** S3-compatible upload storage (decisions.md "Limits and operations"); on when S3_BUCKET is set. */
  S3_BUCKET: z
    .string()
    .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be a bucket name (3-63 lower-case letters, digits, dots, hyphens)')
    .optional(),
  /** Unset: AWS S3 itself. Set for MinIO, R2, etc. */
  S3_ENDPOINT: url(['http:', 'https:']).optional(),
  S3_REGION: z.string().regex(/^[a-z0-9-]+$/, 'must be a region name such as us-east-1').default('us-east-1'),
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  /** Unset: true when S3_ENDPOINT is set (most self-hosted servers need path-style), else false. */
  S3_FORCE_PATH_STYLE: bool.optional(),
  /** Base URL the bucket's objects are publicly served from; unset: Pigeon serves them itself. */
  S3_PUBLIC_URL: url(['http:', 'https:']).optional(),
}).superRefine((c, ctx) => {
  // A half-configured bucket must stop the start, not fail at the first upload.
  const fail = (name: string, message: string) => ctx.addIssue({ code: 'custom', path: [name], message });
  const companions = ['S3_ENDPOINT', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY', 'S3_FORCE_PATH_STYLE', 'S3_PUBLIC_URL'] as const;
  if (!c.S3_BUCKET) {
    const given = companions.find((k) => c[k] !== undefined);
    if (given) fail('S3_BUCKET', `required when ${given} is set`);
    return;
  }
  if (!c.S3_ACCESS_KEY_ID) fail('S3_ACCESS_KEY_ID', 'required when S3_BUCKET is set');
  else if (!c.S3_SECRET_ACCESS_KEY) fail('S3_SECRET_ACCESS_KEY', 'required when S3_BUCKET is set');
});

/** The parsed configuration; `publicUrl` has no trailing slash. */
export type Config = Omit<z.output<typeof envSchema>, 'PUBLIC_URL' | 'JWT_SECRET' | 'S3_FORCE_PATH_STYLE' | 'S3_PUBLIC_URL'> & {
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
 * @throws ConfigError with one line such as `PORT: must be a whole number (got "abc")`.
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
    const got = cleaned[name] !== undefined ? ` (got ${JSON.stringify(cleaned[name])})` : '';
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
