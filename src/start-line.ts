import path from 'node:path';
import type { Config } from './config.js';

/**
 * The one line a person reads when Pigeon starts (printed on stderr beside the JSON log on stdout):
 * where the dashboard is and where mail goes. The relay's address is shown without its credentials.
 * @param config the parsed configuration.
 * @returns a single line, no trailing newline.
 */
export function startLine(
  config: Pick<Config, 'PROCESS_ROLE' | 'PUBLIC_URL' | 'SMTP_URL' | 'SES_REGION' | 'DATA_DIR'>,
): string {
  const mail = config.SES_REGION
    ? `mail goes out through Amazon SES (${config.SES_REGION})`
    : config.SMTP_URL
      ? `mail goes out through ${relay(config.SMTP_URL)}`
      : `mail stays on this machine, in ${path.join(config.DATA_DIR, 'outbox')} (no SMTP_URL)`;
  if (config.PROCESS_ROLE === 'worker') return `Pigeon's worker is running: ${mail}.`;
  return `Pigeon is running: open ${config.PUBLIC_URL}/app/ in your browser; ${mail}.`;
}

function relay(smtpUrl: string): string {
  const u = new URL(smtpUrl);
  return `${u.protocol}//${u.host}`;
}
