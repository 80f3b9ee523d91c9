import type { Browser } from 'playwright-core';
import { startDnsServer, type TestDnsServer } from '../../../test/dns-server.js';
import { createHarness, type Harness } from '../../../test/harness.js';
import { startSmtpSink, type SmtpSink } from '../../../test/smtp-sink.js';
import { launchBrowser, newPage } from './browser.js';
import { ensureWebBuild } from './build.js';

/** The real server (API + worker + the built dashboard), its SMTP peer, its DNS server, and Chromium. */
export interface Dashboard {
  h: Harness;
  dns: TestDnsServer;
  smtp: SmtpSink;
  browser: Browser;
  /** A new browser context and page on the server (own cookies). */
  open(): ReturnType<typeof newPage>;
  close(): Promise<void>;
}

/**
 * Starts everything a browser test needs: builds the dashboard if it is stale, then a harness with
 * the worker whose mail goes to a real SMTP sink (SMTP_URL) and whose DNS look-ups go to the test DNS
 * server (DNS_SERVERS), and headless Chromium. `env` adds configuration (e.g. DISABLE_SIGNUPS).
 * `outbox`: no SMTP_URL, mail goes to the outbox in `h.dataDir` with the outbox's sender rule, as on a
 * laptop with no relay (the sink is started all the same, and gets nothing).
 */
export async function startDashboard(
  env: Record<string, string> = {},
  opts: { outbox?: boolean } = {},
): Promise<Dashboard> {
  await ensureWebBuild();
  const dns = await startDnsServer();
  const smtp = await startSmtpSink();
  const h = opts.outbox
    ? await createHarness({ worker: true, localSenderRule: true, env: { DNS_SERVERS: dns.address, ...env } })
    : await createHarness({ worker: true, env: { DNS_SERVERS: dns.address, SMTP_URL: smtp.url, ...env } });
  const browser = await launchBrowser();
  return {
    h,
    dns,
    smtp,
    browser,
    open: () => newPage(browser, h.url),
    async close() {
      await browser.close();
      await h.close();
      await smtp.close();
      await dns.close();
    },
  };
}

/** The first link in a plain-text mail. */
export function linkIn(text: string | undefined): string {
  const m = /https?:\/\/\S+/.exec(text ?? '');
  if (!m) throw new Error(`no link in mail: ${text}`);
  return m[0];
}

/** The mails the SMTP sink got for `to`, once there are at least `n`; throws after 15 s. */
export async function waitForMail(d: Dashboard, to: string, n = 1) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const mails = d.smtp.to(to);
    if (mails.length >= n) return mails;
    if (Date.now() > deadline) throw new Error(`no mail to ${to} after 15 s (${mails.length} of ${n})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
