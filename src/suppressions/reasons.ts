/**
 * Why an address is on a project's suppression list: the one representation, stored in
 * `suppressions.reason` and answered by the API.
 * - `bounce`: a hard bounce (SMTP 5xx, or a permanent bounce reported by the provider);
 * - `complaint`: the recipient marked a message as spam (feedback loop, SES complaint);
 * - `manual`: added through `POST /suppressions` (the default);
 * - `unsubscribe`: added through `POST /suppressions` with this reason, e.g. an opt-out list
 *   imported from another provider. Pigeon's own unsubscribe link does not suppress: it unsubscribes
 *   the contact, who may subscribe again.
 */
export const SUPPRESSION_REASONS = ['bounce', 'complaint', 'manual', 'unsubscribe'] as const;
export type SuppressionReason = (typeof SUPPRESSION_REASONS)[number];
