import type { Deps } from '../../deps.js';
import { AppError } from '../../http/errors.js';
import { applyBounce, applyComplaint, applyDelivery } from '../apply.js';
import { findEmailForFeedback, markNotificationProcessed } from '../feedback.repo.js';
import { parseSesEvent } from './ses-events.js';
import {
  asSnsMessage,
  defaultSnsFetchers,
  isSnsSubscribeUrl,
  SnsVerificationError,
  verifySnsMessage,
  type SnsMessage,
} from './sns.verify.js';

/** What `POST /webhooks/sns` did with a message. */
export type SnsResult =
  /** A subscription confirmation: SNS's SubscribeURL was fetched. */
  | 'confirmed'
  /** An SES event applied to one of Pigeon's emails. */
  | 'processed'
  /** A notification id processed before: acknowledged, nothing changed. */
  | 'duplicate'
  /** Verified, but nothing to do: an event type Pigeon does not use, a mail it did not send, an unsubscribe confirmation. */
  | 'ignored';

const refuse = (message: string) => new AppError('FORBIDDEN', message);

/**
 * Handles one message SNS posted. Order: SES feedback must be configured (`SNS_TOPIC_ARNS`); the body
 * must carry SNS's signed fields; the topic must be one of `SNS_TOPIC_ARNS`; the signature is verified
 * (sns.verify.ts) before anything else in the message is read or written. Then by `Type`:
 * - `SubscriptionConfirmation`: its `SubscribeURL` is fetched (confirming the subscription) only when
 *   it is SNS's own `https://sns.<region>.amazonaws.com/` address; any other is refused and logged.
 * - `Notification`: its `MessageId` is recorded in `sns_notifications` in the transaction that applies
 *   it, so a replay is acknowledged and changes nothing; its `Message` is an SES event
 *   (ses-events.ts) applied to the email sent through SES with that SES message id (feedback/apply.ts).
 * - `UnsubscribeConfirmation`: logged.
 * @throws AppError RESOURCE_NOT_FOUND (404) when neither SNS_TOPIC_ARNS nor SES_REGION is set; FORBIDDEN
 *   (403) with SES_REGION but no SNS_TOPIC_ARNS, and for an unsigned, forged, foreign-topic message or a foreign
 *   SubscribeURL; INTERNAL_SERVER_ERROR with status 502 when SNS did not answer the confirmation (SNS
 *   can be asked to send it again).
 */
export async function handleSnsMessage(deps: Deps, body: unknown): Promise<SnsResult> {
  const fetchers = deps.sns ?? defaultSnsFetchers;
  const topics = deps.config.SNS_TOPIC_ARNS;
  if (!topics?.length) {
    if (!deps.config.SES_REGION)
      throw new AppError('RESOURCE_NOT_FOUND', 'Amazon SES feedback is not configured on this server');
    throw refuse('No SNS topic is accepted: set SNS_TOPIC_ARNS to the topics of your SES configuration set');
  }
  let m: SnsMessage;
  try {
    m = asSnsMessage(body);
    // Before any certificate is fetched or signature checked: a signed message of another AWS
    // account's topic is still not ours.
    if (!topics.includes(m.TopicArn)) throw new SnsVerificationError(`Topic ${m.TopicArn} is not in SNS_TOPIC_ARNS`);
    await verifySnsMessage(m, fetchers, deps.clock.now());
  } catch (err) {
    if (!(err instanceof SnsVerificationError)) throw err;
    deps.log.warn({ reason: err.message }, 'SNS message refused');
    throw refuse(err.message);
  }

  if (m.Type === 'SubscriptionConfirmation') {
    if (!isSnsSubscribeUrl(m.SubscribeURL!)) {
      deps.log.warn(
        { topic: m.TopicArn, subscribeUrl: m.SubscribeURL!.slice(0, 200) },
        'SNS subscription confirmation refused: SubscribeURL is not an SNS address',
      );
      throw refuse('SubscribeURL is not an https://sns.<region>.amazonaws.com/ address');
    }
    try {
      await fetchers.confirmSubscription(m.SubscribeURL!);
    } catch (err) {
      deps.log.error({ topic: m.TopicArn, err: (err as Error).message }, 'SNS subscription confirmation failed');
      throw new AppError('INTERNAL_SERVER_ERROR', `Confirming the subscription failed: ${(err as Error).message}`, {
        status: 502,
      });
    }
    deps.log.info({ topic: m.TopicArn }, 'SNS subscription confirmed');
    return 'confirmed';
  }
  if (m.Type !== 'Notification') {
    deps.log.info({ topic: m.TopicArn, type: m.Type }, 'SNS message acknowledged');
    return 'ignored';
  }

  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    if (!(await markNotificationProcessed(tx, m.MessageId, now))) return 'duplicate';
    const event = parseSesEvent(m.Message, now);
    if (!event) return 'ignored';
    const emailId = await findEmailForFeedback(tx, event.sesMessageId);
    if (!emailId) {
      deps.log.info(
        { sesMessageId: event.sesMessageId, kind: event.feedback.kind },
        'SES feedback for a message Pigeon does not know',
      );
      return 'ignored';
    }
    const f = event.feedback;
    if (f.kind === 'bounce')
      await applyBounce(tx, emailId, { permanent: f.permanent, diagnostic: f.diagnostic, at: f.at });
    else if (f.kind === 'complaint') await applyComplaint(tx, emailId, { feedbackType: f.feedbackType, at: f.at });
    else await applyDelivery(tx, emailId, f.at);
    return 'processed';
  });
}
