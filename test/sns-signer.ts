import { execFileSync } from 'node:child_process';
import { createSign, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A key and a self-signed certificate standing in for SNS's signing certificate (made with the openssl CLI). */
export interface TestSigningKey {
  keyPem: string;
  certPem: string;
}

/** Makes an RSA 2048 key and a self-signed certificate valid from now for `days` days. */
export function makeSigningKey(days = 2): TestSigningKey {
  const dir = mkdtempSync(path.join(tmpdir(), 'pigeon-sns-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        path.join(dir, 'key.pem'),
        '-out',
        path.join(dir, 'cert.pem'),
        '-days',
        String(days),
        '-subj',
        '/CN=sns.amazonaws.com',
      ],
      { stdio: 'ignore' },
    );
    return {
      keyPem: readFileSync(path.join(dir, 'key.pem'), 'utf8'),
      certPem: readFileSync(path.join(dir, 'cert.pem'), 'utf8'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export type SnsBody = Record<string, string>;

/**
 * Signs an SNS message as SNS does (written here from AWS's description, independently of Pigeon's
 * verifier): the canonical string of `Message`, `MessageId`, `Subject` (if any), `Timestamp`,
 * `TopicArn`, `Type` for notifications, `Message`, `MessageId`, `SubscribeURL`, `Timestamp`, `Token`,
 * `TopicArn`, `Type` for confirmations, each `Name\nValue\n`; SHA1withRSA for version 1, SHA256withRSA for 2.
 */
export function signSns(m: SnsBody, keyPem: string, version: '1' | '2' = '1'): SnsBody {
  const fields =
    m.Type === 'Notification'
      ? ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type']
      : ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'];
  const text = fields
    .filter((f) => m[f] !== undefined)
    .map((f) => `${f}\n${m[f]}\n`)
    .join('');
  const signature = createSign(version === '1' ? 'RSA-SHA1' : 'RSA-SHA256')
    .update(text, 'utf8')
    .sign(keyPem, 'base64');
  return { ...m, SignatureVersion: version, Signature: signature };
}

export const TEST_TOPIC = 'arn:aws:sns:eu-west-1:123456789012:pigeon-feedback';
export const TEST_CERT_URL = 'https://sns.eu-west-1.amazonaws.com/SimpleNotificationService-0000000000000000000000.pem';

/** An unsigned SNS Notification carrying `message` (an SES event object) on {@link TEST_TOPIC}. */
export function snsNotification(message: unknown, overrides: SnsBody = {}): SnsBody {
  return {
    Type: 'Notification',
    MessageId: randomUUID(),
    TopicArn: TEST_TOPIC,
    Message: JSON.stringify(message),
    Timestamp: new Date().toISOString(),
    SigningCertURL: TEST_CERT_URL,
    UnsubscribeURL: `https://sns.eu-west-1.amazonaws.com/?Action=Unsubscribe&SubscriptionArn=${TEST_TOPIC}:${randomUUID()}`,
    ...overrides,
  };
}

/** An unsigned SNS SubscriptionConfirmation on {@link TEST_TOPIC}. */
export function snsConfirmation(subscribeUrl: string): SnsBody {
  const token = randomUUID().replace(/-/g, '');
  return {
    Type: 'SubscriptionConfirmation',
    MessageId: randomUUID(),
    Token: token,
    TopicArn: TEST_TOPIC,
    Message: `You have chosen to subscribe to the topic ${TEST_TOPIC}.`,
    SubscribeURL: subscribeUrl,
    Timestamp: new Date().toISOString(),
    SigningCertURL: TEST_CERT_URL,
  };
}

/** The SES event (configuration-set event publishing format) of `type` for the message `sesMessageId`. */
export function sesEvent(
  type: 'Bounce' | 'Complaint' | 'Delivery' | 'Open',
  sesMessageId: string,
  recipient: string,
  extra: Record<string, unknown> = {},
) {
  const timestamp = new Date().toISOString();
  const mail = {
    timestamp,
    source: 'hello@example.test',
    messageId: sesMessageId,
    destination: [recipient],
    commonHeaders: { to: [recipient] },
  };
  const body: Record<string, unknown> = { eventType: type, mail };
  if (type === 'Bounce')
    body.bounce = {
      bounceType: 'Permanent',
      bounceSubType: 'General',
      timestamp,
      feedbackId: randomUUID(),
      bouncedRecipients: [
        { emailAddress: recipient, action: 'failed', status: '5.1.1', diagnosticCode: 'smtp; 550 5.1.1 user unknown' },
      ],
      ...extra,
    };
  if (type === 'Complaint')
    body.complaint = {
      timestamp,
      feedbackId: randomUUID(),
      complaintFeedbackType: 'abuse',
      complainedRecipients: [{ emailAddress: recipient }],
      ...extra,
    };
  if (type === 'Delivery')
    body.delivery = { timestamp, recipients: [recipient], smtpResponse: '250 ok', processingTimeMillis: 500, ...extra };
  if (type === 'Open') body.open = { timestamp, ipAddress: '192.0.2.1', userAgent: 'x' };
  return body;
}
