import { describe, expect, it } from 'vitest';
import { startLine } from './start-line.js';

describe('the start line', () => {
  const base = { PROCESS_ROLE: 'all', PUBLIC_URL: 'http://localhost:3000', DATA_DIR: 'data' } as const;

  it("names the dashboard's address and the outbox when mail stays local", () => {
    expect(startLine(base)).toBe(
      'Pigeon is running: open http://localhost:3000/app/ in your browser; mail stays on this machine, in data/outbox (no SMTP_URL).',
    );
  });

  it("names the relay without its credentials, and SES's region", () => {
    const line = startLine({ ...base, SMTP_URL: 'smtps://user:s3cret@relay.example.com:465' });
    expect(line).toContain('mail goes out through smtps://relay.example.com:465.');
    expect(line).not.toContain('s3cret');
    expect(startLine({ ...base, SES_REGION: 'eu-west-1' })).toContain('Amazon SES (eu-west-1)');
  });

  it('says a worker-only process has no dashboard address', () => {
    expect(startLine({ ...base, PROCESS_ROLE: 'worker' })).toBe(
      "Pigeon's worker is running: mail stays on this machine, in data/outbox (no SMTP_URL).",
    );
  });
});
