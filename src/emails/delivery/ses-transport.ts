import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import type { AwsCredentialIdentity } from '@aws-sdk/types';
import { mimeBuilder, type MimeBuilder } from './mime-builder.js';
import { PermanentSendError, type Transport } from './transport.js';

/** Options of {@link sesTransport}. */
export interface SesTransportOptions {
  /** AWS region of the SES account, e.g. `eu-west-1` (config `SES_REGION`). */
  region: string;
  /**
   * Configuration set named on every send (config `SES_CONFIGURATION_SET`): its event destination
   * publishes bounces, complaints and deliveries to the SNS topic that calls `POST /webhooks/sns`.
   */
  configurationSet?: string;
  /** Another endpoint than AWS's (config `SES_ENDPOINT`: LocalStack, or a test's stand-in server). */
  endpoint?: string;
  /** Fixed credentials; unset: the AWS default chain (environment, shared files, SSO, instance role). */
  credentials?: AwsCredentialIdentity;
  /** Builds and DKIM-signs the raw MIME (mime-builder.ts). */
  mime?: MimeBuilder;
}

/**
 * SES error names no retry can change: the message itself was refused (`MessageRejected`: a virus, an
 * unverified sender in the sandbox, …), the sender's MAIL FROM domain is not verified, the account is
 * suspended, or the request names something that does not exist (the configuration set).
 */
const PERMANENT = new Set([
  'MessageRejected',
  'MailFromDomainNotVerifiedException',
  'AccountSuspendedException',
  'BadRequestException',
  'NotFoundException',
]);

/** SES's answers to sending faster than the account's rate. */
const THROTTLING = new Set(['Throttling', 'TooManyRequestsException', 'LimitExceededException']);

/**
 * Sorts an error of `SendEmail` into the outcomes of SMTP delivery: {@link PermanentSendError} for
 * the names in {@link PERMANENT} (the email ends FAILED with the reason), else an Error to retry:
 * throttling (`TooManyRequestsException`, `LimitExceededException`, HTTP 429), SES faults (5xx),
 * `SendingPausedException` (an account's sending may be resumed), network faults and anything unknown.
 * Never a bounce: SES reports bounces later, through SNS. The Error's `transportFault` says whether
 * the transport's breaker counts it (transports/failures.ts), `throttled` whether its rate halves (transports/rate.ts).
 */
export function sesError(err: unknown): Error {
  const e = err as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  const name = e?.name ?? 'Error';
  const status = e?.$metadata?.httpStatusCode;
  const text = `SES ${name}${status ? ` (HTTP ${status})` : ''}: ${e?.message ?? String(err)}`;
  if (PERMANENT.has(name)) return new PermanentSendError(text);
  // A network error or an answer of AWS's own failure: the transport's fault (transports/failures.ts).
  // Sending paused on the account is too; throttling is about rate, not health.
  const fault = name === 'SendingPausedException' || (status === undefined ? !THROTTLING.has(name) : status >= 500);
  return Object.assign(new Error(text), { transportFault: fault, throttled: THROTTLING.has(name) || status === 429 });
}

/**
 * Amazon SES (API v2) as the transport: the message is built and DKIM-signed by Pigeon (its own
 * signature is kept, SES adds its own) and sent as raw MIME with `SendEmail` `Content.Raw`, to the
 * envelope recipients, naming the configuration set. The `MessageId` SES answers is returned as
 * `providerMessageId`; `delivered` is false, since SES reports delivery later (an SNS `Delivery`).
 * The SDK makes one attempt per send: retries are the delivery job's (exponential backoff), which
 * also spaces out throttled sends. The hand-off hook runs after the MIME is built and before the
 * request is sent; when it rejects nothing is sent.
 * @throws PermanentSendError or Error, see {@link sesError}.
 */
export function sesTransport(opts: SesTransportOptions): Transport {
  const client = new SESv2Client({
    region: opts.region,
    ...(opts.endpoint ? { endpoint: opts.endpoint } : {}),
    ...(opts.credentials ? { credentials: opts.credentials } : {}),
    maxAttempts: 1,
    requestHandler: { connectionTimeout: 10_000, requestTimeout: 60_000 },
  });
  const mime = opts.mime ?? mimeBuilder();
  return {
    kind: 'ses',
    async send(message, hooks) {
      const built = await mime.build(message);
      await hooks?.beforeHandOff?.();
      let out;
      try {
        out = await client.send(
          new SendEmailCommand({
            Content: {
              Raw: { Data: new Uint8Array(built.message.buffer, built.message.byteOffset, built.message.byteLength) },
            },
            Destination: { ToAddresses: built.envelope.to },
            ...(opts.configurationSet ? { ConfigurationSetName: opts.configurationSet } : {}),
          }),
        );
      } catch (err) {
        throw sesError(err);
      }
      if (!out.MessageId) throw new Error('SES accepted the message but answered no MessageId');
      return {
        messageId: built.messageId,
        response: `SES MessageId ${out.MessageId}`,
        delivered: false,
        providerMessageId: out.MessageId,
      };
    },
    async close() {
      client.destroy();
      await mime.close();
    },
  };
}
