import net from 'node:net';
import type SMTPConnection from 'nodemailer/lib/smtp-connection/index.js';
import type { TransportSettings } from '../db/schema.js';
import { checkHost, type HostCheck } from './lookup.js';

/** How long a test may take in all before it is given up. */
export const TEST_TIMEOUT_MS = 10_000;

/** What a test found: whether the transport can be used, said in a sentence. */
export interface TestResult {
  ok: boolean;
  message: string;
}

/** What a test needs of a transport: its kind, settings and the secret in clear. */
export interface TestTarget {
  kind: 'smtp' | 'ses';
  settings: TransportSettings;
  secret: string | undefined;
}

/**
 * Opens a connection to the transport and says what happened, never throwing: for SMTP a session
 * (EHLO, STARTTLS or TLS as the URL says, AUTH when a user is set, QUIT) to an address checked
 * against the private ranges unless `allowPrivate`; for SES `GetAccount` and its send quota.
 */
export async function testTransport(target: TestTarget, opts: { allowPrivate: boolean }): Promise<TestResult> {
  try {
    if (target.kind === 'smtp') return await testSmtp((target.settings as { url: string }).url, target.secret, opts);
    return await testSes(target.settings as Extract<TransportSettings, { region: string }>, target.secret);
  } catch (err) {
    return { ok: false, message: `The test could not run: ${(err as Error).message}` };
  }
}

type SmtpError = Error & { code?: string; responseCode?: number; response?: string };

async function testSmtp(
  url: string,
  password: string | undefined,
  opts: { allowPrivate: boolean },
): Promise<TestResult> {
  const u = new URL(url);
  const hostname = u.hostname.replace(/^\[|\]$/g, '');
  const secure = u.protocol === 'smtps:';
  const port = Number(u.port || (secure ? 465 : 587));
  const where = `${hostname}:${port}`;
  const user = u.username ? decodeURIComponent(u.username) : undefined;

  let check: HostCheck;
  try {
    check = await withTimeout(checkHost(hostname, opts.allowPrivate), TEST_TIMEOUT_MS, 'DNS look-up');
  } catch (err) {
    return { ok: false, message: `Could not find ${hostname}: ${(err as Error).message}.` };
  }
  if (!check.ok) {
    return {
      ok: false,
      message:
        check.kind === 'refused'
          ? `Not connecting to ${where}: ${check.reason}.`
          : `Could not find ${hostname}: ${check.reason}.`,
    };
  }
  const address = check.address;

  const { default: Connection } = await import('nodemailer/lib/smtp-connection/index.js');
  const options: SMTPConnection.Options = {
    // The checked address, so that a second look-up cannot answer another one; the name for TLS.
    host: address,
    port,
    secure,
    servername: net.isIP(hostname) ? undefined : hostname,
    requireTLS: u.searchParams.get('requireTLS') === 'true' || (!!user && u.searchParams.get('requireTLS') !== 'false'),
    tls: { rejectUnauthorized: u.searchParams.get('tlsRejectUnauthorized') !== 'false' },
    connectionTimeout: TEST_TIMEOUT_MS,
    greetingTimeout: TEST_TIMEOUT_MS,
    socketTimeout: TEST_TIMEOUT_MS,
  };
  const conn = new Connection(options);
  const session = new Promise<TestResult>((resolve) => {
    const fail = (err: SmtpError) => resolve({ ok: false, message: smtpFailure(err, where) });
    conn.once('error', fail);
    conn.connect(() => {
      const tls = secure ? 'over TLS' : conn.secure ? 'STARTTLS' : 'without TLS';
      if (!user) {
        conn.quit();
        return resolve({
          ok: true,
          message: `Connected to ${where} ${tls === 'STARTTLS' ? 'with STARTTLS' : tls}; no login is set.`,
        });
      }
      conn.login({ user, pass: password ?? '' }, (err) => {
        if (err) {
          conn.close();
          return fail(err as SmtpError);
        }
        conn.quit();
        resolve({
          ok: true,
          message:
            tls === 'STARTTLS'
              ? `Connected to ${where}, STARTTLS and login accepted.`
              : `Connected to ${where} ${tls}, login accepted.`,
        });
      });
    });
  });
  try {
    return await withTimeout(session, TEST_TIMEOUT_MS, 'The session');
  } catch {
    return { ok: false, message: `Could not connect to ${where}: no answer within ${TEST_TIMEOUT_MS / 1000} seconds.` };
  } finally {
    conn.close();
  }
}

/** A sentence for a failed SMTP session. */
function smtpFailure(err: SmtpError, where: string): string {
  const answer = (err.response ?? '').trim();
  if (err.code === 'EAUTH')
    return answer ? `The server refused the login: ${answer}` : `The login could not be tried: ${err.message}`;
  if (err.code === 'ETIMEDOUT') return `Could not connect to ${where}: no answer in time.`;
  if (err.code === 'ETLS') return `The TLS handshake with ${where} failed: ${err.message}`;
  const m = /ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENETUNREACH/.exec(err.message);
  if (m) {
    const words: Record<string, string> = {
      ECONNREFUSED: 'connection refused',
      ECONNRESET: 'the connection was reset',
      EHOSTUNREACH: 'the host is unreachable',
      ENETUNREACH: 'the network is unreachable',
    };
    return `Could not connect to ${where}: ${words[m[0]]}.`;
  }
  if (answer) return `The server at ${where} answered: ${answer}`;
  return `Could not talk to ${where}: ${err.message}`;
}

async function testSes(
  settings: Extract<TransportSettings, { region: string }>,
  secret: string | undefined,
): Promise<TestResult> {
  const { SESv2Client, GetAccountCommand } = await import('@aws-sdk/client-sesv2');
  const client = new SESv2Client({
    region: settings.region,
    ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
    ...(settings.accessKeyId && secret
      ? { credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: secret } }
      : {}),
    maxAttempts: 1,
  });
  try {
    const res = await client.send(new GetAccountCommand({}), { abortSignal: AbortSignal.timeout(TEST_TIMEOUT_MS) });
    const q = res.SendQuota ?? {};
    const quota = `quota ${q.MaxSendRate ?? '?'} per second and ${q.Max24HourSend ?? '?'} per 24 hours (${q.SentLast24Hours ?? 0} sent in the last 24 hours)`;
    if (res.SendingEnabled === false)
      return {
        ok: false,
        message: `SES in ${settings.region} answered, but sending is paused on the account; ${quota}.`,
      };
    const sandbox = res.ProductionAccessEnabled === false ? ' The account is in the SES sandbox.' : '';
    return { ok: true, message: `SES in ${settings.region} accepts sending: ${quota}.${sandbox}` };
  } catch (err) {
    const e = err as Error & { name: string };
    if (e.name === 'AbortError' || e.name === 'TimeoutError')
      return {
        ok: false,
        message: `SES in ${settings.region} did not answer within ${TEST_TIMEOUT_MS / 1000} seconds.`,
      };
    return { ok: false, message: `SES in ${settings.region} refused: ${e.name}: ${e.message}` };
  } finally {
    client.destroy();
  }
}

/** `p`, or a rejection after `ms`. */
function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms / 1000} seconds`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
