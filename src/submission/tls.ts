import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Logger } from 'pino';
import { ConfigError, type Config } from '../config.js';

const run = promisify(execFile);

/** A PEM certificate chain and its private key, for STARTTLS. */
export interface TlsMaterial {
  cert: Buffer;
  key: Buffer;
  /** `configured` (SMTP_TLS_CERT/KEY) or `self-signed` (generated in DATA_DIR). */
  source: 'configured' | 'self-signed';
}

/** A variable's PEM: the text itself when it holds one, else the file it names. */
async function pem(name: string, value: string): Promise<Buffer> {
  if (value.includes('-----BEGIN')) return Buffer.from(value.replace(/\\n/g, '\n'));
  try {
    return await readFile(value);
  } catch (err) {
    throw new ConfigError(
      `${name}: cannot read ${JSON.stringify(value)} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
    );
  }
}

/**
 * The certificate of the SMTP servers' STARTTLS (the submission server's, and the inbound server's
 * when it runs without the submission server):
 * - `SMTP_TLS_CERT`/`SMTP_TLS_KEY` when set (file paths or PEM text);
 * - else a self-signed certificate for the host of `PUBLIC_URL`, made once with the `openssl` command
 *   and kept in `DATA_DIR/smtp-tls/` (so clients that pin it keep working across restarts), with a
 *   warning: clients must then skip certificate verification;
 * - else, when `openssl` is not installed: null if `SMTP_SUBMISSION_ALLOW_INSECURE` (the server then
 *   offers no STARTTLS), otherwise a {@link ConfigError} asking for a certificate. For `inbound` it is
 *   null with a warning: TLS to a mail exchanger is opportunistic (RFC 3207 §4, RFC 7435), and a relay
 *   that is not offered STARTTLS delivers in clear, so its absence must not stop Pigeon.
 * Node.js has no certificate generator of its own, hence the `openssl` command.
 * @throws ConfigError when a configured certificate cannot be read, or as above.
 */
export async function loadTls(
  config: Config,
  log: Logger,
  purpose: 'submission' | 'inbound' = 'submission',
): Promise<TlsMaterial | null> {
  const label = purpose === 'submission' ? 'SMTP submission' : 'inbound SMTP';
  if (config.SMTP_TLS_CERT && config.SMTP_TLS_KEY) {
    return {
      cert: await pem('SMTP_TLS_CERT', config.SMTP_TLS_CERT),
      key: await pem('SMTP_TLS_KEY', config.SMTP_TLS_KEY),
      source: 'configured',
    };
  }
  const dir = path.join(config.DATA_DIR, 'smtp-tls');
  const certFile = path.join(dir, 'cert.pem');
  const keyFile = path.join(dir, 'key.pem');
  if (!existsSync(certFile) || !existsSync(keyFile)) {
    const host = hostOf(config.PUBLIC_URL);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    try {
      await run(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'rsa:2048',
          '-nodes',
          '-sha256',
          '-days',
          '3650',
          '-keyout',
          keyFile,
          '-out',
          certFile,
          '-subj',
          `/CN=${host}`,
          '-addext',
          `subjectAltName=${/^[\d.]+$/.test(host) ? 'IP' : 'DNS'}:${host}`,
        ],
        { timeout: 60_000 },
      );
    } catch (err) {
      const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
      if (missing && purpose === 'inbound') {
        log.warn(
          'inbound SMTP: no SMTP_TLS_CERT/SMTP_TLS_KEY and no openssl command to make a certificate: no STARTTLS, relays deliver reports in clear',
        );
        return null;
      }
      if (missing && config.SMTP_SUBMISSION_ALLOW_INSECURE) {
        log.warn(
          'SMTP submission: no SMTP_TLS_CERT/SMTP_TLS_KEY and no openssl command to make a certificate: no STARTTLS, the secret key crosses the network in clear',
        );
        return null;
      }
      throw new ConfigError(
        missing
          ? 'SMTP_TLS_CERT: the SMTP submission server needs a certificate: set SMTP_TLS_CERT and SMTP_TLS_KEY (or install the openssl command, from which Pigeon makes a self-signed one, or set SMTP_SUBMISSION_ALLOW_INSECURE=true)'
          : `SMTP_TLS_CERT: openssl could not make a self-signed certificate: ${(err as Error).message.split('\n')[0]}`,
      );
    }
  }
  log.warn(
    { cert: certFile },
    `${label}: no SMTP_TLS_CERT/SMTP_TLS_KEY, STARTTLS uses a self-signed certificate that clients cannot verify`,
  );
  return { cert: await readFile(certFile), key: await readFile(keyFile), source: 'self-signed' };
}

/** Host name of a URL, made safe for the openssl subject (letters, digits, dots, hyphens). */
function hostOf(url: string): string {
  let host = 'localhost';
  try {
    host = new URL(url).hostname || host;
  } catch {
    /* keep localhost */
  }
  return host.replace(/[^A-Za-z0-9.-]/g, '') || 'localhost';
}
