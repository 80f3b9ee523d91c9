import { describe, expect, it } from 'vitest';
import { ConfigError, displayValue, loadConfig, scrubSecrets } from './config.js';

/** Configuration: one schema, the defaults of docs/configuration.md, one line naming a bad variable. */
describe('configuration', () => {
  it('applies the documented defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      PORT: 3000,
      HOST: '0.0.0.0',
      PUBLIC_URL: 'http://localhost:3000',
      DATA_DIR: './data',
      PROCESS_ROLE: 'all',
      RATE_LIMIT_PER_MINUTE: 1000,
      IDEMPOTENCY_KEY_TTL_HOURS: 24,
      DISABLE_SIGNUPS: false,
      WEBHOOK_ALLOW_PRIVATE_ADDRESSES: false,
      LOG_LEVEL: 'info',
    });
    for (const unset of [
      'DATABASE_URL',
      'SMTP_URL',
      'DNS_SERVERS',
      'JWT_SECRET',
      'REDIS_URL',
      'EMAIL_RATE_LIMIT_PER_SECOND',
    ]) {
      expect(c[unset as keyof typeof c]).toBeUndefined();
    }
  });

  it('parses every variable', () => {
    const c = loadConfig({
      PORT: '8080',
      HOST: '127.0.0.1',
      PUBLIC_URL: 'https://mail.example.com/',
      DATA_DIR: '/var/lib/pigeon',
      DATABASE_URL: 'postgres://u:p@db:5432/pigeon',
      SMTP_URL: 'smtps://u:p@smtp.example.com:465?pool=4',
      DNS_SERVERS: '127.0.0.1:5353, 9.9.9.9',
      JWT_SECRET: 'x'.repeat(40),
      PROCESS_ROLE: 'worker',
      RATE_LIMIT_PER_MINUTE: '0',
      REDIS_URL: 'redis://127.0.0.1:6379',
      IDEMPOTENCY_KEY_TTL_HOURS: '48',
      EMAIL_RATE_LIMIT_PER_SECOND: '14',
      DISABLE_SIGNUPS: 'true',
      WEBHOOK_ALLOW_PRIVATE_ADDRESSES: '1',
      LOG_LEVEL: 'warn',
    });
    expect(c).toMatchObject({
      PORT: 8080,
      HOST: '127.0.0.1',
      PUBLIC_URL: 'https://mail.example.com',
      DNS_SERVERS: ['127.0.0.1:5353', '9.9.9.9'],
      PROCESS_ROLE: 'worker',
      RATE_LIMIT_PER_MINUTE: 0,
      IDEMPOTENCY_KEY_TTL_HOURS: 48,
      EMAIL_RATE_LIMIT_PER_SECOND: 14,
      DISABLE_SIGNUPS: true,
      WEBHOOK_ALLOW_PRIVATE_ADDRESSES: true,
      LOG_LEVEL: 'warn',
    });
    expect(loadConfig({ PORT: '4000' }).PUBLIC_URL).toBe('http://localhost:4000');
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['PUBLIC_URL', 'mail.example.com'],
    ['DATABASE_URL', 'mysql://x'],
    ['SMTP_URL', 'http://x'],
    ['DNS_SERVERS', 'dns.google'],
    ['JWT_SECRET', 'short'],
    ['PROCESS_ROLE', 'both'],
    ['RATE_LIMIT_PER_MINUTE', '-1'],
    ['REDIS_URL', 'localhost:6379'],
    ['IDEMPOTENCY_KEY_TTL_HOURS', '0'],
    ['EMAIL_RATE_LIMIT_PER_SECOND', '1.5'],
    ['DISABLE_SIGNUPS', 'maybe'],
    ['WEBHOOK_ALLOW_PRIVATE_ADDRESSES', 'sure'],
    ['LOG_LEVEL', 'loud'],
  ])('refuses %s=%s with one line naming the variable', (name, value) => {
    let err: unknown;
    try {
      loadConfig({ [name]: value });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const msg = (err as Error).message;
    expect(msg.startsWith(`${name}: `)).toBe(true);
    expect(msg).not.toContain('\n');
  });
});

