/**
 * Bounce and complaint messages as relays and mailbox providers send them, for the inbound tests:
 * a DSN (RFC 3464), an ARF report (RFC 5965), and free-text bounces.
 */

export interface DsnOptions {
  to: string;
  recipient: string;
  action?: string;
  status?: string;
  diagnostic?: string;
  /** Message-ID of the returned original; omitted: no original part. */
  originalMessageId?: string;
  /** `message/rfc822` (default: headers only, `text/rfc822-headers`). */
  fullOriginal?: boolean;
  date?: string;
}

const crlf = (s: string) => s.replace(/\r?\n/g, '\r\n');

/** A Postfix-style DSN: text part, `message/delivery-status`, original headers. */
export function dsn(o: DsnOptions): string {
  const original = o.originalMessageId
    ? `--BOUND
Content-Type: ${o.fullOriginal ? 'message/rfc822' : 'text/rfc822-headers'}
Content-Description: Undelivered Message${o.fullOriginal ? '' : ' Headers'}

From: Hello <hello@sender.test>
To: ${o.recipient}
Subject: Hi
Message-ID: ${o.originalMessageId}
${o.fullOriginal ? '\nThe original body.\n' : ''}
`
    : '';
  return crlf(`Return-Path: <>
From: MAILER-DAEMON@mx.rcpt.test (Mail Delivery System)
To: ${o.to}
Subject: Undelivered Mail Returned to Sender
Date: ${o.date ?? 'Mon, 02 Feb 2026 10:00:00 +0000'}
Message-ID: <dsn-${Math.random().toString(36).slice(2)}@mx.rcpt.test>
Auto-Submitted: auto-replied
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="BOUND"

--BOUND
Content-Type: text/plain; charset=us-ascii

This is the mail system at host mx.rcpt.test.
I'm sorry to have to inform you that your message could not be delivered.

--BOUND
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.rcpt.test
X-Postfix-Queue-ID: 4F1A2B3C
Arrival-Date: Mon,  2 Feb 2026 09:59:58 +0000

Final-Recipient: rfc822; ${o.recipient}
Original-Recipient: rfc822;${o.recipient}
Action: ${o.action ?? 'failed'}
Status: ${o.status ?? '5.1.1'}
Remote-MTA: dns; inbox.rcpt.test
Diagnostic-Code: ${
    o.diagnostic ??
    `smtp; 550 5.1.1 <${o.recipient}>: Recipient address rejected:
    User unknown in local recipient table`
  }

${original}--BOUND--
`);
}

/** An ARF complaint report (RFC 5965 §3) with the whole original message. */
export function arf(o: { to: string; recipient: string; originalMessageId?: string; feedbackType?: string }): string {
  return crlf(`From: Feedback Loop <fbl@isp.test>
To: ${o.to}
Subject: Abuse report
Date: Mon, 02 Feb 2026 11:00:00 +0000
Message-ID: <arf-${Math.random().toString(36).slice(2)}@isp.test>
MIME-Version: 1.0
Content-Type: multipart/report; report-type=feedback-report; boundary="ARF"

--ARF
Content-Type: text/plain; charset="US-ASCII"

This is an email abuse report for an email message received from IP 192.0.2.1.

--ARF
Content-Type: message/feedback-report

Feedback-Type: ${o.feedbackType ?? 'abuse'}
User-Agent: SomeGenerator/1.0
Version: 1
Original-Mail-From: <${o.to}>
Original-Rcpt-To: <${o.recipient}>
Arrival-Date: Mon, 02 Feb 2026 10:30:00 +0000
Reported-Domain: sender.test
Source-IP: 192.0.2.1

--ARF
Content-Type: message/rfc822
Content-Disposition: inline

From: <hello@sender.test>
To: <${o.recipient}>
Subject: Spring sale
Message-ID: ${o.originalMessageId ?? '<unknown@sender.test>'}
Date: Mon, 02 Feb 2026 10:29:00 +0000

Buy now.

--ARF--
`);
}

/** A qmail-style free-text bounce (no delivery-status part). */
export function qmailBounce(o: { to: string; recipient: string; line: string }): string {
  return crlf(`From: MAILER-DAEMON@mx.rcpt.test
To: ${o.to}
Subject: failure notice
Date: Mon, 02 Feb 2026 10:00:00 +0000

Hi. This is the qmail-send program at mx.rcpt.test.
I'm afraid I wasn't able to deliver your message to the following addresses.
This is a permanent error; I've given up. Sorry it didn't work out.

<${o.recipient}>:
${o.line}

--- Below this line is a copy of the message.

Return-Path: <${o.to}>
Message-ID: <orig@sender.test>
Subject: Hi
`);
}
