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
