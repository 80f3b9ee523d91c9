import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config.js';
import { literalTemplate } from './message.js';
import { loadTls } from './tls.js';
import { interpolate } from '../emails/render/render.js';

// The submission server's configuration and certificate (no database, no network).
describe('SMTP submission configuration', () => {
  const log = pino({ level: 'silent' });
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'pigeon-tls-'));
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it('parses the variables; a certificate needs its key and the other way round', () => {
    expect(loadConfig({})).toMatchObject({ SMTP_SUBMISSION_ALLOW_INSECURE: false });
    expect(loadConfig({}).SMTP_SUBMISSION_PORT).toBeUndefined();
    expect(loadConfig({ SMTP_SUBMISSION_PORT: '587', SMTP_SUBMISSION_ALLOW_INSECURE: 'true' })).toMatchObject({
      SMTP_SUBMISSION_PORT: 587,
      SMTP_SUBMISSION_ALLOW_INSECURE: true,
    });
    expect(() => loadConfig({ SMTP_SUBMISSION_PORT: '99999' })).toThrow(/^SMTP_SUBMISSION_PORT: /);
    expect(() => loadConfig({ SMTP_TLS_CERT: '/c.pem' })).toThrow(
      new ConfigError('SMTP_TLS_KEY: required when SMTP_TLS_CERT is set'),
    );
    expect(() => loadConfig({ SMTP_TLS_KEY: '/k.pem' })).toThrow(/^SMTP_TLS_CERT: required when SMTP_TLS_KEY is set/);
  });

  it('makes a self-signed certificate once, then a configured one is used as given (path or PEM)', async () => {
    const config = loadConfig({ DATA_DIR: dir, PUBLIC_URL: 'https://mail.example.test' });
    const made = await loadTls(config, log);
    expect(made?.source).toBe('self-signed');
    const cert = new X509Certificate(made!.cert);
    expect(cert.subject).toContain('CN=mail.example.test');
    expect(cert.checkPrivateKey((await import('node:crypto')).createPrivateKey(made!.key))).toBe(true);
    // Kept: the second start uses the same certificate.
    expect((await loadTls(config, log))!.cert.equals(made!.cert)).toBe(true);

    const certFile = path.join(dir, 'smtp-tls', 'cert.pem');
    const keyFile = path.join(dir, 'smtp-tls', 'key.pem');
    const byPath = await loadTls(loadConfig({ DATA_DIR: dir, SMTP_TLS_CERT: certFile, SMTP_TLS_KEY: keyFile }), log);
    expect(byPath).toMatchObject({ source: 'configured' });
    const byText = await loadTls(
      loadConfig({
        DATA_DIR: dir,
        SMTP_TLS_CERT: await readFile(certFile, 'utf8'),
        SMTP_TLS_KEY: await readFile(keyFile, 'utf8'),
      }),
      log,
    );
    expect(byText!.key.toString()).toBe((await readFile(keyFile, 'utf8')).trim());
    await expect(
      loadTls(loadConfig({ DATA_DIR: dir, SMTP_TLS_CERT: '/nonexistent/c.pem', SMTP_TLS_KEY: keyFile }), log),
    ).rejects.toThrow(/^SMTP_TLS_CERT: cannot read "\/nonexistent\/c.pem" \(ENOENT\)/);
  });

  it('without openssl: a configuration error, or no STARTTLS when insecure AUTH is allowed', async () => {
    const saved = process.env.PATH;
    process.env.PATH = '/nonexistent';
    try {
      const fresh = path.join(dir, 'no-openssl');
      await expect(loadTls(loadConfig({ DATA_DIR: fresh }), log)).rejects.toThrow(
        /^SMTP_TLS_CERT: the SMTP submission server needs a certificate/,
      );
      expect(await loadTls(loadConfig({ DATA_DIR: fresh, SMTP_SUBMISSION_ALLOW_INSECURE: 'true' }), log)).toBeNull();
      // The inbound server's TLS is opportunistic: without a certificate it runs without STARTTLS.
      expect(await loadTls(loadConfig({ DATA_DIR: fresh }), log, 'inbound')).toBeNull();
    } finally {
      process.env.PATH = saved;
    }
  });

  it('submitted text renders as itself through the template engine', () => {
    for (const text of [
      'a {{name}} b',
      '{% if x %}y{% endif %}',
      '{{{x}}} {%raw%}{{%endraw%}',
      '{{ "{" }}',
      'plain { } }} %}',
    ]) {
      expect(interpolate(literalTemplate(text), { name: 'N', x: 1 }, true)).toBe(text);
      expect(interpolate(literalTemplate(text), { name: 'N', x: 1 }, false)).toBe(text);
    }
  });
});
