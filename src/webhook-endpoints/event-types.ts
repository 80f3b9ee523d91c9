/**
 * The event types offered to webhook endpoints, and how Pigeon's own event names (the `events`
 * table) map to them. A webhook type is what a receiver sees in the payload's `type`.
 */

/** Internal event name → webhook type, where they differ (past tense, as receivers expect). */
export const INTERNAL_TO_WEBHOOK_TYPE: Readonly<Record<string, string>> = {
  'email.delivery': 'email.delivered',
  'email.open': 'email.opened',
  'email.click': 'email.clicked',
  'email.bounce': 'email.bounced',
  'email.complaint': 'email.complained',
};

/** Every fixed webhook type Pigeon emits (segment moves are `segment.<slug>.entry|exit`, see below). */
export const WEBHOOK_EVENT_TYPES = [
  'email.sent',
  'email.delivered',
  'email.opened',
  'email.clicked',
  'email.bounced',
  'email.complained',
  'email.failed',
  'email.received',
  'contact.created',
  'contact.updated',
  'contact.subscribed',
  'contact.unsubscribed',
  'contact.confirmed',
  'contact.deleted',
  'topic.joined',
  'topic.left',
  'campaign.sending',
  'campaign.sent',
  'campaign.cancelled',
  'transport.degraded',
  'transport.recovered',
] as const;

/** The families a `family.*` subscription may name. */
export const WEBHOOK_FAMILIES = ['email', 'contact', 'topic', 'campaign', 'segment', 'transport'] as const;

/** A segment membership move, `segment.<slug>.entry` or `segment.<slug>.exit`. */
export const SEGMENT_MOVE = /^segment\..+\.(entry|exit)$/;

/**
 * Why a subscription pattern is refused, or null: `*`, a family wildcard, a webhook type, a segment
 * move, or a tracked event name. Internal `email.*` names (e.g. `email.delivery`) and unknown
 * `email.` types are refused with the type to use instead.
 */
export function refusedPattern(p: string): string | null {
  if (p === '*' || (WEBHOOK_EVENT_TYPES as readonly string[]).includes(p) || SEGMENT_MOVE.test(p)) return null;
  if (p.endsWith('.*')) {
    const family = p.slice(0, -2);
    return (WEBHOOK_FAMILIES as readonly string[]).includes(family)
      ? null
      : `"${p}": wildcards are "*" or one of ${WEBHOOK_FAMILIES.map((f) => `${f}.*`).join(', ')}`;
  }
  if (p.startsWith('email.')) {
    const hint = INTERNAL_TO_WEBHOOK_TYPE[p] ? ` (use "${INTERNAL_TO_WEBHOOK_TYPE[p]}")` : '';
    return `"${p}" is not an email event type${hint}`;
  }
  return null;
}