/** S3-compatible upload storage when configured. */
describe('S3 storage configuration', () => {
  const full = { S3_BUCKET: 'pigeon-uploads', S3_ACCESS_KEY_ID: 'AKID', S3_SECRET_ACCESS_KEY: 'secret' };

  it('is off by default, with region us-east-1', () => {
    const c = loadConfig({});
    expect(c.S3_BUCKET).toBeUndefined();
    expect(c.S3_REGION).toBe('us-east-1');
    expect(c.S3_FORCE_PATH_STYLE).toBe(false);
  });

  it('parses a full configuration; path style defaults to true only with an endpoint', () => {
    const aws = loadConfig({ ...full, S3_REGION: 'eu-west-3' });
    expect(aws).toMatchObject({ ...full, S3_REGION: 'eu-west-3', S3_FORCE_PATH_STYLE: false });
    expect(aws.S3_ENDPOINT).toBeUndefined();
    expect(aws.S3_PUBLIC_URL).toBeUndefined();
    const minio = loadConfig({
      ...full,
      S3_ENDPOINT: 'http://127.0.0.1:9000',
      S3_PUBLIC_URL: 'https://cdn.example.com/img/',
    });
    expect(minio).toMatchObject({
      S3_ENDPOINT: 'http://127.0.0.1:9000',
      S3_FORCE_PATH_STYLE: true,
      S3_PUBLIC_URL: 'https://cdn.example.com/img',
    });
    expect(
      loadConfig({ ...full, S3_ENDPOINT: 'https://x.r2.cloudflarestorage.com', S3_FORCE_PATH_STYLE: 'false' })
        .S3_FORCE_PATH_STYLE,
    ).toBe(false);
  });

  it.each([
    [{ S3_BUCKET: 'b-1' }, 'S3_ACCESS_KEY_ID: required when S3_BUCKET is set'],
    [{ S3_BUCKET: 'b-1', S3_ACCESS_KEY_ID: 'AKID' }, 'S3_SECRET_ACCESS_KEY: required when S3_BUCKET is set'],
    [{ S3_BUCKET: 'b-1', S3_SECRET_ACCESS_KEY: 'secret' }, 'S3_ACCESS_KEY_ID: required when S3_BUCKET is set'],
    [{ S3_ENDPOINT: 'http://127.0.0.1:9000' }, 'S3_BUCKET: required when S3_ENDPOINT is set'],
    [{ S3_ACCESS_KEY_ID: 'AKID', S3_SECRET_ACCESS_KEY: 'secret' }, 'S3_BUCKET: required when S3_ACCESS_KEY_ID is set'],
    [{ S3_PUBLIC_URL: 'https://cdn.example.com' }, 'S3_BUCKET: required when S3_PUBLIC_URL is set'],
    [{ ...full, S3_BUCKET: 'Not_A_Bucket' }, 'S3_BUCKET: must be a bucket name'],
    [{ ...full, S3_ENDPOINT: 'minio:9000' }, 'S3_ENDPOINT: must be a URL'],
    [{ ...full, S3_PUBLIC_URL: 'cdn.example.com' }, 'S3_PUBLIC_URL: must be a URL'],
    [{ ...full, S3_FORCE_PATH_STYLE: 'perhaps' }, 'S3_FORCE_PATH_STYLE: must be true or false'],
  ])('refuses a partial or wrong configuration %j with one line', (env, start) => {
    let err: unknown;
    try {
      loadConfig(env);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message.startsWith(start)).toBe(true);
    expect((err as Error).message).not.toContain('\n');
  });
});

/** The API's and the worker's database pools (docs/configuration.md). */
describe('database pool configuration', () => {
  it('defaults to 20 API connections with a 30 s statement timeout and 24 worker connections', () => {
    expect(loadConfig({})).toMatchObject({
      API_DB_POOL_SIZE: 20,
      WORKER_DB_POOL_SIZE: 24,
      API_STATEMENT_TIMEOUT_MS: 30_000,
    });
    expect(
      loadConfig({ API_DB_POOL_SIZE: '5', WORKER_DB_POOL_SIZE: '40', API_STATEMENT_TIMEOUT_MS: '0' }),
    ).toMatchObject({ API_DB_POOL_SIZE: 5, WORKER_DB_POOL_SIZE: 40, API_STATEMENT_TIMEOUT_MS: 0 });
    expect(loadConfig({}).MIME_THREADS).toBeUndefined();
    expect(loadConfig({ MIME_THREADS: '0' }).MIME_THREADS).toBe(0);
    expect(() => loadConfig({ MIME_THREADS: '-1' })).toThrow(/MIME_THREADS/);
  });

  it.each([
    ['API_DB_POOL_SIZE', '0'],
    ['WORKER_DB_POOL_SIZE', 'many'],
    ['API_STATEMENT_TIMEOUT_MS', '-1'],
  ])('refuses %s=%s', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`^${name}: `));
  });
});

