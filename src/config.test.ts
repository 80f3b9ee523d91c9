import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

/** decisions.md "Configuration": one schema, documented defaults, one line naming a bad variable. */
describe('configuration', () => {
  it('applies the documented defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      PORT: 3000, HOST: '0.0.0.0', PUBLIC_URL: 'http://localhost:3000', DATA_DIR: './data', PROCESS_ROLE: 'all',
      RATE_LIMIT_PER_MINUTE: 1000, IDEMPOTENCY_KEY_TTL_HOURS: 24, DISABLE_SIGNUPS: false,
      WEBHOOK_ALLOW_PRIVATE_ADDRESSES: false, LOG_LEVEL: 'info',
    });
    for (const unset of ['DATABASE_URL', 'SMTP_URL', 'DNS_SERVERS', 'JWT_SECRET', 'REDIS_URL', 'EMAIL_RATE_LIMIT_PER_SECOND']) {
      expect(c[unset as keyof typeof c]).toBeUndefined();
    }
  });

  it('parses every variable', () => {
    const c = loadConfig({
      PORT: '8080', HOST: '127.0.0.1', PUBLIC_URL: 'https://mail.example.com/', DATA_DIR: '/var/lib/pigeon',
      DATABASE_URL: 'postgres://u:p@db:5432/pigeon', SMTP_URL: 'smtps://u:p@smtp.example.com:465?pool=4',
      DNS_SERVERS: '127.0.0.1:5353, 9.9.9.9', JWT_SECRET: 'x'.repeat(40), PROCESS_ROLE: 'worker',
      RATE_LIMIT_PER_MINUTE: '0', REDIS_URL: 'redis://127.0.0.1:6379', IDEMPOTENCY_KEY_TTL_HOURS: '48',
      EMAIL_RATE_LIMIT_PER_SECOND: '14', DISABLE_SIGNUPS: 'true', WEBHOOK_ALLOW_PRIVATE_ADDRESSES: '1', LOG_LEVEL: 'warn',
    });
    expect(c).toMatchObject({
      PORT: 8080, HOST: '127.0.0.1', PUBLIC_URL: 'https://mail.example.com', DNS_SERVERS: ['127.0.0.1:5353', '9.9.9.9'],
      PROCESS_ROLE: 'worker', RATE_LIMIT_PER_MINUTE: 0, IDEMPOTENCY_KEY_TTL_HOURS: 48, EMAIL_RATE_LIMIT_PER_SECOND: 14,
      DISABLE_SIGNUPS: true, WEBHOOK_ALLOW_PRIVATE_ADDRESSES: true, LOG_LEVEL: 'warn',
    });
    expect(loadConfig({ PORT: '4000' }).PUBLIC_URL).toBe('http://localhost:4000');
  });

  it.each([
    ['PORT', 'abc'], ['PORT', '70000'], ['PUBLIC_URL', 'mail.example.com'], ['DATABASE_URL', 'mysql://x'],
    ['SMTP_URL', 'http://x'], ['DNS_SERVERS', 'dns.google'], ['JWT_SECRET', 'short'], ['PROCESS_ROLE', 'both'],
    ['RATE_LIMIT_PER_MINUTE', '-1'], ['REDIS_URL', 'localhost:6379'], ['IDEMPOTENCY_KEY_TTL_HOURS', '0'],
    ['EMAIL_RATE_LIMIT_PER_SECOND', '1.5'], ['DISABLE_SIGNUPS', 'maybe'], ['WEBHOOK_ALLOW_PRIVATE_ADDRESSES', 'sure'],
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

/** decisions.md "Limits and operations": S3-compatible upload storage when configured. */
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
    const minio = loadConfig({ ...full, S3_ENDPOINT: 'http://127.0.0.1:9000', S3_PUBLIC_URL: 'https://cdn.example.com/img/' });
    expect(minio).toMatchObject({ S3_ENDPOINT: 'http://127.0.0.1:9000', S3_FORCE_PATH_STYLE: true, S3_PUBLIC_URL: 'https://cdn.example.com/img' });
    expect(loadConfig({ ...full, S3_ENDPOINT: 'https://x.r2.cloudflarestorage.com', S3_FORCE_PATH_STYLE: 'false' }).S3_FORCE_PATH_STYLE).toBe(false);
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
