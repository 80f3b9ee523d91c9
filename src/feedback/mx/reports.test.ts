import { describe, expect, it } from 'vitest';
import { arf, dsn, qmailBounce } from '../../../test/reports.js';
import { parseFieldGroups, typedAddress, field } from './fields.js';
import { parseReport } from './reports.js';
import { base32, readVerpAddress, readVerpToken, unbase32, verpAddress, verpToken } from '../../emails/verp.js';

const SECRET = 'unit-secret-unit-secret-unit-secret-0123456789';
const ID = '0192f0a1-7b2c-7def-8a12-3456789abcde';
const NOW = new Date('2026-03-01T00:00:00Z');

describe('VERP tokens', () => {
  it('round-trips base32 (RFC 4648 test vectors, lower case, no padding)', () => {
    for (const [plain, enc] of [
      ['', ''],
      ['f', 'my'],
      ['fo', 'mzxq'],
      ['foo', 'mzxw6'],
      ['foob', 'mzxw6yq'],
      ['fooba', 'mzxw6ytb'],
      ['foobar', 'mzxw6ytboi'],
    ]) {
      expect(base32(Buffer.from(plain))).toBe(enc);
      expect(unbase32(enc.toUpperCase())!.toString()).toBe(plain);
    }
    expect(unbase32('ab1')).toBeNull();
  });

  it('names the email, fits a local part, and survives a relay changing its case', () => {
    const addr = verpAddress(SECRET, ID, 'Bounces.Example.com');
    expect(addr).toMatch(/^bounces\+[a-z2-7]{42}@bounces\.example\.com$/);
    expect(addr.split('@')[0].length).toBeLessThanOrEqual(64);
    expect(readVerpAddress(SECRET, addr, 'bounces.example.com')).toBe(ID);
    expect(readVerpAddress(SECRET, addr.toUpperCase(), 'bounces.example.com')).toBe(ID);
  });

  it('refuses forged, altered, foreign-domain and foreign-secret addresses', () => {
    const token = verpToken(SECRET, ID);
    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'a' ? 'b' : 'a') + s.slice(i + 1);
    expect(readVerpToken(SECRET, flip(token, 3))).toBeNull(); // another id, old signature
    expect(readVerpToken(SECRET, flip(token, 30))).toBeNull(); // signature changed
    expect(readVerpToken(SECRET, token.slice(0, -1))).toBeNull();
    expect(readVerpToken('another-secret-another-secret-another-0123', token)).toBeNull();
    expect(readVerpAddress(SECRET, `bounces+${token}@other.example.com`, 'bounces.example.com')).toBeNull();
    expect(readVerpAddress(SECRET, `postmaster+${token}@bounces.example.com`, 'bounces.example.com')).toBeNull();
    expect(readVerpAddress(SECRET, 'bounces@bounces.example.com', 'bounces.example.com')).toBeNull();
  });
});

describe('report fields (RFC 3464 §2)', () => {
  it('splits per-message and per-recipient groups, unfolds, keeps repeats', () => {
    const g = parseFieldGroups(
      'Reporting-MTA: dns; mx.test\r\n\r\nFinal-Recipient: rfc822; <Bob@X.test>\r\nAction: failed\r\nDiagnostic-Code: smtp; 550 5.1.1\r\n   user unknown\r\nX-Note: a\r\nX-Note: b\r\n\r\n\r\nFinal-Recipient: rfc822; carol@x.test\r\nAction: delayed\r\n',
    );
    expect(g).toHaveLength(3);
    expect(field(g[0], 'reporting-mta')).toBe('dns; mx.test');
    expect(field(g[1], 'DIAGNOSTIC-CODE')).toBe('smtp; 550 5.1.1 user unknown');
    expect(g[1].get('x-note')).toEqual(['a', 'b']);
    expect(typedAddress(field(g[1], 'final-recipient'))).toBe('bob@x.test');
    expect(field(g[2], 'action')).toBe('delayed');
  });
});