/** A configuration error names the variable and never shows a secret (JWT_SECRET, passwords in URLs, S3 keys). */
describe('secrets in configuration errors', () => {
  const messageOf = (env: Record<string, string>): string => {
    try {
      loadConfig(env);
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      return (e as Error).message;
    }
    throw new Error(`no error for ${JSON.stringify(env)}`);
  };

  it.each([
    [
      { JWT_SECRET: 'hunter2-but-too-short' },
      'JWT_SECRET: must be at least 32 characters (got a value of 21 characters)',
    ],
    [
      { DATABASE_URL: 'mysql://admin:hunter2@db.internal:3306/pigeon' },
      'DATABASE_URL: must be a URL starting with postgres:// or postgresql:// (got "mysql://***@db.internal:3306/pigeon")',
    ],
    [
      { DATABASE_URL: 'postgres//admin:hunter2@db.internal/pigeon' },
      'DATABASE_URL: must be a URL starting with postgres:// or postgresql:// (got "***@db.internal/pigeon")',
    ],
    [
      { DATABASE_URL: 'mysql://db.internal/pigeon?user=admin&password=hunter2&ssl=true' },
      'DATABASE_URL: must be a URL starting with postgres:// or postgresql:// (got "mysql://db.internal/pigeon?user=admin&password=***&ssl=true")',
    ],
    [
      { REDIS_URL: 'http://:hunter2@cache:6379' },
      'REDIS_URL: must be a URL starting with redis:// or rediss:// (got "http://***@cache:6379")',
    ],
    [
      { SMTP_URL: 'smtp://mailer:hunter2@smtp.example.com:587?requireTLS=yes' },
      'SMTP_URL: requireTLS must be true or false (got "smtp://***@smtp.example.com:587?requireTLS=yes")',
    ],
    [
      { SMTP_URL: 'smtps://mailer:p%40ss@hunter2@smtp.example.com?requireTLS=maybe' },
      'SMTP_URL: requireTLS must be true or false (got "smtps://***@smtp.example.com?requireTLS=maybe")',
    ],
  ])('shows %j without its secret', (env, start) => {
    const msg = messageOf(env);
    expect(msg.startsWith(start)).toBe(true);
    expect(msg).not.toMatch(/hunter2|p%40ss/);
    expect(msg).not.toContain('\n');
  });

  it('shows secret variables by length only', () => {
    expect(displayValue('S3_SECRET_ACCESS_KEY', 'wJalrXUtnFEMI/K7MDENG')).toBe('a value of 21 characters');
    expect(displayValue('JWT_SECRET', 'abc')).toBe('a value of 3 characters');
    expect(displayValue('PORT', 'eighty')).toBe('"eighty"');
  });

  it('scrubs the secrets of the environment from any text (last-resort error output)', () => {
    const env = {
      JWT_SECRET: 'j'.repeat(40),
      DATABASE_URL: 'postgres://admin:p%40ss-hunter2@db/pigeon',
      S3_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG',
      REDIS_URL: 'redis://:hunter2-redis@cache:6379',
      PORT: '3000',
    };
    const text = `failed: ${'j'.repeat(40)} postgres://admin:p%40ss-hunter2@db/pigeon password p@ss-hunter2 key wJalrXUtnFEMI/K7MDENG redis hunter2-redis on 3000`;
    const out = scrubSecrets(text, env);
    expect(out).not.toMatch(/jjjj|hunter2|wJalr|p%40ss/);
    expect(out).toContain('on 3000');
    expect(out).toContain('@db/pigeon');
  });
});

describe('TRUST_PROXY', () => {
  it('defaults to believing no proxy, and takes true, a hop count or a list of proxies', () => {
    expect(loadConfig({}).TRUST_PROXY).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'true' }).TRUST_PROXY).toBe(true);
    expect(loadConfig({ TRUST_PROXY: '2' }).TRUST_PROXY).toBe(2);
    expect(() => loadConfig({ TRUST_PROXY: '0' })).toThrow(/^TRUST_PROXY: a number of proxy hops must be 1 to 10/);
    expect(() => loadConfig({ TRUST_PROXY: '11' })).toThrow(/^TRUST_PROXY: /);
    expect(loadConfig({ TRUST_PROXY: 'false' }).TRUST_PROXY).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,loopback' }).TRUST_PROXY).toBe(
      '10.0.0.0/8, 127.0.0.1,loopback',
    );
    expect(() => loadConfig({ TRUST_PROXY: 'any proxy!' })).toThrow(/^TRUST_PROXY: /);
  });
});

/** SMTP credentials never cross the network in clear unless the URL says so. */
describe('SMTP_URL and TLS', () => {
  it.each([
    'smtp://127.0.0.1:2525',
    'smtp://relay.internal',
    'smtps://u:p@smtp.example.com',
    'smtp://u:p@smtp.example.com:587?requireTLS=true',
    'smtp://u:p@smtp.example.com:25?requireTLS=false&pool=2',
  ])('accepts %s', (url) => {
    expect(loadConfig({ SMTP_URL: url }).SMTP_URL).toBe(url);
  });

  it.each(['smtp://u:p@smtp.example.com:587', 'smtp://u@smtp.example.com', 'smtp://:p@smtp.example.com?pool=3'])(
    'accepts %s: credentials over smtp:// then require STARTTLS (transport.tls.test.ts)',
    (url) => {
      expect(loadConfig({ SMTP_URL: url }).SMTP_URL).toBe(url);
    },
  );

  it('refuses a requireTLS that is neither true nor false', () => {
    expect(() => loadConfig({ SMTP_URL: 'smtp://u:p@smtp.example.com?requireTLS=1' })).toThrow(
      /^SMTP_URL: requireTLS must be true or false/,
    );
  });
});