describe('parseReport', () => {
  const to = 'bounces+x@b.test';
  it('reads a permanent DSN with its diagnostic and the original Message-ID (headers or whole message)', async () => {
    for (const fullOriginal of [false, true]) {
      const r = await parseReport(
        Buffer.from(dsn({ to, recipient: 'bob@rcpt.test', originalMessageId: '<m1@sender.test>', fullOriginal })),
        NOW,
      );
      expect(r).toMatchObject({
        kind: 'bounce',
        permanent: true,
        status: '5.1.1',
        recipient: 'bob@rcpt.test',
        originalMessageId: '<m1@sender.test>',
        format: 'dsn',
        at: new Date('2026-02-02T10:00:00Z'),
      });
      expect(r.kind === 'bounce' && r.diagnostic).toBe(
        'smtp; 550 5.1.1 <bob@rcpt.test>: Recipient address rejected: User unknown in local recipient table',
      );
    }
  });

  it('tells transient from permanent by the status class, and reads delivered', async () => {
    const delayed = await parseReport(
      Buffer.from(
        dsn({ to, recipient: 'b@r.test', action: 'delayed', status: '4.4.1', diagnostic: 'smtp; 451 4.4.1 try later' }),
      ),
      NOW,
    );
    expect(delayed).toMatchObject({ kind: 'bounce', permanent: false, status: '4.4.1' });
    const expired = await parseReport(
      Buffer.from(dsn({ to, recipient: 'b@r.test', action: 'failed', status: '4.4.7' })),
      NOW,
    );
    expect(expired).toMatchObject({ kind: 'bounce', permanent: false, status: '4.4.7' });
    const delivered = await parseReport(
      Buffer.from(dsn({ to, recipient: 'b@r.test', action: 'delivered', status: '2.0.0' })),
      NOW,
    );
    expect(delivered).toMatchObject({ kind: 'delivered', recipient: 'b@r.test' });
  });

  it('never dates a report in the future', async () => {
    const r = await parseReport(
      Buffer.from(dsn({ to, recipient: 'b@r.test', date: 'Mon, 02 Feb 2099 10:00:00 +0000' })),
      NOW,
    );
    expect(r.kind === 'bounce' && r.at).toEqual(NOW);
  });

  it('reads an ARF complaint; not-spam feedback is no complaint', async () => {
    const r = await parseReport(
      Buffer.from(arf({ to, recipient: 'bob@rcpt.test', originalMessageId: '<m2@sender.test>' })),
      NOW,
    );
    expect(r).toMatchObject({
      kind: 'complaint',
      feedbackType: 'abuse',
      recipient: 'bob@rcpt.test',
      originalMessageId: '<m2@sender.test>',
    });
    const n = await parseReport(Buffer.from(arf({ to, recipient: 'bob@rcpt.test', feedbackType: 'not-spam' })), NOW);
    expect(n).toMatchObject({ kind: 'ignored' });
  });

  it('reads free-text bounces by their status or reply code', async () => {
    const q = await parseReport(
      Buffer.from(qmailBounce({ to, recipient: 'b@r.test', line: 'Sorry, no mailbox here by that name. (#5.1.1)' })),
      NOW,
    );
    expect(q).toMatchObject({
      kind: 'bounce',
      permanent: true,
      status: '5.1.1',
      format: 'text',
      originalMessageId: '<orig@sender.test>',
    });
    const y = await parseReport(
      Buffer.from(
        qmailBounce({
          to,
          recipient: 'b@r.test',
          line: "Remote host said: 554 delivery error: dd This user doesn't have an account",
        }),
      ),
      NOW,
    );
    expect(y).toMatchObject({ kind: 'bounce', permanent: true, format: 'text' });
    expect(y.kind === 'bounce' && y.diagnostic).toContain('554 delivery error');
    const soft = await parseReport(
      Buffer.from(
        qmailBounce({ to, recipient: 'b@r.test', line: '452 4.2.2 Mailbox full' }).replace(
          'This is a permanent error',
          'Still trying',
        ),
      ),
      NOW,
    );
    expect(soft).toMatchObject({ kind: 'bounce', permanent: false, status: '4.2.2' });
  });

  it('ignores an out-of-office reply', async () => {
    const ooo =
      'From: Bob <bob@rcpt.test>\r\nTo: bounces+x@b.test\r\nSubject: Out of office: Hi\r\nAuto-Submitted: auto-replied\r\n\r\nI am away until Monday; 550 words of apology.\r\n';
    expect(await parseReport(Buffer.from(ooo), NOW)).toMatchObject({ kind: 'ignored' });
  });
});
